// Deliveries off the evaluating thread: a receiver that never answers delays neither Update nor
// Stop, and the HTTP poster's deadline covers the whole answer (a trickling receiver) and its
// cancellation ends a post at once. Waits are generous deadlines for conditions, not speeds.
#include "xpuperf/alerts/notifier_thread.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace xpuperf::alerts {
namespace {

using namespace std::chrono_literals;

Alert Firing() {
  Alert a;
  a.rule = "Hot";
  a.labels = Labels({{"alertname", "Hot"}, {"device", "gpu0"}});
  a.state = AlertState::kFiring;
  a.fired_at_ms = 1000;
  return a;
}

bool WaitFor(const std::function<bool()>& condition) {
  for (int i = 0; i < 6000; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST(NotifierThread, ASilentReceiverHoldsNeitherUpdatesNorTheStop) {
  std::atomic<int> posts{0};
  std::atomic<bool> cancelled_seen{false};
  // A post that only ends when cancelled (an Alertmanager that accepted and never answers).
  HttpPoster hang = [&](const HttpPost& post) -> Result<int> {
    ++posts;
    while (post.cancel == nullptr || !post.cancel->load()) std::this_thread::sleep_for(1ms);
    cancelled_seen = true;
    return MakeError(ErrorCode::kUnavailable, "cancelled");
  };
  std::atomic<int64_t> now{100000};
  Notifier notifier({{"am", ReceiverKind::kAlertmanager, "http://127.0.0.1:1", "", "", "", ""}},
                    NotifierOptions{}, hang);
  NotifierThread thread(std::move(notifier), [&] { return now.load(); });
  const Alert alert = Firing();
  thread.Update({&alert}, now);
  ASSERT_TRUE(WaitFor([&] { return posts.load() == 1; }));
  // The post hangs; the evaluating side goes on.
  for (int i = 0; i < 100; ++i) thread.Update({&alert}, now += 1000);
  thread.Stop();
  EXPECT_TRUE(cancelled_seen.load());
  const std::vector<ReceiverState> receivers = thread.receivers();
  ASSERT_EQ(receivers.size(), 1u);
  EXPECT_EQ(receivers[0].stats.sent, 0u);
  EXPECT_FALSE(receivers[0].queue.empty()) << "what was not delivered stays queued";
}

TEST(NotifierThread, DeliversAndRetriesOnItsOwn) {
  std::atomic<int> posts{0};
  HttpPoster flaky = [&](const HttpPost&) -> Result<int> { return ++posts == 1 ? 503 : 200; };
  std::atomic<int64_t> now{100000};
  NotifierOptions options;
  options.initial_backoff_ms = 10;
  Notifier notifier({{"am", ReceiverKind::kAlertmanager, "http://127.0.0.1:1", "", "", "", ""}},
                    options, flaky);
  NotifierThread thread(std::move(notifier), [&] { return now.load(); });
  const Alert alert = Firing();
  thread.Update({&alert}, now);
  ASSERT_TRUE(WaitFor([&] { return posts.load() == 1; }));
  now += 20;  // the retry is due; the thread wakes for it without another Update
  ASSERT_TRUE(WaitFor([&] { return thread.receivers()[0].stats.sent == 1; }));
  EXPECT_EQ(thread.receivers()[0].stats.retried, 1u);
}

// A loopback server that accepts and then `behaviour` does what it does with the socket.
class RawServer {
 public:
  explicit RawServer(std::function<void(int)> behaviour) : behaviour_(std::move(behaviour)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    ::listen(fd_, 4);
    socklen_t length = sizeof(address);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] {
      pollfd p{fd_, POLLIN, 0};
      while (!stop_ && ::poll(&p, 1, 50) == 0) {
      }
      if (stop_) return;
      const int client = ::accept(fd_, nullptr, nullptr);
      behaviour_(client);
      ::close(client);
    });
  }
  ~RawServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  std::atomic<bool> stop_{false};

 private:
  std::function<void(int)> behaviour_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

TEST(HttpPosterDeadline, ATricklingReceiverEndsAtTheTotalDeadline) {
  std::atomic<bool>* stop = nullptr;
  RawServer server([&](int client) {
    char buffer[4096];
    (void)::recv(client, buffer, sizeof(buffer), 0);
    (void)::send(client, "HTTP/1.1 200 OK\r\n", 17, MSG_NOSIGNAL);
    // One header byte every 200 ms: each read is within any per-read timeout.
    while (!stop->load() && ::send(client, "X", 1, MSG_NOSIGNAL) == 1) {
      std::this_thread::sleep_for(200ms);
    }
  });
  stop = &server.stop_;
  HttpPoster poster = DefaultHttpPoster(1);
  const Result<int> result =
      poster({"http://127.0.0.1:" + std::to_string(server.port()) + "/api/v2/alerts", "[]"});
  ASSERT_FALSE(result.ok());
  if (result.error().code == ErrorCode::kUnsupported) GTEST_SKIP() << result.error().message;
  EXPECT_NE(result.error().message.find("no complete answer within 1 s"), std::string::npos)
      << result.error().message;
}

TEST(HttpPosterDeadline, ACancelEndsAPostToASilentReceiver) {
  std::atomic<bool>* stop = nullptr;
  RawServer server([&](int) {
    while (!stop->load()) std::this_thread::sleep_for(10ms);
  });
  stop = &server.stop_;
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(100ms);
    cancel = true;
  });
  HttpPoster poster = DefaultHttpPoster(3600);  // only the cancel can end it
  HttpPost post{"http://127.0.0.1:" + std::to_string(server.port()) + "/", "[]"};
  post.cancel = &cancel;
  const Result<int> result = poster(post);
  canceller.join();
  ASSERT_FALSE(result.ok());
  if (result.error().code == ErrorCode::kUnsupported) GTEST_SKIP() << result.error().message;
  EXPECT_NE(result.error().message.find("cancelled"), std::string::npos) << result.error().message;
}

}  // namespace
}  // namespace xpuperf::alerts
