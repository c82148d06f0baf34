// Shared fixtures of the roofline tests: the hand-made result directories under tests/data.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "xpuperf/roofline/bench_results.h"
#include "xpuperf/roofline/ceilings.h"

namespace xpuperf::roofline::testing {

inline std::string DataPath(const std::string& name) {
  return std::string(XPUPERF_TEST_DATA_DIR) + "/" + name;
}

// results-cpu: fp64 peak 100 GFLOP/s, fp32 peak 200, best fp32 GEMM 170; L1 400, L2 200,
// L3 100 GB/s; DRAM (STREAM triad) 25 GB/s; host h2d 10, d2h 8 GB/s; all_reduce busbw 4 GB/s.
inline BenchResults CpuResults() {
  Result<BenchResults> results = ReadBenchResults(DataPath("results-cpu"));
  EXPECT_TRUE(results.ok()) << (results.ok() ? "" : results.error().message);
  return results.ok() ? *results : BenchResults{};
}

inline Ceilings CpuCeilings() { return CeilingsFromResults(CpuResults()); }

}  // namespace xpuperf::roofline::testing
