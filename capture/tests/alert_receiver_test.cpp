#include "alert_receiver.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "xpuperf/agent/agent_server.h"
#include "xpuperf/tracer/on_demand.h"
#include "xpuperf/tracer/tracer.h"

namespace xpuperf::capture {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string Webhook(const std::string& status, const json& labels) {
  return json{{"version", "4"},
              {"status", status},
              {"receiver", "xpuperf"},
              {"groupKey", "{}"},
              {"alerts", json::array({{{"status", status},
                                       {"labels", labels},
                                       {"annotations", {{"summary", "idle GPU"}}},
                                       {"startsAt", "2026-12-01T10:00:00Z"},
                                       {"endsAt", "0001-01-01T00:00:00Z"}}})}}
      .dump();
}

class AlertReceiverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("alert-receiver-test-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  AlertReceiverOptions Options(int agent_port) {
    AlertReceiverOptions options;
    options.port = 0;
    options.out_root = (root_ / "captures").string();
    options.policy.agent_port = agent_port;
    options.policy.default_duration_ms = 200;
    options.capture.start_in_seconds = 0.3;
    options.capture.wait_seconds = 10;
    options.alertmanagers = {
        {"am", alerts::ReceiverKind::kAlertmanager, "http://am.test", "", "", "", ""}};
    options.poster = [this](const alerts::HttpPost& post) -> Result<int> {
      std::lock_guard lock(mutex_);
      posts_.push_back(post.url + " " + post.body);
      return 200;
    };
    options.analyse = [](const std::string& dir) -> Result<std::string> {
      return std::string("analysed ") + (fs::exists(fs::path(dir) / "manifest.json") ? "ok" : "?");
    };
    options.log = &log_;
    return options;
  }

  std::vector<std::string> Posts() {
    std::lock_guard lock(mutex_);
    return posts_;
  }

  fs::path root_;
  std::mutex mutex_;
  std::vector<std::string> posts_;
  std::ostringstream log_;
};

TEST_F(AlertReceiverTest, CapturesTheAlertsNodeAndPostsAFindingsAlert) {
  agent::AgentOptions agent_options;
  agent_options.port = 0;
  agent_options.capture_dir = (root_ / "agent").string();
  agent_options.ipc_name = "xpuperf-alert-receiver-test-" + std::to_string(getpid());
  auto agent = agent::AgentServer::Start(agent_options);
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  tracer::OnDemandOptions on_demand;
  on_demand.agent_endpoint = agent_options.ipc_name;
  on_demand.poll_interval_ms = 50;
  ASSERT_TRUE(tracer::StartOnDemand(on_demand).ok());
  for (int i = 0; i < 100 && (*agent)->registry().Live().empty(); ++i) usleep(20000);
  std::atomic<bool> working{true};
  std::thread worker([&] {
    while (working) {
      XPUPERF_SCOPE("alert_receiver_step");
      usleep(500);
    }
  });

  auto receiver = AlertReceiver::Start(Options((*agent)->port()));
  ASSERT_TRUE(receiver.ok()) << receiver.error().message;
  const json labels = {{"alertname", "XpuperfAcceleratorIdle"},
                       {"hostname", "127.0.0.1"},
                       {"xpuperf_capture", "true"}};
  EXPECT_EQ((*receiver)->HandleWebhook(Webhook("firing", labels)), 200);
  // Alertmanager's repeat of the same group: the cooldown holds.
  EXPECT_EQ((*receiver)->HandleWebhook(Webhook("firing", labels)), 200);
  for (int i = 0; i < 300 && Posts().empty(); ++i) usleep(20000);
  working = false;
  worker.join();
  tracer::StopOnDemand();
  auto posts = Posts();
  ASSERT_EQ(posts.size(), 1u) << log_.str();
  EXPECT_TRUE(posts[0].starts_with("http://am.test/api/v2/alerts ")) << posts[0];
  const json body = json::parse(posts[0].substr(posts[0].find(' ') + 1));
  ASSERT_EQ(body.size(), 1u);
  EXPECT_EQ(body[0]["labels"]["xpuperf_capture"], "findings");
  EXPECT_EQ(body[0]["labels"]["alertname"], "XpuperfAcceleratorIdle");
  EXPECT_EQ(body[0]["annotations"]["summary"], "idle GPU");
  EXPECT_EQ(body[0]["annotations"]["xpuperf_findings"], "analysed ok");
  EXPECT_EQ(body[0]["annotations"]["xpuperf_capture_status"], "ok");
  const std::string dir = body[0]["annotations"]["xpuperf_capture_dir"];
  EXPECT_TRUE(fs::exists(fs::path(dir) / "manifest.json"));
  const json decisions = json::parse((*receiver)->DecisionsJson())["decisions"];
  ASSERT_GE(decisions.size(), 3u);
  EXPECT_EQ(decisions[0]["action"], "capture");
  EXPECT_EQ(decisions[1]["action"], "skip");
  EXPECT_NE(decisions[1]["reason"].get<std::string>().find("cooldown"), std::string::npos);

  // Resolution: the findings alert is resolved too (endsAt no later than now).
  EXPECT_EQ((*receiver)->HandleWebhook(Webhook("resolved", labels)), 200);
  posts = Posts();
  ASSERT_EQ(posts.size(), 2u);
  const json resolved = json::parse(posts[1].substr(posts[1].find(' ') + 1));
  EXPECT_EQ(resolved[0]["labels"], body[0]["labels"]);
  EXPECT_LE(resolved[0]["endsAt"].get<std::string>(),
            alerts::Rfc3339(std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count()));
  (*receiver)->Stop();
}

