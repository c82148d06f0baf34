// Acting through Slurm: scontrol's answer read, the drain reason built from the verdicts that need
// the node out of service only.
#include "xpuperf/health/slurm_action.h"

#include <gtest/gtest.h>

namespace xpuperf::health {
namespace {

TEST(SlurmActionTest, ReadsStateAndReasonWithoutWhoSetIt) {
  auto node = ParseSlurmNode(
      "NodeName=node1 Arch=x86_64 CoresPerSocket=1 CPUAlloc=1 State=MIXED+DRAIN "
      "ThreadsPerCore=1 Partitions=debug Reason=xpuperf: nvidia0 DRIVER_DEVICE_LOST "
      "(reset_device) [root@2026-12-07T01:30:00]\n");
  ASSERT_TRUE(node.ok()) << node.error().message;
  EXPECT_EQ(node->state, "MIXED+DRAIN");
  EXPECT_TRUE(node->drained());
  EXPECT_EQ(node->reason, "xpuperf: nvidia0 DRIVER_DEVICE_LOST (reset_device)");
  auto idle = ParseSlurmNode("NodeName=node1 State=IDLE ThreadsPerCore=1\n");
  ASSERT_TRUE(idle.ok());
  EXPECT_FALSE(idle->drained());
  EXPECT_EQ(idle->reason, "");
  EXPECT_FALSE(ParseSlurmNode("Node node9 not found\n").ok());
}

TEST(SlurmActionTest, OnlyFailuresThatNeedTheNodeOutDrainIt) {
  HealthReport report;
  Verdict restart;
  restart.device = "nvidia0";
  restart.status = Status::kFail;
  restart.code = "XID_13_GRAPHICS_EXCEPTION";
  restart.action = Action::kRestartJob;
  Verdict warn = restart;
  warn.status = Status::kWarn;
  warn.code = "MEM_ROW_REMAP_PENDING";
  warn.action = Action::kResetDevice;
  report.verdicts = {restart, warn};
  EXPECT_EQ(DrainReason(report), "");  // a job to restart, a reset to plan: no drain
  Verdict remap = restart;
  remap.device = "nvidia1";
  remap.code = "MEM_ROW_REMAP_FAILURE";
  remap.action = Action::kReplaceDevice;
  Verdict lost = remap;
  lost.device = "nvidia2";
  lost.code = "DRIVER_DEVICE_LOST";
  lost.action = Action::kResetDevice;
  report.verdicts.push_back(remap);
  report.verdicts.push_back(lost);
  EXPECT_EQ(DrainReason(report),
            "xpuperf: nvidia1 MEM_ROW_REMAP_FAILURE (replace_device); nvidia2 DRIVER_DEVICE_LOST "
            "(reset_device)");
  for (int i = 0; i < 20; ++i) report.verdicts.push_back(remap);
  EXPECT_EQ(DrainReason(report).size(), 200u);  // bounded
}

}  // namespace
}  // namespace xpuperf::health
