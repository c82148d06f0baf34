// Known answers computed by hand from the results-cpu fixture: fp64 peak P = 100 GFLOP/s, DRAM
// (STREAM triad) 25 GB/s, so the fp64/DRAM ridge is at 4 FLOP/byte; L2 200 GB/s; host h2d
// 10 GB/s; all_reduce busbw 4 GB/s.
#include "xpuperf/roofline/verdict.h"

#include <gtest/gtest.h>

#include "fixtures.h"

namespace xpuperf::roofline {
namespace {

WorkloadPoint Point(double flops, double bytes, std::optional<double> time,
                    std::string dtype = "fp64") {
  WorkloadPoint p;
  p.name = "p";
  p.dtype = std::move(dtype);
  p.flops = flops;
  p.bytes = bytes;
  p.time_seconds = time;
  return p;
}

TEST(Verdict, PointExactlyOnTheRidge) {
  // I = 4e9 / 1e9 = 4 = 100e9 / 25e9: F/P = B/BW = 0.04 s.
  const PointVerdict v = *JudgePoint(testing::CpuCeilings(), Point(4e9, 1e9, 0.08));
  EXPECT_EQ(*v.intensity, 4.0);
  EXPECT_DOUBLE_EQ(*v.attainable_flops, 100e9);
  EXPECT_DOUBLE_EQ(v.roof_seconds, 0.04);
  EXPECT_EQ(v.bound, Bound::kCompute);  // a tie goes to the first term
  ASSERT_EQ(v.tied.size(), 1u);
  EXPECT_EQ(v.tied[0], "DRAM");
  EXPECT_DOUBLE_EQ(*v.achieved_flops, 50e9);
  EXPECT_DOUBLE_EQ(*v.fraction_of_roof, 0.5);
  EXPECT_DOUBLE_EQ(*v.headroom_seconds, 0.04);
  EXPECT_FALSE(v.above_roof);
}

TEST(Verdict, MemoryBoundBelowTheRidge) {
  // I = 1: attainable = 1 x 25e9; B/BW = 0.04 s > F/P = 0.01 s.
  const PointVerdict v = *JudgePoint(testing::CpuCeilings(), Point(1e9, 1e9, 0.05));
  EXPECT_EQ(v.bound, Bound::kMemory);
  EXPECT_EQ(v.bound_scope, "DRAM");
  EXPECT_TRUE(v.tied.empty());
  EXPECT_DOUBLE_EQ(*v.attainable_flops, 25e9);
  EXPECT_DOUBLE_EQ(v.roof_seconds, 0.04);
  EXPECT_DOUBLE_EQ(*v.fraction_of_roof, 0.8);
  EXPECT_DOUBLE_EQ(*v.headroom_seconds, 0.01);
}

TEST(Verdict, ComputeBoundAboveTheRidge) {
  const PointVerdict v = *JudgePoint(testing::CpuCeilings(), Point(1e10, 1e8, 0.2));
  EXPECT_EQ(v.bound, Bound::kCompute);
  EXPECT_EQ(v.bound_scope, "fp64");
  EXPECT_DOUBLE_EQ(*v.attainable_flops, 100e9);
  EXPECT_DOUBLE_EQ(v.roof_seconds, 0.1);
}

TEST(Verdict, CacheLevelBoundWhenBytesPerLevelGiven) {
  // L2: 8e9 / 200e9 = 0.04 s; DRAM: 1e8 / 25e9 = 0.004 s; compute 1e9 / 100e9 = 0.01 s.
  WorkloadPoint p = Point(1e9, 1e8, std::nullopt);
  p.bytes_by_level["L2"] = 8e9;
  const PointVerdict v = *JudgePoint(testing::CpuCeilings(), p);
  EXPECT_EQ(v.bound, Bound::kMemory);
  EXPECT_EQ(v.bound_scope, "L2");
  EXPECT_DOUBLE_EQ(v.roof_seconds, 0.04);
  EXPECT_EQ(*v.intensity, 10.0);  // against main-memory bytes
  EXPECT_FALSE(v.fraction_of_roof.has_value());
  EXPECT_FALSE(v.headroom_seconds.has_value());
}

TEST(Verdict, NetworkBoundPoint) {
  // 4e8 bus bytes / 4e9 B/s = 0.1 s beats 1e9 / 100e9 = 0.01 s.
  WorkloadPoint p = Point(1e9, 0, 0.2);
  p.collective_bytes = 4e8;
  const PointVerdict v = *JudgePoint(testing::CpuCeilings(), p);
  EXPECT_EQ(v.bound, Bound::kNetwork);
  EXPECT_EQ(v.bound_scope, "all_reduce");
  EXPECT_DOUBLE_EQ(v.roof_seconds, 0.1);
  EXPECT_DOUBLE_EQ(*v.fraction_of_roof, 0.5);
  EXPECT_DOUBLE_EQ(*v.headroom_seconds, 0.1);
}

TEST(Verdict, HostBoundPoint) {
  // 1e9 / 10e9 = 0.1 s over the host link; 1e8 / 25e9 = 0.004 s; 1e9 / 100e9 = 0.01 s.
  WorkloadPoint p = Point(1e9, 1e8, 0.125);
  p.host_bytes = 1e9;
  const PointVerdict v = *JudgePoint(testing::CpuCeilings(), p);
  EXPECT_EQ(v.bound, Bound::kHostLink);
  EXPECT_EQ(v.bound_scope, "h2d");
  EXPECT_DOUBLE_EQ(v.roof_seconds, 0.1);
  EXPECT_DOUBLE_EQ(*v.fraction_of_roof, 0.8);
  p.host_direction = "d2h";  // 1e9 / 8e9
  EXPECT_DOUBLE_EQ(JudgePoint(testing::CpuCeilings(), p)->roof_seconds, 0.125);
}

TEST(Verdict, MissingPrecisionFallsBackToTheFastestWithANote) {
  const PointVerdict v = *JudgePoint(testing::CpuCeilings(), Point(2e9, 1e6, 0.1, "bf16"));
  EXPECT_EQ(*v.peak_flops, 200e9);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find("no bf16 compute ceiling"), std::string::npos);
}

TEST(Verdict, FasterThanTheRoofIsFlagged) {
  const PointVerdict v = *JudgePoint(testing::CpuCeilings(), Point(1e9, 1e9, 0.01));
  EXPECT_TRUE(v.above_roof);
  EXPECT_DOUBLE_EQ(*v.headroom_seconds, 0);
}

TEST(Verdict, TrafficWithoutAnyCeilingIsAnError) {
  const Ceilings all = testing::CpuCeilings();
  Ceilings compute_only;
  compute_only.all.push_back(*all.Compute("fp64"));
  WorkloadPoint p = Point(0, 0, 1.0);
  p.collective_bytes = 1e6;
  EXPECT_EQ(JudgePoint(compute_only, p).error().code, ErrorCode::kInvalidArgument);
}

TEST(Analysis, SummaryByBoundAndHeadroom) {
  Workload w;
  w.points = {Point(1e9, 1e9, 0.05), Point(1e10, 1e8, 0.2), Point(1e9, 1e9, 0.04),
              Point(1e9, 1e9, std::nullopt)};
  const Analysis a = *Analyze(testing::CpuCeilings(), w);
  EXPECT_DOUBLE_EQ(a.measured_seconds, 0.29);
  EXPECT_DOUBLE_EQ(a.headroom_seconds, 0.01 + 0.1 + 0);
  EXPECT_EQ(a.untimed_points, 1);
  ASSERT_EQ(a.by_bound.size(), 2u);
  EXPECT_EQ(a.by_bound[0].bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(a.by_bound[0].measured_seconds, 0.2);
  EXPECT_EQ(a.by_bound[1].bound, Bound::kMemory);
  EXPECT_EQ(a.by_bound[1].points, 3);
  EXPECT_DOUBLE_EQ(a.by_bound[1].measured_seconds, 0.09);
  EXPECT_DOUBLE_EQ(a.by_bound[1].roof_seconds, 0.08);
}

}  // namespace
}  // namespace xpuperf::roofline

