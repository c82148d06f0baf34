// `bench check` and `roofline` take a run's figures from the same code (bench/figures.h): on a run
// of gpu_* benchmarks (tests/data/gpu-run: the records of tests/data/check/h100 measured by the
// gpu_* benchmarks, a host CPU record and two gpu_l2_sweep points) both see the GPU's figures,
// and neither counts the CPU record. Expected values are the fixture's, computed by hand.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "xpuperf/analysis/bench_check_command.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/roofline/roofline_command.h"

namespace xpuperf::cli {
namespace {

const std::string kRun = std::string(XPUPERF_TEST_DATA_DIR) + "/gpu-run";

nlohmann::json CheckJson() {
  analysis::BenchCheckOptions options;
  options.results = kRun;
  options.spec = "auto";  // the shipped NVIDIA H100 SXM sheet, by the run's model name
  options.json = true;
  std::ostringstream out, err;
  EXPECT_EQ(analysis::RunBenchCheck(options, out, err), kExitFailure)
      << err.str();  // h2d misses 90%
  return nlohmann::json::parse(out.str());
}

const nlohmann::json* Row(const nlohmann::json& report, const std::string& metric) {
  for (const nlohmann::json& row : report["rows"]) {
    if (row["metric"] == metric) return &row;
  }
  return nullptr;
}

TEST(GpuFiguresTest, BenchCheckSeesTheGpuBenchmarks) {
  const nlohmann::json report = CheckJson();
  struct Expected {
    const char* metric;
    double measured;  // base units
    const char* benchmark;
  };
  for (const Expected& e : {Expected{"bf16 FLOP/s", 940e12, "gpu_gemm"},
                            Expected{"triad bandwidth", 3100e9, "gpu_stream"},
                            Expected{"all_reduce busbw", 430e9, "gpu_collectives"},
                            Expected{"h2d bandwidth", 55e9, "gpu_host_transfer"},
                            Expected{"d2h bandwidth", 60e9, "gpu_host_transfer"}}) {
    const nlohmann::json* row = Row(report, e.metric);
    ASSERT_NE(row, nullptr) << e.metric << "\n" << report.dump(2);
    ASSERT_TRUE((*row)["measured"].is_number()) << e.metric << "\n" << row->dump(2);
    EXPECT_DOUBLE_EQ((*row)["measured"].get<double>(), e.measured) << e.metric;
    EXPECT_EQ((*row)["measured_from"].get<std::string>().rfind(e.benchmark, 0), 0u) << row->dump(2);
  }
  // The host CPU's peak_fma fp64 record is not the run's device (the GPU): not measured.
  const nlohmann::json* fp64 = Row(report, "fp64 FLOP/s");
  ASSERT_NE(fp64, nullptr) << report.dump(2);
  EXPECT_EQ((*fp64)["verdict"], "not measured") << fp64->dump(2);
}

TEST(GpuFiguresTest, RooflineSeesTheSameFigures) {
  roofline::RooflineOptions options;
  options.results_dir = kRun;
  options.spec = "none";
  options.json = true;
  std::ostringstream out, err;
  ASSERT_EQ(roofline::RunRoofline(options, out, err), kExitOk) << err.str();
  const nlohmann::json report = nlohmann::json::parse(out.str());
  std::map<std::string, std::pair<double, std::string>> ceilings;  // label -> value, benchmark
  for (const nlohmann::json& c : report["ceilings"]) {
    ceilings[c["label"].get<std::string>()] = {c["value"].get<double>(),
                                               c["benchmark"].get<std::string>()};
  }
  const std::map<std::string, std::pair<double, std::string>> expected = {
      {"bf16 GEMM", {940e12, "gpu_gemm"}},       {"HBM", {3100e9, "gpu_stream"}},
      {"L2", {7000e9, "gpu_l2_sweep"}},          {"all_reduce busbw", {430e9, "gpu_collectives"}},
      {"host h2d", {55e9, "gpu_host_transfer"}}, {"host d2h", {60e9, "gpu_host_transfer"}}};
  EXPECT_EQ(ceilings, expected) << report["ceilings"].dump(2);
  // The report names the device of those ceilings, not the host CPU of the first record.
  EXPECT_EQ(report["run"]["backend"], "nvidia") << report["run"].dump();
  EXPECT_EQ(report["run"]["device_model"], "NVIDIA H100 80GB HBM3") << report["run"].dump();
}

}  // namespace
}  // namespace xpuperf::cli
