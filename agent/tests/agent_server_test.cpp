#include "xpuperf/agent/agent_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "fake_kineto.h"
#include "xpuperf/agent/rpc_client.h"

namespace xpuperf::agent {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class AgentServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("agent-test-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    ipc_name_ = "xpuperf-agent-test-" + std::to_string(getpid());
  }
  void TearDown() override { fs::remove_all(root_); }

  std::unique_ptr<AgentServer> Start(AgentOptions options = {}) {
    options.listen_host = options.listen_host.empty() ? "127.0.0.1" : options.listen_host;
    options.port = 0;
    options.capture_dir = (root_ / "captures").string();
    options.ipc_name = ipc_name_;
    fs::create_directories(root_);
    auto server = AgentServer::Start(options);
    EXPECT_TRUE(server.ok()) << (server.ok() ? "" : server.error().message);
    return server.ok() ? std::move(server).value() : nullptr;
  }
  Result<json> Call(const AgentServer& server, json request, ClientSecurity security = {}) {
    return CallAgent({"127.0.0.1", server.port()}, std::move(request), security, 5);
  }

  fs::path root_;
  std::string ipc_name_;
};

TEST_F(AgentServerTest, AnswersDynologsStatusAndVersion) {
  auto server = Start();
  ASSERT_TRUE(server);
  auto status = Call(*server, {{"fn", "getStatus"}});
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ((*status)["status"], 1);
  auto version = Call(*server, {{"fn", "getVersion"}});
  ASSERT_TRUE(version.ok());
  EXPECT_TRUE((*version)["version"].get<std::string>().starts_with("xpuperf "));
}

