#include <gtest/gtest.h>

#include "xpuperf/agent/process_registry.h"

namespace xpuperf::agent {
namespace {

using std::chrono::seconds;

TEST(ProcessRegistry, PollRegistersAndHandsOutPendingConfigOnce) {
  ProcessRegistry registry(seconds(60));
  const auto t0 = AgentClock::now();
  EXPECT_EQ(registry.Poll(7, {100, 50, 2}, "client-a", false, t0), "");
  auto result =
      registry.Trigger(7, {}, 10, [](int32_t pid) { return "cfg" + std::to_string(pid); });
  EXPECT_EQ(result.matched, std::vector<int32_t>{100});
  EXPECT_EQ(result.triggered, std::vector<int32_t>{100});
  // A second request while the first is pending: busy.
  auto again = registry.Trigger(7, {}, 10, [](int32_t) { return "x"; });
  EXPECT_EQ(again.busy, 1);
  EXPECT_TRUE(again.triggered.empty());
  EXPECT_EQ(registry.Poll(7, {100, 50, 2}, "client-a", false, t0), "cfg100");
  EXPECT_EQ(registry.Poll(7, {100, 50, 2}, "client-a", false, t0), "");
}

TEST(ProcessRegistry, MatchesJobAndAncestorPidsAndHonoursTheLimit) {
  ProcessRegistry registry(seconds(60));
  const auto t0 = AgentClock::now();
  registry.Poll(1, {10, 5}, "a", false, t0);
  registry.Poll(1, {11, 5}, "b", false, t0);
  registry.Poll(2, {12, 6}, "c", false, t0);
  auto by_parent = registry.Trigger(1, {5}, 1, [](int32_t) { return "c"; });
  EXPECT_EQ(by_parent.matched.size(), 2u);
  EXPECT_EQ(by_parent.triggered.size(), 1u);  // limit 1: the other is only matched
  auto other_job = registry.Trigger(2, {0}, 10, [](int32_t) { return "c"; });
  EXPECT_EQ(other_job.triggered, std::vector<int32_t>{12});
  auto any = registry.Trigger(kAnyJob, {999}, 10, [](int32_t) { return "c"; });
  EXPECT_TRUE(any.matched.empty());
}

TEST(ProcessRegistry, DropsSilentProcesses) {
  ProcessRegistry registry(seconds(60));
  const auto t0 = AgentClock::now();
  registry.Poll(0, {10}, "a", false, t0);
  registry.Poll(0, {11}, "b", false, t0 + seconds(50));
  EXPECT_EQ(registry.DropSilent(t0 + seconds(61)), 1u);
  ASSERT_EQ(registry.Live().size(), 1u);
  EXPECT_EQ(registry.Live()[0].pid, 11);
  EXPECT_EQ(registry.CountForJob(0), 1);
}

}  // namespace
}  // namespace xpuperf::agent

namespace xpuperf::agent {
namespace {

TEST(ProcessRegistryLimitTest, RegistrationsStopAtTheCapAndSilentOnesMakeRoom) {
  ProcessRegistry registry(std::chrono::seconds(60));
  const auto start = AgentClock::now();
  for (size_t i = 0; i < kMaxRegisteredProcesses + 10; ++i) {
    registry.Poll(1, {static_cast<int32_t>(i + 1)}, "endpoint", false, start);
  }
  EXPECT_EQ(registry.Live().size(), kMaxRegisteredProcesses);
  EXPECT_EQ(registry.refused(), 10u);
  // A known process still polls; after the silence limit a new one takes a silent one's place.
  registry.Poll(1, {1}, "endpoint", false, start + std::chrono::seconds(61));
  registry.Poll(1, {999999}, "endpoint", false, start + std::chrono::seconds(62));
  EXPECT_EQ(registry.Live().size(), 2u);
  EXPECT_EQ(registry.refused(), 10u);
}

}  // namespace
}  // namespace xpuperf::agent
