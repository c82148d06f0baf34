// PyTorch's legacy export (torch without Kineto): a bare array of operators on pid "CPU functions"
// with no `cat`, read as CPU operators. The trace is written by
// tests/data/write_legacy_torch_trace.py in torch 1.13's byte layout (its export_chrome_trace);
// expected values follow from its events.
#include <gtest/gtest.h>

#include <map>

#include "xpuperf/trace/analyses.h"
#include "xpuperf/trace/reader.h"

namespace xpuperf::trace {
namespace {

TEST(LegacyExportTest, CpuFunctionsAreOperatorsWithNestingOnTheirThread) {
  const std::string path = std::string(XPUPERF_TEST_DATA_DIR) + "/legacy_torch_profiler.json";
  auto text = TraceText::Load(path);
  ASSERT_TRUE(text.ok()) << text.error().message;
  auto parsed = ParseTrace(text->view(), path);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const Trace& t = *parsed;
  ASSERT_EQ(t.events.size(), 18u);  // the two flow ends are counted, not stored
  EXPECT_EQ(t.flow_events, 2);
  for (const TraceEvent& e : t.events) EXPECT_EQ(e.kind, EventKind::kCpuOp) << t.Name(e);
  const OperatorBreakdown ops = ComputeOperatorBreakdown(t, 50);
  EXPECT_EQ(ops.total_ops, 18);
  std::map<std::string, OperatorStat> by_name;
  for (const auto& s : ops.by_name) by_name[s.name] = s;
  // linear [100.125, 160.625] holds t (4.25) and addmm (50); linear [200, 240] holds addmm (30).
  EXPECT_EQ(by_name["aten::linear"].count, 2);
  EXPECT_EQ(by_name["aten::linear"].inclusive_ns, 100'500);
  EXPECT_EQ(by_name["aten::linear"].exclusive_ns, 16'250);
  // addmm [106, 156] holds expand (3) and copy_ (10).
  EXPECT_EQ(by_name["aten::addmm"].inclusive_ns, 80'000);
  EXPECT_EQ(by_name["aten::addmm"].exclusive_ns, 67'000);
  // The backward thread: AddmmBackward0 (75) holds two mm of 30.
  EXPECT_EQ(by_name["aten::mm"].count, 2);
  EXPECT_EQ(by_name["aten::mm"].exclusive_ns, 60'000);
  EXPECT_EQ(by_name["AddmmBackward0"].exclusive_ns, 15'000);
  EXPECT_EQ(ComputeTemporalBreakdown(t).gpu_ops, 0);  // torch wrote no kernel durations
}

}  // namespace
}  // namespace xpuperf::trace
