// The tracer's on-demand mode against a stand-in daemon endpoint: the poll is Kineto's `req`
// datagram, and a config sent back runs one session whose file is named as Kineto names it.
#include "xpuperf/tracer/on_demand.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "trace_file.h"
#include "xpuperf/core/kineto_ipc.h"
#include "xpuperf/tracer/tracer.h"

namespace xpuperf::tracer {
namespace {

TEST(OnDemand, RegistersLikeKinetoAndTracesWhenTheDaemonSaysSo) {
  const std::string daemon_name = "xpuperf-tracer-daemon-test-" + std::to_string(getpid());
  auto daemon = kineto::IpcEndpoint::Bind(daemon_name, "");
  ASSERT_TRUE(daemon.ok()) << daemon.error().message;
  OnDemandOptions options;
  options.agent_endpoint = daemon_name;
  options.poll_interval_ms = 20;
  options.job_id = 31;
  ASSERT_TRUE(StartOnDemand(options).ok());
  EXPECT_FALSE(StartOnDemand(options).ok());  // one poller per process

  // The first poll: a `req` with this pid first and the job id.
  kineto::IpcEndpoint::Received poll;
  for (int i = 0; i < 200; ++i) {
    auto got = daemon->Receive(50);
    ASSERT_TRUE(got.ok());
    if (!got->timed_out && !got->bytes.empty()) {
      poll = *got;
      break;
    }
  }
  ASSERT_FALSE(poll.from.empty());
  auto message = kineto::ParseIpcDatagram(poll.bytes);
  ASSERT_TRUE(message.ok());
  EXPECT_EQ(message->type, "req");
  auto request = kineto::ParseKinetoRequest(message->payload);
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request->pids.front(), getpid());
  EXPECT_EQ(request->job_id, 31);
  EXPECT_EQ(request->type, kineto::kActivityProfilerBit);

  const std::string log_file = testing::TempTracePath("on_demand.json");
  const std::string written = kineto::KinetoOutputPath(log_file, getpid());
  std::filesystem::remove(written);
  const std::string config =
      "ACTIVITIES_LOG_FILE=" + log_file + "\nPROFILE_START_TIME=0\nACTIVITIES_DURATION_MSECS=150";
  ASSERT_TRUE(daemon->SendTo(poll.from, kineto::EncodeIpcDatagram("req", config)).ok());
  // Work while the session runs.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!std::filesystem::exists(written) && std::chrono::steady_clock::now() < until) {
    XPUPERF_SCOPE("on_demand_work");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  StopOnDemand();
  ASSERT_TRUE(std::filesystem::exists(written)) << written;
  EXPECT_EQ(OnDemandSessions(), 1u);
  const auto trace = testing::ReadTrace(written);
  bool found = false;
  for (const auto& event : trace["traceEvents"])
    found |= event.value("name", "") == "on_demand_work";
  EXPECT_TRUE(found);
  std::filesystem::remove(written);
}

}  // namespace
}  // namespace xpuperf::tracer