// Connects to 127.0.0.1:port (a raw TCP client); -1 on failure.
int ConnectRaw(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// A client that sends its request a byte every 200 ms, for ever, kept the agent's only worker:
// every read finished within the I/O timeout. The whole request now has that timeout, so the
// worker is free again and a real request is answered (within the client's generous 30 s).
TEST_F(AgentServerTest, ATricklingClientCannotHoldAWorker) {
  AgentOptions options;
  options.workers = 1;
  options.io_timeout_seconds = 1;
  auto server = Start(options);
  ASSERT_TRUE(server);
  std::atomic<bool> stop{false};
  std::thread trickler([&] {
    while (!stop.load()) {
      const int fd = ConnectRaw(server->port());
      if (fd < 0) return;
      const std::string frame = FrameMessage(R"({"fn":"getStatus"})");
      for (char c : frame) {
        if (stop.load() || send(fd, &c, 1, MSG_NOSIGNAL) != 1) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
      close(fd);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the trickler holds the worker
  auto status = CallAgent({"127.0.0.1", server->port()}, {{"fn", "getStatus"}}, {}, 30);
  stop.store(true);
  trickler.join();
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ((*status)["status"], 1);
}

// An agent that answers a byte every 200 ms, for ever, held `capture` for ever: every read got a
// byte within its timeout. The call now ends at its overall deadline and says so.
TEST(AgentClientTest, ATricklingAgentEndsAtTheOverallDeadline) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  socklen_t length = sizeof(address);
  getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  const int port = ntohs(address.sin_port);
  std::atomic<bool> stop{false};
  std::thread agent([&] {
    const int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) return;
    const std::string header("\x7f\x00\x00\x00", 4);  // a frame of 127 bytes, never finished
    for (size_t i = 0; !stop.load(); ++i) {
      const char c = i < header.size() ? header[i] : ' ';
      if (send(fd, &c, 1, MSG_NOSIGNAL) != 1) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    close(fd);
  });
  auto reply = CallAgent({"127.0.0.1", port}, {{"fn", "getStatus"}}, {}, 1.5);
  stop.store(true);
  agent.join();
  close(listener);
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.error().message.find("overall deadline"), std::string::npos)
      << reply.error().message;
}

TEST_F(AgentServerTest, ClosesUnknownCallsWithoutAReplyAndKeepsServing) {
  auto server = Start();
  ASSERT_TRUE(server);
  auto unknown = Call(*server, {{"fn", "rmRf"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kIo);
  auto missing = Call(*server, {{"config", "x"}});
  EXPECT_FALSE(missing.ok());
  auto failed = Call(*server, {{"fn", "setKinetOnDemandRequest"}});
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ((*failed)["status"], "failed");
  EXPECT_TRUE(Call(*server, {{"fn", "getStatus"}}).ok());
}

TEST_F(AgentServerTest, RegistersAKinetoProcessAndHandsItTheCaptureConfig) {
  auto server = Start();
  ASSERT_TRUE(server);
  testing::FakeKinetoProcess process(ipc_name_, 4242, 0);
  for (int i = 0; i < 100 && server->registry().Live().empty(); ++i) usleep(20000);
  ASSERT_EQ(server->registry().Live().size(), 1u);
  auto listed = Call(*server, {{"fn", "xpuperfListProcesses"}});
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ((*listed)["processes"][0]["pid"], 4242);
  EXPECT_EQ((*listed)["processes"][0]["pids"][1], 1004242);

  auto started = Call(*server, {{"fn", "xpuperfCaptureStart"},
                                {"capture_id", "c1"},
                                {"duration_ms", 100},
                                {"start_time_ms", 0}});
  ASSERT_TRUE(started.ok()) << started.error().message;
  EXPECT_EQ((*started)["activityProfilersTriggered"], json::array({4242}));
  for (int i = 0; i < 100 && process.traces() == 0; ++i) usleep(20000);
  ASSERT_EQ(process.traces(), 1);
  EXPECT_NE(process.last_config().find("ACTIVITIES_DURATION_MSECS=100"), std::string::npos);
  EXPECT_NE(process.last_config().find("REQUEST_TRACE_ID="), std::string::npos);

  // Unfinished, linked and hidden files are never served.
  const fs::path folder = root_ / "captures" / "c1";
  std::ofstream(folder / "partial.json.tmp") << "{";
  fs::create_symlink("/etc/passwd", folder / "passwd.json");
  auto files = Call(*server, {{"fn", "xpuperfCaptureFiles"}, {"capture_id", "c1"}});
  ASSERT_TRUE(files.ok());
  ASSERT_EQ((*files)["files"].size(), 1u) << files->dump();
  EXPECT_EQ((*files)["files"][0]["name"], "trace_4242.json");
  auto link =
      Call(*server, {{"fn", "xpuperfCaptureRead"}, {"capture_id", "c1"}, {"name", "passwd.json"}});
  ASSERT_TRUE(link.ok());
  EXPECT_TRUE((*link)["status"].get<std::string>().starts_with("failed"));
  auto escape =
      Call(*server, {{"fn", "xpuperfCaptureRead"}, {"capture_id", ".."}, {"name", "passwd"}});
  ASSERT_TRUE(escape.ok());
  EXPECT_TRUE(escape->contains("status"));
  auto read = Call(*server, {{"fn", "xpuperfCaptureRead"},
                             {"capture_id", "c1"},
                             {"name", "trace_4242.json"},
                             {"offset", 0},
                             {"length", 16}});
  ASSERT_TRUE(read.ok());
  EXPECT_EQ((*read)["data"], "eyJzY2hlbWFWZXJzaW9uIg==");  // base64 of {"schemaVersion"
  EXPECT_FALSE((*read)["eof"].get<bool>());
}

TEST_F(AgentServerTest, DynoRequestsAreConfinedToTheCaptureDirectory) {
  auto server = Start();
  ASSERT_TRUE(server);
  testing::FakeKinetoProcess process(ipc_name_, 77, 5);
  for (int i = 0; i < 100 && server->registry().Live().empty(); ++i) usleep(20000);
  auto reply =
      Call(*server, {{"fn", "setKinetOnDemandRequest"},
                     {"config", "ACTIVITIES_LOG_FILE=/root/x.json\nACTIVITIES_DURATION_MSECS=10"},
                     {"job_id", 5},
                     {"pids", {0}},
                     {"process_limit", 3}});
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ((*reply)["processesMatched"], json::array({77}));
  EXPECT_EQ((*reply)["activityProfilersBusy"], 0);
  EXPECT_EQ((*reply)["logFile"], (root_ / "captures" / "dyno" / "x.json").string());
  auto wrong_job = Call(*server, {{"fn", "setKinetOnDemandRequest"},
                                  {"config", "ACTIVITIES_DURATION_MSECS=10"},
                                  {"job_id", 6},
                                  {"pids", json::array()}});
  ASSERT_TRUE(wrong_job.ok());
  EXPECT_TRUE((*wrong_job)["processesMatched"].empty());
}

TEST_F(AgentServerTest, RemoteListenNeedsTlsOrUsersAndUsersAreChecked) {
  AgentOptions remote;
  remote.listen_host = "0.0.0.0";
  remote.capture_dir = (root_ / "c").string();
  remote.enable_ipc = false;
  auto refused = AgentServer::Start(remote);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("not loopback"), std::string::npos);

  fs::create_directories(root_);
  const fs::path web = root_ / "web.yml";
  // bcrypt ($2y$, cost 4) of "secret".
  std::ofstream(web) << "basic_auth_users:\n  ops: "
                        "$2y$04$OHCK2M/UolQBtYoDw9qA8uektLUmtQnRDvdkm14qyEMBmewt4313q\n";
  AgentOptions with_users;
  with_users.web_config_path = web.string();
  with_users.enable_ipc = false;
  auto server = Start(with_users);
  ASSERT_TRUE(server);
  auto anonymous = Call(*server, {{"fn", "getStatus"}});
  ASSERT_TRUE(anonymous.ok());
  EXPECT_NE((*anonymous)["status"].dump().find("unauthorized"), std::string::npos);
  ClientSecurity good;
  good.authorization = *AuthorizationFromCredentials("ops:secret\n");
  auto ok = Call(*server, {{"fn", "getStatus"}}, good);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["status"], 1);
  ClientSecurity bad;
  bad.authorization = *AuthorizationFromCredentials("ops:wrong");
  auto denied = Call(*server, {{"fn", "getStatus"}}, bad);
  ASSERT_TRUE(denied.ok());
  EXPECT_NE((*denied)["status"].dump().find("unauthorized"), std::string::npos);
}

TEST(AgentEndpoint, ParsesHostsAndPorts) {
  auto plain = ParseAgentEndpoint("node1");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->port, kDefaultRpcPort);
  auto port = ParseAgentEndpoint("10.0.0.2:1900");
  ASSERT_TRUE(port.ok());
  EXPECT_EQ(port->port, 1900);
  auto v6 = ParseAgentEndpoint("[::1]:7");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->ToString(), "[::1]:7");
  EXPECT_FALSE(ParseAgentEndpoint("").ok());
  EXPECT_FALSE(ParseAgentEndpoint("h:0").ok());
  EXPECT_FALSE(ParseAgentEndpoint("h:99999").ok());
  EXPECT_FALSE(ParseAgentEndpoint("::1").ok());
  EXPECT_FALSE(ParseAgentEndpoint("h:").ok());
}

}  // namespace
}  // namespace xpuperf::agent
