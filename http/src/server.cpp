#include "xpuperf/http/server.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <thread>

#include "listener.h"
#include "response.h"
#include "transport.h"

namespace xpuperf::http {

namespace {

using Clock = std::chrono::steady_clock;

Clock::duration Seconds(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

struct Connection {
  std::unique_ptr<Transport> transport;
  std::string remote_ip;
  RequestParser parser;
  std::string pending;  // bytes after a complete request: the next pipelined request's
  bool handshaking = false;
  bool sent_continue = false;
  // After an error answer: the rest of what the client sends is read and dropped (at most
  // kDrainBytes, until the deadline) before the close, so that a client still sending its body
  // reads the answer instead of a connection reset ("lingering close").
  bool draining = false;
  size_t drain_left = 0;
  Clock::time_point deadline;  // of the current phase
  Clock::time_point since;     // when it began waiting (who is evicted first)
  int requests = 0;
};

using ConnectionPtr = std::unique_ptr<Connection>;

constexpr size_t kDrainBytes = size_t{4} << 20;
constexpr double kDrainSeconds = 2;

struct Worker {
  std::thread thread;
  std::condition_variable wake;
  ConnectionPtr job;  // handed over by Dispatch
};

}  // namespace

class Server::Impl {
 public:
  Impl(ServerOptions options, Handler handler)
      : options_(std::move(options)), handler_(std::move(handler)) {}

  ~Impl() { Stop(); }

  Status Start() {
    if (options_.configure_tls) {
      SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
      if (ctx == nullptr) return MakeError(ErrorCode::kInternal, "TLS: cannot create a context");
      tls_.reset(ctx, SSL_CTX_free);
      SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
      XPUPERF_RETURN_IF_ERROR(options_.configure_tls(*ctx));
    }
    // A peer that closes while an answer is written must not kill the process (TLS writes go
    // through write(2), which raises SIGPIPE).
    struct sigaction current {};
    if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
      std::signal(SIGPIPE, SIG_IGN);
    }
    int wake[2];
    if (::pipe2(wake, O_NONBLOCK | O_CLOEXEC) != 0) {
      return MakeError(ErrorCode::kInternal, "cannot create the server's wake-up pipe");
    }
    wake_read_ = wake[0];
    wake_write_ = wake[1];
    XPUPERF_ASSIGN_OR_RETURN(ListeningSocket listening, Listen(options_.host, options_.port));
    listen_fd_ = listening.fd;
    port_ = listening.port;
    loop_ = std::thread([this] { Loop(); });
    return {};
  }

  void Stop() {
    stop_.store(true);
    Wake();
    if (loop_.joinable()) loop_.join();
    {
      std::lock_guard<std::mutex> lock(work_mutex_);
      for (const auto& worker : workers_) worker->wake.notify_one();
    }
    for (const auto& worker : workers_) {
      if (worker->thread.joinable()) worker->thread.join();
    }
    std::lock_guard<std::mutex> lock(work_mutex_);
    for (const auto& worker : workers_) Close(std::move(worker->job));
    workers_.clear();
    idle_.clear();
    while (!work_.empty()) Close(PopFront(work_));
    std::lock_guard<std::mutex> returned(returned_mutex_);
    while (!returned_.empty()) Close(PopFront(returned_));
    CloseFd(listen_fd_);
    CloseFd(wake_read_);
    CloseFd(wake_write_);
  }

  ServerStats stats() const {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    return stats_;
  }

  int port_ = 0;
  bool tls() const { return tls_ != nullptr; }

 private:
  static ConnectionPtr PopFront(std::deque<ConnectionPtr>& queue) {
    ConnectionPtr front = std::move(queue.front());
    queue.pop_front();
    return front;
  }

  static void CloseFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }

  template <typename F>
  void Count(F change) {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    change(stats_);
  }

  void Wake() {
    if (wake_write_ >= 0) {
      const char byte = 1;
      (void)::write(wake_write_, &byte, 1);
    }
  }

  void Close(ConnectionPtr connection) {
    if (connection != nullptr) Release(connection->remote_ip);
  }

  // A connection counted by Admit is gone.
  void Release(const std::string& remote_ip) {
    std::lock_guard<std::mutex> lock(clients_mutex_);
    auto it = per_client_.find(remote_ip);
    if (it != per_client_.end() && --it->second <= 0) per_client_.erase(it);
    --open_;
  }

