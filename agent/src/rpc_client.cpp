#include "xpuperf/agent/rpc_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>

#include "stream.h"
#include "xpuperf/agent/rpc_handler.h"

namespace xpuperf::agent {

namespace {

Error Unreachable(const AgentEndpoint& endpoint, const std::string& why) {
  return MakeError(ErrorCode::kUnavailable, "agent " + endpoint.ToString() + ": " + why);
}

Result<int> Connect(const AgentEndpoint& endpoint, double timeout_seconds) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(endpoint.port);
  if (int rc = getaddrinfo(endpoint.host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return Unreachable(endpoint, std::string("cannot resolve: ") + gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(found, freeaddrinfo);
  std::string last_error = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) continue;
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd waiter{fd, POLLOUT, 0};
      rc = poll(&waiter, 1, static_cast<int>(timeout_seconds * 1000));
      if (rc == 1) {
        int error = 0;
        socklen_t length = sizeof(error);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
        rc = error == 0 ? 0 : -1;
        errno = error;
      } else {
        if (rc == 0) errno = ETIMEDOUT;
        rc = -1;
      }
    }
    if (rc == 0) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      SetSocketTimeouts(fd, timeout_seconds);
      return fd;
    }
    last_error = std::strerror(errno);
    close(fd);
  }
  return Unreachable(endpoint, "cannot connect: " + last_error);
}

Error TlsError(const AgentEndpoint& endpoint, const std::string& what) {
  const unsigned long code = ERR_get_error();
  char reason[256] = "unknown error";
  if (code != 0) ERR_error_string_n(code, reason, sizeof(reason));
  ERR_clear_error();
  return Unreachable(endpoint, "TLS " + what + ": " + reason);
}

}  // namespace

std::string AgentEndpoint::ToString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<AgentEndpoint> ParseAgentEndpoint(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorCode::kInvalidArgument, "host '" + std::string(text) + "': " + why +
                                                      " (use HOST, HOST:PORT or [V6]:PORT)");
  };
  AgentEndpoint endpoint;
  std::string_view port_text;
  if (text.starts_with('[')) {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return bad("missing ']'");
    endpoint.host = std::string(text.substr(1, close - 1));
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return bad("expected ':' after ']'");
      port_text = text.substr(close + 2);
      if (port_text.empty()) return bad("empty port");
    }
  } else if (std::count(text.begin(), text.end(), ':') > 1) {
    return bad("write IPv6 addresses in []");
  } else if (const size_t colon = text.find(':'); colon != std::string_view::npos) {
    endpoint.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
    if (port_text.empty()) return bad("empty port");
  } else {
    endpoint.host = std::string(text);
  }
  if (endpoint.host.empty()) return bad("empty host");
  if (endpoint.host.find_first_of(" \t\r\n/") != std::string::npos) return bad("bad character");
  if (!port_text.empty()) {
    int port = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 ||
        port > 65535) {
      return bad("the port must be 1..65535");
    }
    endpoint.port = port;
  }
  return endpoint;
}

Result<std::string> AuthorizationFromCredentials(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || text.find('\n') != std::string_view::npos) {
    return MakeError(ErrorCode::kInvalidArgument, "credentials must be one line 'user:password'");
  }
  return "Basic " + EncodeBase64(text);
}

Result<nlohmann::json> CallAgent(const AgentEndpoint& endpoint, nlohmann::json request,
                                 const ClientSecurity& security, double timeout_seconds) {
  if (!security.authorization.empty()) request["authorization"] = security.authorization;
  XPUPERF_ASSIGN_OR_RETURN(int fd, Connect(endpoint, timeout_seconds));
  SSL* ssl = nullptr;
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> context(nullptr, SSL_CTX_free);
  if (security.tls) {
    context.reset(SSL_CTX_new(TLS_client_method()));
    SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
    SSL_CTX_set_verify(context.get(), SSL_VERIFY_PEER, nullptr);
    const bool loaded =
        security.ca_file.empty()
            ? SSL_CTX_set_default_verify_paths(context.get()) == 1
            : SSL_CTX_load_verify_locations(context.get(), security.ca_file.c_str(), nullptr) == 1;
    if (!loaded) {
      close(fd);
      return TlsError(endpoint, "CA file '" + security.ca_file + "'");
    }
    if (!security.cert_file.empty() &&
        (SSL_CTX_use_certificate_chain_file(context.get(), security.cert_file.c_str()) != 1 ||
         SSL_CTX_use_PrivateKey_file(context.get(), security.key_file.c_str(), SSL_FILETYPE_PEM) !=
             1)) {
      close(fd);
      return TlsError(endpoint, "client certificate");
    }
    ssl = SSL_new(context.get());
    SSL_set_fd(ssl, fd);
    in6_addr ip{};
    const bool is_ip = inet_pton(AF_INET, endpoint.host.c_str(), &ip) == 1 ||
                       inet_pton(AF_INET6, endpoint.host.c_str(), &ip) == 1;
    if (is_ip) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), endpoint.host.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl, endpoint.host.c_str());
      SSL_set1_host(ssl, endpoint.host.c_str());
    }
    if (SSL_connect(ssl) != 1) {
      Error error = TlsError(endpoint, "handshake");
      SSL_free(ssl);
      close(fd);
      return error;
    }
  }
  Stream stream(fd, ssl);
  // The whole exchange within the timeout, not only each read: a trickling agent cannot hold
  // capture (one byte every few seconds kept every read within its own timeout).
  stream.SetDeadline(timeout_seconds);
  if (Status sent = stream.WriteAll(FrameMessage(request.dump())); !sent.ok()) {
    return Unreachable(endpoint, sent.error().message);
  }
  auto reply = stream.ReadFrame(kMaxReplyBytes);
  if (!reply.ok()) {
    return MakeError(ErrorCode::kIo, "agent " + endpoint.ToString() + ": no reply (" +
                                         reply.error().message +
                                         "; an unknown or malformed request is closed unanswered)");
  }
  nlohmann::json parsed = nlohmann::json::parse(*reply, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return MakeError(ErrorCode::kParse,
                     "agent " + endpoint.ToString() + ": reply is not a JSON object");
  }
  return parsed;
}

}  // namespace xpuperf::agent
