#include "xpuperf/capture/capture.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "../../agent/tests/fake_kineto.h"
#include "xpuperf/agent/agent_server.h"
#include "xpuperf/tracer/on_demand.h"
#include "xpuperf/tracer/tracer.h"

namespace xpuperf::capture {
namespace {

namespace fs = std::filesystem;

// A loopback port nobody listens on (bound, then closed).
int ClosedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

class CaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("capture-test-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::unique_ptr<agent::AgentServer> StartAgent(const std::string& name) {
    agent::AgentOptions options;
    options.port = 0;
    options.capture_dir = (root_ / ("agent-" + name)).string();
    options.ipc_name = "xpuperf-capture-test-" + std::to_string(getpid()) + "-" + name;
    auto server = agent::AgentServer::Start(options);
    EXPECT_TRUE(server.ok()) << (server.ok() ? "" : server.error().message);
    return server.ok() ? std::move(server).value() : nullptr;
  }

  fs::path root_;
};

TEST_F(CaptureTest, GathersTwoAgentsAndReportsTheOneThatFails) {
  auto a = StartAgent("a");
  auto b = StartAgent("b");
  ASSERT_TRUE(a && b);
  agent::testing::FakeKinetoProcess pa("xpuperf-capture-test-" + std::to_string(getpid()) + "-a",
                                       101, 9);
  agent::testing::FakeKinetoProcess pb("xpuperf-capture-test-" + std::to_string(getpid()) + "-b",
                                       202, 9);
  for (int i = 0; i < 100 && (a->registry().Live().empty() || b->registry().Live().empty()); ++i)
    usleep(20000);
  const int dead = ClosedPort();
  CaptureOptions options;
  options.hosts = {"127.0.0.1:" + std::to_string(a->port()),
                   "127.0.0.1:" + std::to_string(b->port()), "127.0.0.1:" + std::to_string(dead)};
  options.job_id = 9;
  options.duration_ms = 50;
  options.start_in_seconds = 0;
  options.wait_seconds = 10;
  options.out_dir = (root_ / "out").string();
  options.rpc_timeout_seconds = 2;
  std::ostringstream log;
  auto report = RunCapture(options, log);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->hosts.size(), 3u);
  EXPECT_EQ(report->ok_hosts(), 2u) << log.str();
  EXPECT_EQ(report->trace_files(), 2u);
  EXPECT_FALSE(report->hosts[2].ok);
  EXPECT_NE(report->hosts[2].error.find("cannot connect"), std::string::npos);
  // Progress: a line as each host ends, in whatever order they end.
  for (const char* done : {"1 of 3 hosts done, ", "2 of 3 hosts done, ", "3 of 3 hosts done, "}) {
    EXPECT_NE(log.str().find(done), std::string::npos) << log.str();
  }
  EXPECT_NE(log.str().find(" failed; "), std::string::npos) << log.str();
  const fs::path out = root_ / "out";
  EXPECT_TRUE(fs::exists(out / ("127.0.0.1_" + std::to_string(a->port())) / "trace_101.json"));
  EXPECT_TRUE(fs::exists(out / ("127.0.0.1_" + std::to_string(b->port())) / "trace_202.json"));
  std::ifstream manifest(out / "manifest.json");
  std::stringstream text;
  text << manifest.rdbuf();
  auto json = nlohmann::json::parse(text.str());
  EXPECT_EQ(json["kind"], "xpuperf-capture");
  EXPECT_EQ(json["hosts_ok"], 2);
  EXPECT_EQ(json["hosts_failed"], 1);
  EXPECT_EQ(json["hosts"][2]["status"], "failed");
  // The same directory is not reused for a second capture.
  auto again = RunCapture(options, log);
  EXPECT_FALSE(again.ok());
}

// A relative --out with missing parents, from an empty working directory: created there, as
// record --out and bench run --out are.
TEST_F(CaptureTest, ARelativeOutDirectoryFromAnEmptyWorkingDirectory) {
  auto a = StartAgent("rel");
  ASSERT_TRUE(a);
  agent::testing::FakeKinetoProcess pa("xpuperf-capture-test-" + std::to_string(getpid()) + "-rel",
                                       303, 9);
  for (int i = 0; i < 100 && a->registry().Live().empty(); ++i) usleep(20000);
  const fs::path previous = fs::current_path();
  fs::create_directories(root_ / "empty");
  fs::current_path(root_ / "empty");
  CaptureOptions options;
  options.hosts = {"127.0.0.1:" + std::to_string(a->port())};
  options.job_id = 9;
  options.duration_ms = 50;
  options.start_in_seconds = 0;
  options.wait_seconds = 10;
  options.out_dir = "captures/run-1";
  options.rpc_timeout_seconds = 2;
  std::ostringstream log;
  auto report = RunCapture(options, log);
  fs::current_path(previous);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->ok_hosts(), 1u) << log.str();
  EXPECT_TRUE(fs::exists(root_ / "empty" / "captures" / "run-1" / "manifest.json"));
  EXPECT_TRUE(fs::exists(root_ / "empty" / "captures" / "run-1" /
                         ("127.0.0.1_" + std::to_string(a->port())) / "trace_303.json"));
}