  // ---- the event loop: accepts, handshakes and reads; never blocks on a peer ----

  void Loop() {
    std::vector<pollfd> fds;
    // Slots of connections_ (a list: their addresses stay valid while others are added, and
    // closed ones stay as null slots until Compact()).
    std::vector<ConnectionPtr*> polled;
    while (!stop_.load()) {
      TakeReturned();
      fds.clear();
      polled.clear();
      fds.push_back({wake_read_, POLLIN, 0});
      const auto now = Clock::now();
      const bool accepting = now >= accept_paused_until_;
      fds.push_back({accepting ? listen_fd_ : -1, POLLIN, 0});
      Clock::time_point next = accepting ? now + std::chrono::seconds(1) : accept_paused_until_;
      for (ConnectionPtr& c : connections_) {
        const short events = c->transport->wants_write() ? POLLOUT : POLLIN;
        fds.push_back({c->transport->fd(), events, 0});
        polled.push_back(&c);
        next = std::min(next, c->deadline);
      }
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now);
      const int timeout = static_cast<int>(std::clamp<int64_t>(wait.count() + 1, 0, 1000));
      if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) break;
      if (stop_.load()) break;
      if (fds[0].revents != 0) {
        char drain[256];
        while (::read(wake_read_, drain, sizeof(drain)) > 0) {
        }
      }
      for (size_t i = 0; i < polled.size(); ++i) {
        if (fds[i + 2].revents != 0) Advance(*polled[i]);
      }
      if (accepting && fds[1].revents != 0) Accept();
      ExpireDeadlines();
      Compact();
    }
    for (ConnectionPtr& c : connections_) Close(std::move(c));
    connections_.clear();
  }

  // Connections a worker answered and handed back for their next request.
  void TakeReturned() {
    std::deque<ConnectionPtr> returned;
    {
      std::lock_guard<std::mutex> lock(returned_mutex_);
      returned.swap(returned_);
    }
    const auto now = Clock::now();
    for (ConnectionPtr& c : returned) {
      c->parser.Reset();
      c->sent_continue = false;
      c->deadline = now + Seconds(options_.idle_timeout_seconds);
      c->since = now;
      connections_.push_back(std::move(c));
      ConnectionPtr& slot = connections_.back();
      // A pipelined request may be waiting in `pending` or in TLS's buffer: no poll reports it.
      if (!slot->pending.empty() || slot->transport->has_buffered()) Advance(slot);
    }
    Compact();
  }

  void Accept() {
    for (int accepted = 0; accepted < 64; ++accepted) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          // Out of descriptors: pause accepting rather than spin on a queue we cannot drain.
          accept_paused_until_ = Clock::now() + std::chrono::milliseconds(100);
        }
        return;
      }
      const int yes = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
      auto c = std::make_unique<Connection>();
      c->remote_ip = PeerAddress(fd);
      c->parser = RequestParser(options_.limits);
      SSL* ssl = nullptr;
      if (tls_ != nullptr) {
        ssl = SSL_new(tls_.get());
        if (ssl == nullptr || SSL_set_fd(ssl, fd) != 1) {
          SSL_free(ssl);
          ::close(fd);
          continue;
        }
        SSL_set_accept_state(ssl);
      }
      c->transport = std::make_unique<Transport>(fd, ssl);
      c->handshaking = ssl != nullptr;
      const auto now = Clock::now();
      c->since = now;
      c->deadline = now + Seconds(c->handshaking ? options_.request_timeout_seconds
                                                 : options_.idle_timeout_seconds);
      if (!Admit(*c)) continue;  // closed by the destructor of `c`
      Count([](ServerStats& s) { ++s.accepted; });
      connections_.push_back(std::move(c));
    }
  }

  // Counts the connection against the caps; false when it must be closed at once.
  bool Admit(const Connection& c) {
    {
      std::lock_guard<std::mutex> lock(clients_mutex_);
      int& count = per_client_[c.remote_ip];
      if (count >= options_.max_connections_per_client) {
        Count([](ServerStats& s) { ++s.refused_per_client; });
        return false;
      }
      ++count;
      ++open_;
      if (open_ <= options_.max_open_connections) return true;
    }
    // At the cap: close the longest-waiting connection the loop holds (a client trickling its
    // head waits longest); the new one when every other is being answered.
    Count([](ServerStats& s) { ++s.evicted; });
    ConnectionPtr* oldest = nullptr;
    for (ConnectionPtr& slot : connections_) {
      if (slot != nullptr && (oldest == nullptr || slot->since < (*oldest)->since)) oldest = &slot;
    }
    if (oldest == nullptr) {
      Release(c.remote_ip);
      return false;
    }
    Close(std::move(*oldest));
    return true;
  }

  // Handshake and read as far as the peer's bytes allow.
  void Advance(ConnectionPtr& owner) {
    if (owner == nullptr) return;
    ConnectionPtr* slot = &owner;
    Connection& c = *owner;
    if (c.handshaking) {
      const Transport::Io step = c.transport->Handshake();
      if (step == Transport::Io::kWouldBlock) return;
      if (step != Transport::Io::kOk) {
        Count([](ServerStats& s) { ++s.handshake_failures; });
        Close(std::move(*slot));
        return;
      }
      c.handshaking = false;
      c.since = Clock::now();
      c.deadline = c.since + Seconds(options_.idle_timeout_seconds);
    }
    if (!c.pending.empty()) {
      const std::string pending = std::move(c.pending);
      c.pending.clear();
      if (Consume(*slot, pending)) return;
    }
    char buffer[16 * 1024];
    for (;;) {
      size_t n = 0;
      const Transport::Io io = c.transport->Read(buffer, sizeof(buffer), n);
      if (io == Transport::Io::kWouldBlock) return;
      if (io != Transport::Io::kOk) {
        Close(std::move(*slot));
        return;
      }
      if (c.draining) {
        c.drain_left -= std::min(c.drain_left, n);
        if (c.drain_left == 0) {
          Close(std::move(*slot));
          return;
        }
        continue;
      }
      if (Consume(*slot, std::string_view(buffer, n))) return;
    }
  }

  // Feeds bytes to the parser; true when the connection left the loop (dispatched or closed).
  bool Consume(ConnectionPtr& slot, std::string_view data) {
    Connection& c = *slot;
    const bool was_started = c.parser.started();
    const size_t used = c.parser.Feed(data);
    if (!was_started && c.parser.started()) {
      c.deadline = Clock::now() + Seconds(options_.request_timeout_seconds);
    }
    if (c.parser.failed()) {
      Count([](ServerStats& s) { ++s.bad_requests; });
      c.transport->TryWrite(ErrorAnswer(c.parser.error_status(), c.parser.error_reason(),
                                        AllowedMethods(options_.limits)));
      c.transport->ShutdownWrite();
      c.draining = true;
      c.drain_left = kDrainBytes + options_.limits.max_body_bytes;
      c.deadline =
          Clock::now() + Seconds(std::min(kDrainSeconds, options_.request_timeout_seconds));
      return false;
    }
    if (c.parser.complete()) {
      c.pending.assign(data.substr(used));
      Dispatch(std::move(slot));
      return true;
    }
    if (c.parser.expects_continue() && !c.sent_continue) {
      c.transport->TryWrite("HTTP/1.1 100 Continue\r\n\r\n");
      c.sent_continue = true;
    }
    return false;
  }

  void ExpireDeadlines() {
    const auto now = Clock::now();
    for (ConnectionPtr& c : connections_) {
      if (c == nullptr || now < c->deadline) continue;
      if (c->draining) {
        Close(std::move(c));
        continue;
      }
      Count([](ServerStats& s) { ++s.timed_out; });
      if (c->parser.started() && !c->handshaking) {
        c->transport->TryWrite(ErrorAnswer(408, "the request did not arrive in time"));
      }
      Close(std::move(c));
    }
  }

  void Compact() {
    connections_.remove_if([](const ConnectionPtr& c) { return c == nullptr; });
  }

  // The most recently idle worker takes the next request, and a new worker starts only when none
  // is idle: under a light load the same one or two threads (and their stacks and malloc arenas)
  // serve everything, so memory does not spread over `workers` threads.
  void Dispatch(ConnectionPtr c) {
    std::lock_guard<std::mutex> lock(work_mutex_);
    if (!idle_.empty()) {
      Worker* worker = idle_.back();
      idle_.pop_back();
      worker->job = std::move(c);
      worker->wake.notify_one();
      return;
    }
    if (workers_.size() < static_cast<size_t>(options_.workers)) {
      auto worker = std::make_unique<Worker>();
      worker->job = std::move(c);
      Worker* raw = worker.get();
      worker->thread = std::thread([this, raw] { Work(*raw); });
      workers_.push_back(std::move(worker));
      return;
    }
    work_.push_back(std::move(c));
  }

  // ---- workers: one complete request each, answered under the write deadline ----

  void Work(Worker& self) {
    for (;;) {
      ConnectionPtr c;
      {
        std::unique_lock<std::mutex> lock(work_mutex_);
        if (self.job == nullptr && !work_.empty()) self.job = PopFront(work_);
        if (self.job == nullptr) {
          idle_.push_back(&self);
          self.wake.wait(lock, [&] { return stop_.load() || self.job != nullptr; });
        }
        if (stop_.load()) return;
        c = std::move(self.job);
      }
      Answer(std::move(c));
    }
  }

  void Answer(ConnectionPtr c) {
    Request& request = c->parser.request();
    request.remote_ip = c->remote_ip;
    Response response;
    try {
      handler_(request, response);
    } catch (const std::exception& e) {
      response = Response();
      response.status = 500;
      response.SetBody(std::string("internal error: ") + e.what() + "\n",
                       "text/plain; charset=utf-8");
    }
    ++c->requests;
    const bool keep_alive =
        request.keep_alive && c->requests < options_.max_requests_per_connection && !stop_.load();
    const std::string head = ResponseHead(response, keep_alive);
    const bool with_body = request.method != "HEAD" && response.body != nullptr;
    const auto deadline = Clock::now() + Seconds(options_.write_timeout_seconds);
    bool written = false;
    if (with_body && response.body->size() <= size_t{16} * 1024) {
      written = c->transport->WriteAll(head + *response.body, deadline, stop_);  // one segment
    } else {
      written = c->transport->WriteAll(head, deadline, stop_) &&
                (!with_body || c->transport->WriteAll(*response.body, deadline, stop_));
    }
    if (written) Count([](ServerStats& s) { ++s.answered; });
    if (!written || !keep_alive) {
      Close(std::move(c));
      return;
    }
    {
      std::lock_guard<std::mutex> lock(returned_mutex_);
      returned_.push_back(std::move(c));
    }
    Wake();
  }

  ServerOptions options_;
  Handler handler_;
  std::shared_ptr<SSL_CTX> tls_;
  int listen_fd_ = -1;
  int wake_read_ = -1;
  int wake_write_ = -1;
  std::atomic<bool> stop_{false};
  std::thread loop_;
  Clock::time_point accept_paused_until_{};

  std::list<ConnectionPtr> connections_;  // the loop's (handshaking, reading, idle)

  std::mutex work_mutex_;
  std::vector<std::unique_ptr<Worker>> workers_;  // started on demand, up to options_.workers
  std::vector<Worker*> idle_;                     // a stack: the last one idle is used first
  std::deque<ConnectionPtr> work_;                // complete requests waiting for a worker

  std::mutex returned_mutex_;
  std::deque<ConnectionPtr> returned_;  // answered, back for the next request

  std::mutex clients_mutex_;
  std::map<std::string, int> per_client_;
  int open_ = 0;

  mutable std::mutex stats_mutex_;
  ServerStats stats_;
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() { Stop(); }

Result<std::unique_ptr<Server>> Server::Start(ServerOptions options, Handler handler) {
  if (options.workers < 1 || options.max_open_connections < 1 ||
      options.max_connections_per_client < 1 || options.max_requests_per_connection < 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "HTTP server: workers and connection caps must be at least 1");
  }
  auto impl = std::make_unique<Impl>(std::move(options), std::move(handler));
  XPUPERF_RETURN_IF_ERROR(impl->Start());
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->port_; }
bool Server::tls() const { return impl_->tls(); }
ServerStats Server::stats() const { return impl_->stats(); }
void Server::Stop() {
  if (impl_) impl_->Stop();
}

}  // namespace xpuperf::http