#include "xpuperf/roofline/advice.h"

namespace xpuperf::roofline {
namespace {

// A ceiling measured unstable is used only when no stable figure of its kind exists, is labelled,
// and a point it binds is not judged: no verdict, no advice.
TEST(Verdict, AnUnstableBindingCeilingIsNotJudged) {
  BenchResults results = testing::CpuResults();
  for (BenchRecord& record : results.records) {
    if (record.metric == "fp64_flops") {  // the peak and the GEMM
      record.stable = false;
      record.unstable_reason = "busy machine: other processes used 48% of the 2 CPUs";
    }
  }
  const Ceilings ceilings = CeilingsFromResults(results);
  const Ceiling* fp64 = ceilings.Compute("fp64");
  ASSERT_NE(fp64, nullptr);
  EXPECT_FALSE(fp64->stable);
  EXPECT_EQ(fp64->Label(), "fp64 peak (unstable)");
  Workload workload;
  workload.points = {Point(1e10, 1e8, 0.4)};  // compute bound, at 25% of its roof
  const Analysis analysis = *Analyze(ceilings, workload);
  ASSERT_TRUE(analysis.verdicts[0].unstable);
  EXPECT_NE(analysis.verdicts[0].unstable->find("busy machine"), std::string::npos);
  const AdviceContext context{&analysis, &workload, &ceilings, 0};
  for (const Advice& advice : Advise(context)) EXPECT_NE(advice.point, "p") << advice.rule;
  // A memory-bound point is judged: its binding ceiling (DRAM) is stable.
  EXPECT_FALSE(JudgePoint(ceilings, Point(1e9, 1e9, 0.05))->unstable);

  // A stable fp64 figure, even a lower one, is preferred.
  BenchRecord stable = results.records.front();
  for (const BenchRecord& record : results.records) {
    if (record.benchmark == "peak_fma" && record.metric == "fp64_flops") stable = record;
  }
  stable.stable = true;
  stable.value = 80;
  results.records.push_back(stable);
  const Ceilings with_stable = CeilingsFromResults(results);
  const Ceiling* chosen = with_stable.Compute("fp64");
  ASSERT_NE(chosen, nullptr);
  EXPECT_TRUE(chosen->stable);
  EXPECT_EQ(chosen->value, 80e9);
}

}  // namespace
}  // namespace xpuperf::roofline