// What one agent hands over is bounded: past the file count or the byte total the host fails
// with the reason and nothing more is fetched.
TEST_F(CaptureTest, AnAgentsFilesAreBoundedInCountAndBytes) {
  auto a = StartAgent("bounds");
  ASSERT_TRUE(a);
  agent::testing::FakeKinetoProcess pa(
      "xpuperf-capture-test-" + std::to_string(getpid()) + "-bounds", 304, 9);
  for (int i = 0; i < 100 && a->registry().Live().empty(); ++i) usleep(20000);
  for (const bool count : {true, false}) {
    CaptureOptions options;
    options.hosts = {"127.0.0.1:" + std::to_string(a->port())};
    options.job_id = 9;
    options.duration_ms = 50;
    options.start_in_seconds = 0;
    options.wait_seconds = 10;
    options.out_dir = (root_ / (count ? "count" : "bytes")).string();
    options.rpc_timeout_seconds = 2;
    if (count) {
      options.max_files_per_host = 0;
    } else {
      options.max_bytes_per_host = 1;
    }
    std::ostringstream log;
    auto report = RunCapture(options, log);
    ASSERT_TRUE(report.ok()) << report.error().message;
    ASSERT_EQ(report->hosts.size(), 1u);
    EXPECT_FALSE(report->hosts[0].ok);
    EXPECT_NE(report->hosts[0].error.find(count ? "listed more than 0 files" : "bytes in all"),
              std::string::npos)
        << report->hosts[0].error;
  }
}

// Our own tracer registers like a Kineto process and is captured without a restart.
TEST_F(CaptureTest, CapturesAProgramInstrumentedWithXpuperfScope) {
  auto a = StartAgent("tracer");
  ASSERT_TRUE(a);
  tracer::OnDemandOptions on_demand;
  on_demand.agent_endpoint = "xpuperf-capture-test-" + std::to_string(getpid()) + "-tracer";
  on_demand.poll_interval_ms = 50;
  ASSERT_TRUE(tracer::StartOnDemand(on_demand).ok());
  for (int i = 0; i < 100 && a->registry().Live().empty(); ++i) usleep(20000);
  ASSERT_EQ(a->registry().Live().size(), 1u);
  EXPECT_EQ(a->registry().Live()[0].pid, getpid());
  std::atomic<bool> working{true};
  std::thread worker([&] {
    while (working) {
      XPUPERF_SCOPE("instrumented_step");
      usleep(500);
    }
  });
  CaptureOptions options;
  options.hosts = {"127.0.0.1:" + std::to_string(a->port())};
  options.duration_ms = 200;
  options.start_in_seconds = 0.3;
  options.wait_seconds = 10;
  options.out_dir = (root_ / "out").string();
  std::ostringstream log;
  auto report = RunCapture(options, log);
  working = false;
  worker.join();
  tracer::StopOnDemand();
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->ok_hosts(), 1u) << log.str();
  ASSERT_EQ(report->hosts[0].files.size(), 1u);
  EXPECT_EQ(report->hosts[0].files[0].name, "trace_" + std::to_string(getpid()) + ".json");
  std::ifstream in(report->hosts[0].files[0].path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("instrumented_step"), std::string::npos);
}

TEST_F(CaptureTest, NoMatchingProcessIsAFailedHostNotAnError) {
  auto a = StartAgent("lonely");
  ASSERT_TRUE(a);
  CaptureOptions options;
  options.hosts = {"127.0.0.1:" + std::to_string(a->port())};
  options.duration_ms = 10;
  options.start_in_seconds = 0;
  options.out_dir = (root_ / "out").string();
  std::ostringstream log;
  auto report = RunCapture(options, log);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->ok_hosts(), 0u);
  EXPECT_NE(report->hosts[0].error.find("no registered process"), std::string::npos);
}

TEST_F(CaptureTest, RefusesBadOptions) {
  std::ostringstream log;
  CaptureOptions options;
  options.out_dir = (root_ / "o").string();
  EXPECT_FALSE(RunCapture(options, log).ok());  // no hosts
  options.hosts = {"h"};
  EXPECT_FALSE(RunCapture(options, log).ok());  // neither mode
  options.duration_ms = 1;
  options.iterations = 1;
  EXPECT_FALSE(RunCapture(options, log).ok());  // both
  options.iterations = 0;
  options.hosts = {"h:70000"};
  EXPECT_FALSE(RunCapture(options, log).ok());
  options.hosts = {"h", "h"};
  EXPECT_FALSE(RunCapture(options, log).ok());
}

TEST_F(CaptureTest, ReadsHostFiles) {
  std::ofstream(root_ / "hosts") << "# nodes\nnode1\n\n node2:1900  # second\n";
  auto hosts = ReadHostFile((root_ / "hosts").string());
  ASSERT_TRUE(hosts.ok());
  EXPECT_EQ(*hosts, (std::vector<std::string>{"node1", "node2:1900"}));
  std::ofstream(root_ / "bad") << "node1\nnode:x\n";
  auto bad = ReadHostFile((root_ / "bad").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find(":2:"), std::string::npos);
}

}  // namespace
}  // namespace xpuperf::capture
