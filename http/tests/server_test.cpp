// The server against raw-socket clients: keep-alive and pipelining, bounds, deadlines, caps,
// slow clients that must not hold a worker, TLS, and stops that never wait on a peer. Deadlines in
// these tests are generous waits for a condition, never a measure of speed.
#include "xpuperf/http/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace xpuperf::http {
namespace {

using namespace std::chrono_literals;

int Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Everything the server sends until it closes (or 60 s pass).
std::string ReadUntilClosed(int fd) {
  std::string out;
  const auto end = std::chrono::steady_clock::now() + 60s;
  char buffer[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

// Reads until `count` whole responses (head + Content-Length body) have arrived.
std::string ReadResponses(int fd, int count) {
  std::string out;
  const auto end = std::chrono::steady_clock::now() + 60s;
  char buffer[4096];
  auto complete = [&] {
    size_t at = 0;
    for (int i = 0; i < count; ++i) {
      const size_t head_end = out.find("\r\n\r\n", at);
      if (head_end == std::string::npos) return false;
      const size_t length_at = out.find("Content-Length: ", at);
      const size_t length = std::stoul(out.substr(length_at + 16));
      at = head_end + 4 + length;
      if (out.size() < at) return false;
    }
    return true;
  };
  while (!complete() && std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void Echo(const Request& request, Response& response) {
  response.SetBody(request.method + " " + request.path + " " + std::to_string(request.body.size()),
                   "text/plain");
}

std::unique_ptr<Server> StartServer(ServerOptions options, Handler handler = Echo) {
  auto server = Server::Start(std::move(options), std::move(handler));
  EXPECT_TRUE(server.ok()) << (server.ok() ? "" : server.error().message);
  return server.ok() ? std::move(server).value() : nullptr;
}

TEST(HttpServerTest, KeepAliveAndPipelinedRequestsAreAnsweredInOrder) {
  auto server = StartServer({});
  ASSERT_NE(server, nullptr);
  const int fd = Connect(server->port());
  ASSERT_TRUE(SendAll(fd, "GET /one HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::string first = ReadResponses(fd, 1);
  EXPECT_NE(first.find("GET /one 0"), std::string::npos) << first;
  // Three requests in one write.
  ASSERT_TRUE(SendAll(fd,
                      "GET /a HTTP/1.1\r\n\r\nHEAD /b HTTP/1.1\r\n\r\nGET /c HTTP/1.1\r\n"
                      "Connection: close\r\n\r\n"));
  const std::string rest = ReadUntilClosed(fd);
  ::close(fd);
  EXPECT_EQ(Count(rest, "HTTP/1.1 200 OK"), 3u) << rest;
  const size_t a = rest.find("GET /a 0");
  const size_t c = rest.find("GET /c 0");
  ASSERT_NE(a, std::string::npos) << rest;
  ASSERT_NE(c, std::string::npos) << rest;
  EXPECT_LT(a, c);
  EXPECT_EQ(rest.find("HEAD /b"), std::string::npos) << "a HEAD answer carries no body";
  EXPECT_NE(rest.find("Connection: close"), std::string::npos);
}

TEST(HttpServerTest, AGetWithABodyIs413AndItsBodyIsNeverASecondRequest) {
  auto server = StartServer({});
  ASSERT_NE(server, nullptr);
  const int fd = Connect(server->port());
  ASSERT_TRUE(SendAll(fd,
                      "GET /metrics HTTP/1.1\r\nContent-Length: 18\r\n\r\n"
                      "GET /x HTTP/1.1\r\n\r\n"));
  const std::string answer = ReadUntilClosed(fd);
  ::close(fd);
  EXPECT_EQ(answer.rfind("HTTP/1.1 413 ", 0), 0u) << answer;
  EXPECT_EQ(Count(answer, "HTTP/1.1 "), 1u) << answer;
}

// A client that sends its whole (too large) body before it reads still gets the 413: the server
// reads and drops what follows its answer for a bounded time instead of resetting the connection.
TEST(HttpServerTest, AClientStillSendingItsBodyReadsTheRefusal) {
  ServerOptions options;
  options.limits.max_body_bytes = 1024;
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  const int fd = Connect(server->port());
  ASSERT_TRUE(SendAll(fd, "POST /hook HTTP/1.1\r\nContent-Length: 2097152\r\n\r\n"));
  EXPECT_TRUE(SendAll(fd, std::string(2 << 20, 'x')));
  const std::string answer = ReadUntilClosed(fd);
  ::close(fd);
  EXPECT_EQ(answer.rfind("HTTP/1.1 413 ", 0), 0u) << answer;
}

TEST(HttpServerTest, AHugeHeaderIsRefusedWithoutReadingItAll) {
  auto server = StartServer({});
  ASSERT_NE(server, nullptr);
  const int fd = Connect(server->port());
  ASSERT_TRUE(SendAll(fd, "GET / HTTP/1.1\r\nX-Big: "));
  // Up to 64 MiB; the server answers and closes long before, so the sending stops with an error.
  const std::string piece(1 << 20, 'a');
  for (int i = 0; i < 64 && SendAll(fd, piece); ++i) {
  }
  const std::string answer = ReadUntilClosed(fd);
  ::close(fd);
  EXPECT_EQ(answer.rfind("HTTP/1.1 431 ", 0), 0u) << answer.substr(0, 200);
  EXPECT_EQ(server->stats().bad_requests, 1u);
}

TEST(HttpServerTest, TricklingClientsHoldNoWorkerAndMeetTheirDeadline) {
  ServerOptions options;
  options.workers = 1;
  options.request_timeout_seconds = 1;
  options.idle_timeout_seconds = 60;
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  // 70 connections that started a request and send nothing more.
  std::vector<int> slow;
  for (int i = 0; i < 70; ++i) {
    slow.push_back(Connect(server->port()));
    ASSERT_TRUE(SendAll(slow.back(), "GET / HTTP/1.1\r\nX-Slow: "));
  }
  // A real request is answered although the one worker and every slow client are busy.
  const int fd = Connect(server->port());
  ASSERT_TRUE(SendAll(fd, "GET /real HTTP/1.1\r\nConnection: close\r\n\r\n"));
  const std::string answer = ReadUntilClosed(fd);
  ::close(fd);
  EXPECT_NE(answer.find("GET /real 0"), std::string::npos) << answer;
  // Each slow one gets 408 at its deadline and is closed.
  for (int s : slow) {
    const std::string late = ReadUntilClosed(s);
    EXPECT_EQ(late.rfind("HTTP/1.1 408 ", 0), 0u) << late;
    ::close(s);
  }
  EXPECT_GE(server->stats().timed_out, 70u);
}

TEST(HttpServerTest, ConnectionsPerClientAreCapped) {
  ServerOptions options;
  options.max_connections_per_client = 2;
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  const int a = Connect(server->port());
  const int b = Connect(server->port());
  ASSERT_TRUE(SendAll(a, "GET /a HTTP/1.1\r\n\r\n"));
  EXPECT_NE(ReadResponses(a, 1).find("GET /a"), std::string::npos);  // both accepted by now
  ASSERT_TRUE(SendAll(b, "GET /b HTTP/1.1\r\n\r\n"));
  EXPECT_NE(ReadResponses(b, 1).find("GET /b"), std::string::npos);
  const int c = Connect(server->port());  // the kernel accepts; the server closes it
  SendAll(c, "GET /c HTTP/1.1\r\n\r\n");
  EXPECT_EQ(ReadUntilClosed(c), "");
  EXPECT_EQ(server->stats().refused_per_client, 1u);
  ::close(a);
  ::close(b);
  ::close(c);
}

TEST(HttpServerTest, AtTheOpenConnectionCapTheLongestWaitingIsClosed) {
  ServerOptions options;
  options.max_open_connections = 2;
  options.idle_timeout_seconds = 60;
  options.request_timeout_seconds = 60;
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  const int first = Connect(server->port());
  SendAll(first, "GET / HTTP/1.1\r\n");
  const int second = Connect(server->port());
  SendAll(second, "GET / HTTP/1.1\r\n");
  // Wait until both are held.
  for (int i = 0; i < 6000 && server->stats().accepted < 2; ++i) std::this_thread::sleep_for(10ms);
  const int third = Connect(server->port());
  ASSERT_TRUE(SendAll(third, "GET /third HTTP/1.1\r\nConnection: close\r\n\r\n"));
  EXPECT_NE(ReadUntilClosed(third).find("GET /third"), std::string::npos);
  EXPECT_EQ(ReadUntilClosed(first), "");  // evicted
  EXPECT_EQ(server->stats().evicted, 1u);
  ::close(first);
  ::close(second);
  ::close(third);
}

TEST(HttpServerTest, ChunkedAndContinuedBodiesWithinTheLimit) {
  ServerOptions options;
  options.limits.max_body_bytes = 1024;
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  const int fd = Connect(server->port());
  ASSERT_TRUE(
      SendAll(fd, "POST /hook HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"));
  char buffer[64];
  pollfd p{fd, POLLIN, 0};
  ASSERT_GT(::poll(&p, 1, 60000), 0);
  const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buffer, static_cast<size_t>(n)), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(SendAll(fd, "body"));
  EXPECT_NE(ReadResponses(fd, 1).find("POST /hook 4"), std::string::npos);
  ASSERT_TRUE(SendAll(fd,
                      "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                      "3\r\nabc\r\n0\r\n\r\n"));
  EXPECT_NE(ReadUntilClosed(fd).find("POST /c 3"), std::string::npos);
  ::close(fd);
  const int big = Connect(server->port());
  ASSERT_TRUE(SendAll(big, "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"));
  for (int i = 0; i < 200 && SendAll(big, "10\r\n0123456789abcdef\r\n"); ++i) {
  }
  EXPECT_EQ(ReadUntilClosed(big).rfind("HTTP/1.1 413 ", 0), 0u);
  ::close(big);
}

TEST(HttpServerTest, AStopNeverWaitsOnAPeer) {
  for (int i = 0; i < 100; ++i) {
    auto server = StartServer({});
    ASSERT_NE(server, nullptr);
    server->Stop();
  }
  // A client holding half a request, and one that never reads a large answer.
  auto big = std::make_shared<const std::string>(64 << 20, 'x');
  auto server = StartServer(
      {}, [big](const Request&, Response& response) { response.SetSharedBody(big, "text/plain"); });
  ASSERT_NE(server, nullptr);
  const int half = Connect(server->port());
  SendAll(half, "GET / HT");
  const int reader = Connect(server->port());
  SendAll(reader, "GET / HTTP/1.1\r\n\r\n");
  for (int i = 0; i < 6000 && server->stats().accepted < 2; ++i) std::this_thread::sleep_for(10ms);
  server->Stop();  // returns although neither peer does anything
  ::close(half);
  ::close(reader);
}

// ---- TLS ----

// A self-signed certificate for 127.0.0.1, made in memory.
struct TestCertificate {
  EVP_PKEY* key = nullptr;
  X509* certificate = nullptr;
  TestCertificate() {
    key = EVP_EC_gen("P-256");
    certificate = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(certificate), 1);
    X509_gmtime_adj(X509_getm_notBefore(certificate), 0);
    X509_gmtime_adj(X509_getm_notAfter(certificate), 3600);
    X509_set_pubkey(certificate, key);
    X509_NAME* name = X509_get_subject_name(certificate);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
    X509_set_issuer_name(certificate, name);
    X509_sign(certificate, key, EVP_sha256());
  }
  ~TestCertificate() {
    X509_free(certificate);
    EVP_PKEY_free(key);
  }
};

TEST(HttpServerTest, TlsRequestsAndATrickledHandshakeMeetsItsDeadline) {
  TestCertificate cert;
  ServerOptions options;
  options.workers = 1;
  options.request_timeout_seconds = 1;
  options.configure_tls = [&cert](SSL_CTX& ctx) -> Status {
    if (SSL_CTX_use_certificate(&ctx, cert.certificate) != 1 ||
        SSL_CTX_use_PrivateKey(&ctx, cert.key) != 1) {
      return MakeError(ErrorCode::kInvalidArgument, "test certificate refused");
    }
    return {};
  };
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  EXPECT_TRUE(server->tls());
  // Ten clients that send half a ClientHello and stop.
  std::vector<int> slow;
  for (int i = 0; i < 10; ++i) {
    slow.push_back(Connect(server->port()));
    SendAll(slow.back(), std::string("\x16\x03\x01\x02\x00\x01", 6));
  }
  // A real TLS client is answered meanwhile.
  SSL_CTX* client_ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(client_ctx);
  const int fd = Connect(server->port());
  SSL_set_fd(ssl, fd);
  ASSERT_EQ(SSL_connect(ssl), 1);
  const std::string request = "GET /secure HTTP/1.1\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(SSL_write(ssl, request.data(), static_cast<int>(request.size())),
            static_cast<int>(request.size()));
  std::string answer;
  char buffer[4096];
  for (int n; (n = SSL_read(ssl, buffer, sizeof(buffer))) > 0;) answer.append(buffer, n);
  EXPECT_NE(answer.find("GET /secure 0"), std::string::npos) << answer;
  SSL_free(ssl);
  SSL_CTX_free(client_ctx);
  ::close(fd);
  for (int s : slow) {
    EXPECT_EQ(ReadUntilClosed(s), "");  // closed at the handshake deadline
    ::close(s);
  }
  EXPECT_GE(server->stats().timed_out, 10u);
}

TEST(HttpServerTest, BadTlsSetupAndAddressesFailAtStart) {
  ServerOptions tls;
  tls.configure_tls = [](SSL_CTX&) -> Status {
    return MakeError(ErrorCode::kInvalidArgument, "key values mismatch");
  };
  auto refused = Server::Start(tls, Echo);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "key values mismatch");

  auto first = StartServer({});
  ASSERT_NE(first, nullptr);
  ServerOptions same;
  same.port = first->port();
  auto second = Server::Start(same, Echo);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("in use"), std::string::npos) << second.error().message;

  ServerOptions nowhere;
  nowhere.host = "192.0.2.1";  // TEST-NET-1: not an address of this host
  EXPECT_FALSE(Server::Start(nowhere, Echo).ok());
}

}  // namespace
}  // namespace xpuperf::http
