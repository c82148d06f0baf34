// Every rule of the advice table: one workload that triggers it and one that does not. Numbers
// from the results-cpu fixture (fp64 peak 100, fp32 peak 200 GFLOP/s, DRAM 25 GB/s, host h2d
// 10 GB/s, all_reduce busbw 4 GB/s, device memory 32 GB).
#include "xpuperf/roofline/advice.h"

#include <gtest/gtest.h>

#include <set>

#include "fixtures.h"

namespace xpuperf::roofline {
namespace {

struct Fired {
  std::vector<Advice> advice;
  bool Has(std::string_view rule, std::string_view point = "") const {
    for (const Advice& a : advice) {
      if (a.rule == rule && (point.empty() || a.point == point)) return true;
    }
    return false;
  }
};

Fired AdviseOn(const std::string& yaml, const BenchResults& results = testing::CpuResults()) {
  Result<Workload> workload = ParseWorkload(yaml, "test.yaml");
  EXPECT_TRUE(workload.ok()) << workload.error().message;
  const Ceilings ceilings = CeilingsFromResults(results);
  Result<Analysis> analysis = Analyze(ceilings, *workload);
  EXPECT_TRUE(analysis.ok()) << analysis.error().message;
  AdviceContext context{&*analysis, &*workload, &ceilings, results.device_memory_bytes};
  return Fired{Advise(context)};
}

TEST(AdviceRules, EveryRuleHasAnIdConditionAndAdvice) {
  std::set<std::string_view> ids;
  for (const AdviceRule& rule : AdviceRules()) {
    EXPECT_TRUE(ids.insert(rule.id).second) << rule.id;
    EXPECT_FALSE(rule.when.empty());
    EXPECT_FALSE(rule.advice.empty());
    EXPECT_NE(rule.check, nullptr);
  }
  EXPECT_EQ(ids.size(), 10u);
}

// 1e8 elements, fp32, 2 in + 1 out: 1.2e9 bytes (0.048 s at 25 GB/s) for 1e8 FLOPs.
constexpr const char* kAdd = "elementwise: {elements: 1e8, inputs: 2, outputs: 1}";

TEST(AdviceRules, FuseElementwiseChain) {
  const Fired chain =
      AdviseOn(std::string("- {name: add, ") + kAdd + ", time: 0.05}\n" + "- {name: mul, " + kAdd +
               ", time: 0.05, follows_previous: true}\n" + "- {name: relu, " + kAdd +
               ", time: 0.05, follows_previous: true}\n");
  EXPECT_TRUE(chain.Has("fuse_elementwise_chain", "add"));
  EXPECT_FALSE(chain.Has("fuse_elementwise_chain", "mul"));  // reported once per chain
  ASSERT_EQ(chain.advice[0].rule, "fuse_elementwise_chain");
  EXPECT_DOUBLE_EQ(*chain.advice[0].gain_seconds, 0.15 - 0.048);
  const Fired single = AdviseOn(std::string("- {name: add, ") + kAdd + ", time: 0.05}\n" +
                                "- {name: mm, gemm: {m: 1024, n: 1024, k: 1024}, time: 0.02}\n");
  EXPECT_FALSE(single.Has("fuse_elementwise_chain"));
  // Two entries of a workload file that do not say they ran back to back are unrelated.
  const Fired unrelated = AdviseOn(std::string("- {name: add, ") + kAdd + ", time: 0.05}\n" +
                                   "- {name: mul, " + kAdd + ", time: 0.05}\n");
  EXPECT_FALSE(unrelated.Has("fuse_elementwise_chain"));
}

TEST(AdviceRules, GemmLowIntensity) {
  // m = 1: 2*4096*4096 FLOPs over (4096 + 4096^2 + 4096) x 4 bytes: about 0.5 FLOP/B.
  const Fired gemv = AdviseOn("- {name: gemv, gemm: {m: 1, n: 4096, k: 4096}, time: 0.004}\n");
  EXPECT_TRUE(gemv.Has("gemm_low_intensity"));
  const Fired square = AdviseOn("- {name: mm, gemm: {m: 1024, n: 1024, k: 1024}, time: 0.02}\n");
  EXPECT_FALSE(square.Has("gemm_low_intensity"));
}

TEST(AdviceRules, ComputeBelowPeak) {
  // 2.147e9 FLOPs at 100 GFLOP/s = 21.5 ms; 100 ms is 21% of the roof, 25 ms is 86%.
  const std::string mm = "- {name: mm, gemm: {m: 1024, n: 1024, k: 1024, dtype: fp64}, time: ";
  EXPECT_TRUE(AdviseOn(mm + "0.1}\n").Has("compute_below_peak"));
  EXPECT_FALSE(AdviseOn(mm + "0.025}\n").Has("compute_below_peak"));
  // Traffic without a ceiling (no L4 measured) may be the real bound: no kernel-tuning advice.
  const std::string l4 =
      "- {name: mm, gemm: {m: 1024, n: 1024, k: 1024, dtype: fp64}, "
      "bytes_by_level: {L4: 1e6}, time: 0.1}\n";
  EXPECT_FALSE(AdviseOn(l4).Has("compute_below_peak"));
}

TEST(AdviceRules, LowerPrecision) {
  // fp64 compute-bound; fp32 peak is 2x: advice. fp32 has nothing faster measured: none.
  const Fired fp64 = AdviseOn("- {name: mm, gemm: {m: 1024, n: 1024, k: 1024, dtype: fp64}}\n");
  EXPECT_TRUE(fp64.Has("lower_precision"));
  EXPECT_NE(fp64.advice[0].reason.find("this changes the numerical result"), std::string::npos)
      << fp64.advice[0].reason;
  EXPECT_DOUBLE_EQ(*fp64.advice[0].gain_seconds, 2147483648.0 / 100e9 - 2147483648.0 / 200e9);
  EXPECT_FALSE(AdviseOn("- {name: mm, gemm: {m: 1024, n: 1024, k: 1024, dtype: fp32}}\n")
                   .Has("lower_precision"));
}

TEST(AdviceRules, NetworkBound) {
  EXPECT_TRUE(
      AdviseOn("- {name: ar, collective: {op: all_reduce, bytes: 4e8, ranks: 4}, time: 0.2}\n")
          .Has("network_bound"));
  EXPECT_FALSE(AdviseOn("- {name: mm, flops: 1e10, bytes: 1e8, collective_bytes: 1e6, time: 0.2}\n")
                   .Has("network_bound"));
}

TEST(AdviceRules, SmallCollectives) {
  EXPECT_TRUE(
      AdviseOn("- {name: ar, collective: {op: all_reduce, bytes: 1e6, ranks: 4}, time: 1e-3}\n")
          .Has("small_collectives"));
  EXPECT_FALSE(AdviseOn("- {name: ar, collective: {op: all_reduce, bytes: 64e6, ranks: 4}}\n")
                   .Has("small_collectives"));
}

TEST(AdviceRules, HostTransferBound) {
  EXPECT_TRUE(AdviseOn("- {name: load, flops: 1e9, bytes: 1e8, host_bytes: 1e9, time: 0.125}\n")
                  .Has("host_transfer_bound"));
  EXPECT_FALSE(AdviseOn("- {name: load, flops: 1e9, bytes: 1e8, host_bytes: 1e6, time: 0.125}\n")
                   .Has("host_transfer_bound"));
}

TEST(AdviceRules, AboveRoof) {
  EXPECT_TRUE(AdviseOn("- {name: x, flops: 1e9, bytes: 1e9, time: 0.01}\n").Has("above_roof"));
  EXPECT_FALSE(AdviseOn("- {name: x, flops: 1e9, bytes: 1e9, time: 0.05}\n").Has("above_roof"));
}

TEST(AdviceRules, MemoryNearlyFull) {
  // 30 GB of the fixture's 32 GB device memory is 94%; 10 GB is 31%.
  const std::string points = "points: [{name: x, flops: 1e9, bytes: 1e9}]\n";
  const Fired full = AdviseOn("memory: {peak_bytes: 30e9}\n" + points);
  EXPECT_TRUE(full.Has("memory_nearly_full", "workload"));
  EXPECT_FALSE(AdviseOn("memory: {peak_bytes: 10e9}\n" + points).Has("memory_nearly_full"));
  // An explicit capacity wins over the device's.
  EXPECT_TRUE(AdviseOn("memory: {peak_bytes: 10e9, capacity_bytes: 10.5e9}\n" + points)
                  .Has("memory_nearly_full"));
  EXPECT_FALSE(AdviseOn(points).Has("memory_nearly_full"));
}

TEST(AdviceRules, MemoryDoesNotFit) {
  // 70 GB on the fixture's 32 GB device does not fit: not "nearly full (219%)".
  const std::string points = "points: [{name: x, flops: 1e9, bytes: 1e9}]\n";
  const Fired over = AdviseOn("memory: {peak_bytes: 70e9}\n" + points);
  EXPECT_TRUE(over.Has("memory_does_not_fit", "workload"));
  EXPECT_FALSE(over.Has("memory_nearly_full"));
  EXPECT_NE(over.advice[0].reason.find("does not fit"), std::string::npos) << over.advice[0].reason;
  EXPECT_FALSE(AdviseOn("memory: {peak_bytes: 30e9}\n" + points).Has("memory_does_not_fit"));
}

}  // namespace
}  // namespace xpuperf::roofline
