// `bench check --spec tpu-v5e` and `roofline` on a run of the PJRT benchmarks on a TPU
// (tests/data/pjrt-run: hand-made records as pjrt_* writes them, plus a host CPU record): both take
// the TPU's figures from bench/figures.h, and neither counts the CPU record. A shipped sheet is
// named without its path. Expected values are the fixture's. `compare` of that run with a later
// one (tests/data/pjrt-run-new: the same records, four with other samples) pairs every record.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "xpuperf/analysis/bench_check_command.h"
#include "xpuperf/bench_commands/compare_command.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/roofline/roofline_command.h"

namespace xpuperf::cli {
namespace {

const std::string kRun = std::string(XPUPERF_TEST_DATA_DIR) + "/pjrt-run";
const std::string kNewRun = std::string(XPUPERF_TEST_DATA_DIR) + "/pjrt-run-new";

const nlohmann::json* Row(const nlohmann::json& report, const std::string& metric) {
  for (const nlohmann::json& row : report["rows"]) {
    if (row["metric"] == metric) return &row;
  }
  return nullptr;
}

TEST(PjrtFiguresTest, BenchCheckAgainstAShippedTpuSheetByName) {
  analysis::BenchCheckOptions options;
  options.results = kRun;
  options.spec = "tpu-v5e";
  options.json = true;
  std::ostringstream out, err;
  // int8 misses its 90% (83.8%): the check fails, as it should.
  EXPECT_EQ(analysis::RunBenchCheck(options, out, err), kExitFailure) << err.str() << out.str();
  const nlohmann::json report = nlohmann::json::parse(out.str());
  EXPECT_EQ(report["sheet_device"], "TPU v5e") << report.dump(2);
  struct Expected {
    const char* metric;
    double measured;
    const char* benchmark;
    const char* verdict;
  };
  for (const Expected& e : {Expected{"bf16 FLOP/s", 180e12, "pjrt_gemm", "PASS"},
                            Expected{"int8 FLOP/s", 330e12, "pjrt_gemm", "FAIL"},
                            Expected{"triad bandwidth", 760e9, "pjrt_stream", "PASS"}}) {
    const nlohmann::json* row = Row(report, e.metric);
    ASSERT_NE(row, nullptr) << e.metric << "\n" << report.dump(2);
    ASSERT_TRUE((*row)["measured"].is_number()) << row->dump(2);
    EXPECT_DOUBLE_EQ((*row)["measured"].get<double>(), e.measured) << e.metric;
    EXPECT_EQ((*row)["measured_from"].get<std::string>().rfind(e.benchmark, 0), 0u) << row->dump(2);
  }
  // The network: pjrt_collectives' busbw against the sheet's ICI per direction (400 GB/s
  // bidirectional per chip on the Cloud TPU v5e page, 200 GB/s each way): 45 / 200 = 22.5%.
  const nlohmann::json* network = Row(report, "all_reduce busbw");
  ASSERT_NE(network, nullptr) << report.dump(2);
  EXPECT_EQ((*network)["component"], "network");
  EXPECT_DOUBLE_EQ((*network)["measured"].get<double>(), 45e9);
  EXPECT_DOUBLE_EQ((*network)["spec"].get<double>(), 200e9);
  EXPECT_NEAR((*network)["achieved_percent"].get<double>(), 22.5, 1e-9);
  EXPECT_EQ((*network)["verdict"], "FAIL");
  EXPECT_EQ((*network)["measured_from"].get<std::string>().rfind("pjrt_collectives", 0), 0u);
  EXPECT_NE((*network)["spec_from"].get<std::string>().find(
                "network_link.tx_bytes_per_second ICI: Cloud TPU documentation, TPU v5e "
                "(https://docs.cloud.google.com/tpu/docs/v5e)"),
            std::string::npos)
      << network->dump(2);
}

TEST(PjrtFiguresTest, RooflineSeesTheSameFigures) {
  roofline::RooflineOptions options;
  options.results_dir = kRun;
  options.spec = "none";
  options.json = true;
  std::ostringstream out, err;
  ASSERT_EQ(roofline::RunRoofline(options, out, err), kExitOk) << err.str();
  const nlohmann::json report = nlohmann::json::parse(out.str());
  std::map<std::string, std::pair<double, std::string>> ceilings;
  for (const nlohmann::json& c : report["ceilings"]) {
    ceilings[c["label"].get<std::string>()] = {c["value"].get<double>(),
                                               c["benchmark"].get<std::string>()};
  }
  const std::map<std::string, std::pair<double, std::string>> expected = {
      {"bf16 GEMM", {180e12, "pjrt_gemm"}},
      {"int8 GEMM", {330e12, "pjrt_gemm"}},
      {"HBM", {760e9, "pjrt_stream"}},
      {"all_reduce busbw", {45e9, "pjrt_collectives"}},
      {"host h2d", {20e9, "pjrt_host_transfer"}}};
  EXPECT_EQ(ceilings, expected) << report["ceilings"].dump(2);
}

// Two PJRT runs: every record pairs with its namesake (the TPU's and the host CPU's), and each
// verdict follows the metric's direction: bf16 GEMM faster (+11.1%), all_reduce busbw slower
// (-20%) and dispatch latency longer (+20%, worse), the rest unchanged.
TEST(PjrtFiguresTest, CompareTwoPjrtRuns) {
  bench_commands::CompareOptions options;
  options.old_path = kRun;
  options.new_path = kNewRun;
  options.json = true;
  std::ostringstream out, err;
  ASSERT_EQ(bench_commands::RunCompare(options, out, err), kExitOk) << err.str();
  const nlohmann::json report = nlohmann::json::parse(out.str());
  EXPECT_EQ(report["old_device"], "TPU v5 lite");
  EXPECT_EQ(report["new_device"], "TPU v5 lite");
  EXPECT_EQ(report["summary"]["improved"], 1) << report["summary"].dump();
  EXPECT_EQ(report["summary"]["regressed"], 2);
  EXPECT_EQ(report["summary"]["unchanged"], 4);
  EXPECT_EQ(report["summary"]["only_old"], 0);
  EXPECT_EQ(report["summary"]["only_new"], 0);
  struct Expected {
    const char* metric;
    double change_percent;
    const char* verdict;
  };
  std::map<std::string, const nlohmann::json*> compared;
  for (const nlohmann::json& c : report["compared"]) {
    compared[c["metric"].get<std::string>()] = &c;
  }
  for (const Expected& e : {Expected{"bf16_flops", 100.0 * (200000 - 180000) / 180000, "improved"},
                            Expected{"all_reduce_busbw", -20.0, "regressed"},
                            Expected{"dispatch_latency", 20.0, "regressed"},
                            Expected{"int8_ops", 0.0, "unchanged (noise)"},
                            Expected{"triad_bandwidth", 0.0, "unchanged (noise)"},
                            Expected{"h2d_bandwidth", 0.0, "unchanged (noise)"},
                            Expected{"fp64_flops", 0.0, "unchanged (noise)"}}) {
    ASSERT_TRUE(compared.count(e.metric)) << e.metric << "\n" << report.dump(2);
    const nlohmann::json& c = *compared[e.metric];
    EXPECT_NEAR(c["change_percent"].get<double>(), e.change_percent, 1e-9) << e.metric;
    EXPECT_EQ(c["verdict"], e.verdict) << c.dump(2);
  }
  // As a gate: the two regressions beyond 10% fail it, named in one line.
  options.json = false;
  options.fail_on_regression_percent = 10.0;
  std::ostringstream text, text_err;
  EXPECT_EQ(bench_commands::RunCompare(options, text, text_err), kExitFailure) << text_err.str();
  EXPECT_NE(text.str().find("FAIL: 2 regression(s) outside the noise larger than 10%: "
                            "pjrt_collectives all_reduce_busbw -20.0%; pjrt_dispatch "
                            "dispatch_latency +20.0%"),
            std::string::npos)
      << text.str();
}

}  // namespace
}  // namespace xpuperf::cli