TEST_F(AlertReceiverTest, AFailedCaptureIsReportedOnTheAlertToo) {
  auto options = Options(1);  // nothing listens on port 1
  options.capture.rpc_timeout_seconds = 2;
  auto receiver = AlertReceiver::Start(std::move(options));
  ASSERT_TRUE(receiver.ok()) << receiver.error().message;
  EXPECT_EQ(
      (*receiver)->HandleWebhook(Webhook(
          "firing", {{"alertname", "A"}, {"hostname", "127.0.0.1"}, {"xpuperf_capture", "true"}})),
      200);
  for (int i = 0; i < 300 && Posts().empty(); ++i) usleep(20000);
  auto posts = Posts();
  ASSERT_EQ(posts.size(), 1u) << log_.str();
  const json body = json::parse(posts[0].substr(posts[0].find(' ') + 1));
  EXPECT_EQ(body[0]["annotations"]["xpuperf_capture_status"], "failed");
  EXPECT_TRUE(body[0]["annotations"]["xpuperf_findings"].get<std::string>().starts_with(
      "capture failed: "));
}

// Capture folders do not grow without bound: at --max-captures-per-alert folders of one alert
// name and node, a firing alert is skipped with the reason.
TEST_F(AlertReceiverTest, CaptureFoldersPerAlertAreBounded) {
  auto options = Options(1778);
  options.max_captures_per_alert = 2;
  for (const char* old : {"alert-Hot-127.0.0.1_1778-20260101T000000Z-000001",
                          "alert-Hot-127.0.0.1_1778-20260101T000100Z-000002"}) {
    fs::create_directories(fs::path(options.out_root) / old);
  }
  auto receiver = AlertReceiver::Start(options);
  ASSERT_TRUE(receiver.ok());
  const json labels = {
      {"alertname", "Hot"}, {"hostname", "127.0.0.1"}, {"xpuperf_capture", "true"}};
  EXPECT_EQ((*receiver)->HandleWebhook(Webhook("firing", labels)), 200);
  const json decisions = json::parse((*receiver)->DecisionsJson())["decisions"];
  ASSERT_EQ(decisions.size(), 1u) << decisions.dump();
  EXPECT_EQ(decisions[0]["action"], "skip");
  EXPECT_NE(decisions[0]["reason"].get<std::string>().find("--max-captures-per-alert 2"),
            std::string::npos)
      << decisions.dump();
  EXPECT_EQ(json::parse((*receiver)->DecisionsJson())["captures_running"], 0);
}

TEST_F(AlertReceiverTest, BadBodiesAre400AndTheReceiverGoesOn) {
  auto receiver = AlertReceiver::Start(Options(1778));
  ASSERT_TRUE(receiver.ok());
  EXPECT_EQ((*receiver)->HandleWebhook("not json"), 400);
  EXPECT_EQ((*receiver)->HandleWebhook(R"({"version":"4","alerts":[{"status":"firing"}]})"), 400);
  EXPECT_NE(log_.str().find("refused a webhook message: body is not JSON"), std::string::npos);
  EXPECT_EQ((*receiver)->HandleWebhook(Webhook("firing", {{"alertname", "A"}})), 200);
  EXPECT_NE(log_.str().find("skipped: not opted in"), std::string::npos);
}

// One raw exchange: sends `request` (stopping when the receiver closes) and reads to the close.
std::string Exchange(int port, const std::string& head, const std::string& chunk, int chunks) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) return "";
  timeval timeout{60, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  auto send_all = [fd](const std::string& data) {
    return ::send(fd, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
  };
  bool open = send_all(head);
  for (int i = 0; open && i < chunks; ++i) open = send_all(chunk);
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0;) answer.append(buffer, n);
  ::close(fd);
  return answer;
}

// Bodies are counted as they arrive: a chunked body past 1 MiB is refused at the chunk that
// crosses it, a compressed one before it is read; a chunked webhook within the limit is served.
TEST_F(AlertReceiverTest, ChunkedAndCompressedBodiesAreBoundedAsTheyArrive) {
  auto receiver = AlertReceiver::Start(Options(1778));
  ASSERT_TRUE(receiver.ok());
  const int port = (*receiver)->port();
  const std::string chunk = "10000\r\n" + std::string(0x10000, ' ') + "\r\n";  // 64 KiB each
  const std::string big =
      Exchange(port, "POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", chunk, 64);
  EXPECT_EQ(big.rfind("HTTP/1.1 413 ", 0), 0u) << big.substr(0, 200);
  const std::string gzip = Exchange(
      port, "POST /webhook HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: 300000\r\n\r\n",
      std::string(1000, 'x'), 300);
  EXPECT_EQ(gzip.rfind("HTTP/1.1 415 ", 0), 0u) << gzip.substr(0, 200);
  const std::string body = Webhook("firing", {{"alertname", "A"}});
  char size[32];
  std::snprintf(size, sizeof(size), "%zx\r\n", body.size());
  const std::string ok = Exchange(port,
                                  "POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
                                  "Connection: close\r\n\r\n" +
                                      std::string(size) + body + "\r\n0\r\n\r\n",
                                  "", 0);
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 ", 0), 0u) << ok;
}

TEST_F(AlertReceiverTest, RefusesARemoteListenerWithoutTlsOrUsersAndBadOptions) {
  auto options = Options(1778);
  options.listen_host = "0.0.0.0";
  auto remote = AlertReceiver::Start(options);
  ASSERT_FALSE(remote.ok());
  EXPECT_NE(remote.error().message.find("needs --web-config"), std::string::npos);
  options = Options(1778);
  options.policy.max_concurrent = 0;
  EXPECT_FALSE(AlertReceiver::Start(options).ok());
  options = Options(1778);
  options.alertmanagers[0].url = "am:9093";
  EXPECT_FALSE(AlertReceiver::Start(options).ok());
}

}  // namespace
}  // namespace xpuperf::capture
