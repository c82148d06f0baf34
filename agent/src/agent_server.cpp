#include "xpuperf/agent/agent_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "stream.h"
#include "xpuperf/agent/ipc_protocol.h"
#include "xpuperf/agent/rpc_handler.h"
#include "xpuperf/core/host_name.h"
#include "xpuperf/exporter/basic_auth.h"
#include "xpuperf/exporter/tls_context.h"
#include "xpuperf/exporter/web_config.h"

namespace xpuperf::agent {

namespace {

Result<int> BindListener(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot resolve listen host '" + host + "': " + gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(found, freeaddrinfo);
  // Non-blocking: every worker polls the one listening socket, and those that lose the race for a
  // connection must get EAGAIN from accept, not block there (and miss the stop flag) forever.
  const int fd = socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return MakeError(ErrorCode::kIo, std::string("socket: ") + std::strerror(errno));
  const int one = 1, zero = 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (found->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
  if (bind(fd, found->ai_addr, found->ai_addrlen) != 0 || listen(fd, 50) != 0) {
    const int error = errno;
    close(fd);
    return MakeError(error == EADDRINUSE ? ErrorCode::kUnavailable : ErrorCode::kIo,
                     "cannot listen on " + host + ":" + service + ": " + std::strerror(error));
  }
  return fd;
}

int BoundPort(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  if (address.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
}

}  // namespace

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr v4{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

class AgentServer::Impl {
 public:
  AgentOptions options;
  int listen_fd = -1;
  int port = 0;
  SSL_CTX* tls = nullptr;
  std::unique_ptr<exporter::BasicAuth> auth;
  ProcessRegistry registry;
  CaptureStore store;
  std::optional<IpcEndpoint> ipc;
  HandlerContext context;
  std::atomic<bool> stopping{false};
  std::vector<std::thread> threads;

  explicit Impl(const AgentOptions& o)
      : options(o), registry(o.silence_limit), store(o.capture_dir, o.max_file_bytes) {}

  ~Impl() {
    StopThreads();
    if (listen_fd >= 0) close(listen_fd);
    if (tls != nullptr) SSL_CTX_free(tls);
  }

  void StopThreads() {
    stopping = true;
    for (auto& thread : threads) {
      if (thread.joinable()) thread.join();
    }
    threads.clear();
  }

  void Serve(int fd) {
    SetSocketTimeouts(fd, options.io_timeout_seconds);
    SSL* ssl = nullptr;
    if (tls != nullptr) {
      ssl = SSL_new(tls);
      SSL_set_fd(ssl, fd);
      if (SSL_accept(ssl) != 1) {
        ERR_clear_error();
        SSL_free(ssl);
        close(fd);
        return;
      }
    }
    Stream stream(fd, ssl);
    // The whole request and reply within the I/O timeout: a client sending a byte every few
    // seconds held a worker for as long as it liked. A stop signal ends the wait too.
    stream.SetDeadline(options.io_timeout_seconds);
    auto request = stream.ReadFrame(kMaxRequestBytes);
    if (!request.ok()) return;  // bad length or a dropped connection: close, as dynolog does
    std::optional<std::string> reply = HandleRpcRequest(context, *request);
    if (reply) (void)stream.WriteAll(FrameMessage(*reply));
  }

  void AcceptLoop() {
    while (!stopping) {
      pollfd waiter{listen_fd, POLLIN, 0};
      if (poll(&waiter, 1, 200) <= 0) continue;
      const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) continue;  // another worker took it
      // Back to blocking: the socket timeouts bound each read and write.
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      Serve(fd);
    }
  }

  void IpcLoop() {
    auto last_gc = AgentClock::now();
    while (!stopping) {
      auto received = ipc->Receive(100);
      const auto now = AgentClock::now();
      if (now - last_gc > std::chrono::seconds(1)) {
        registry.DropSilent(now);
        last_gc = now;
      }
      if (!received.ok() || received->timed_out || received->bytes.empty()) continue;
      auto message = ParseIpcDatagram(received->bytes);
      if (!message.ok() || received->from.empty()) continue;  // malformed or unanswerable
      if (message->type.starts_with("req")) {
        auto request = ParseKinetoRequest(message->payload);
        if (!request.ok()) continue;
        const bool busy = (request->type & kActivityProfilerBit) == 0;
        const std::string config =
            registry.Poll(request->job_id, request->pids, received->from, busy, now);
        (void)ipc->SendTo(received->from, EncodeIpcDatagram("req", config));
      } else if (message->type.starts_with("ctxt")) {
        auto context_message = ParseKinetoContext(message->payload);
        if (!context_message.ok()) continue;
        registry.Poll(context_message->job_id, {context_message->pid}, received->from, false, now);
        const int32_t count = registry.CountForJob(context_message->job_id);
        std::string payload(sizeof(count), '\0');
        std::memcpy(payload.data(), &count, sizeof(count));
        (void)ipc->SendTo(received->from, EncodeIpcDatagram("ctxt", payload));
      }
    }
  }
};

AgentServer::AgentServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AgentServer::~AgentServer() { Stop(); }

Result<std::unique_ptr<AgentServer>> AgentServer::Start(const AgentOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  exporter::WebConfig web;
  if (!options.web_config_path.empty()) {
    XPUPERF_ASSIGN_OR_RETURN(web, exporter::LoadWebConfig(options.web_config_path));
  }
  if (!IsLoopbackHost(options.listen_host) && !web.tls && web.basic_auth_users.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "listening on '" + options.listen_host +
                         "' (not loopback) needs --web-config with tls_server_config or "
                         "basic_auth_users");
  }
  if (options.workers < 1 || options.workers > 256) {
    return MakeError(ErrorCode::kInvalidArgument, "workers must be 1..256");
  }
  XPUPERF_RETURN_IF_ERROR(impl->store.Init());
  if (web.tls) {
    impl->tls = SSL_CTX_new(TLS_server_method());
    if (impl->tls == nullptr) return MakeError(ErrorCode::kInternal, "SSL_CTX_new failed");
    XPUPERF_RETURN_IF_ERROR(exporter::ConfigureTls(*impl->tls, *web.tls));
  }
  if (!web.basic_auth_users.empty()) {
    impl->auth = std::make_unique<exporter::BasicAuth>(web.basic_auth_users);
  }
  if (options.enable_ipc) {
    XPUPERF_ASSIGN_OR_RETURN(IpcEndpoint endpoint,
                             IpcEndpoint::Bind(options.ipc_name, options.ipc_socket_dir,
                                               kineto::IpcSocketAccess::kAnyUser));
    impl->ipc.emplace(std::move(endpoint));
  }
  XPUPERF_ASSIGN_OR_RETURN(impl->listen_fd, BindListener(options.listen_host, options.port));
  impl->port = BoundPort(impl->listen_fd);
  impl->context.registry = &impl->registry;
  impl->context.store = &impl->store;
  impl->context.hostname = options.hostname.empty() ? HostName() : options.hostname;
  if (impl->auth) {
    exporter::BasicAuth* auth = impl->auth.get();
    impl->context.authorize = [auth](std::string_view value) { return auth->Check(value); };
  }
  Impl* raw = impl.get();
  for (int i = 0; i < options.workers; ++i) raw->threads.emplace_back([raw] { raw->AcceptLoop(); });
  if (raw->ipc) raw->threads.emplace_back([raw] { raw->IpcLoop(); });
  return std::unique_ptr<AgentServer>(new AgentServer(std::move(impl)));
}

int AgentServer::port() const { return impl_->port; }
bool AgentServer::tls() const { return impl_->tls != nullptr; }
ProcessRegistry& AgentServer::registry() { return impl_->registry; }
void AgentServer::Stop() {
  if (impl_) impl_->StopThreads();
}

}  // namespace xpuperf::agent
