// `xpuperf bench check` on hand-made result directories (tests/data/check). Expected percentages
// are computed by hand from the fixture values and the sheets.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_util.h"
#include "xpuperf/analysis/bench_check_command.h"
#include "xpuperf/core/exit_code.h"

namespace xpuperf::cli {
namespace {

const std::string kData = std::string(XPUPERF_TEST_DATA_DIR) + "/check";
const std::string kTrees = XPUPERF_CPU_TREES;

struct Output {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Output Check(const std::string& dir, const std::string& spec, bool json = false,
             analysis::CheckThresholds thresholds = {}, const std::string& root = "/") {
  analysis::BenchCheckOptions options;
  options.results = kData + "/" + dir;
  options.spec = spec;
  options.json = json;
  options.thresholds = thresholds;
  options.root = root;
  std::ostringstream out, err;
  Output result;
  result.exit_code = analysis::RunBenchCheck(options, out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BenchCheckTest, PassesWhenEveryMeasuredComponentReachesItsThreshold) {
  const Output r = Check("pass", kData + "/test-sheet.yaml");
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  // fp64: 95 GFLOP/s of 100; triad: 92 GB/s of 100.
  EXPECT_TRUE(Contains(r.out, "95.00 GFLOP/s")) << r.out;
  EXPECT_TRUE(Contains(r.out, "95.0%")) << r.out;
  EXPECT_TRUE(Contains(r.out, "92.0%")) << r.out;
  EXPECT_TRUE(Contains(r.out, "PASS: every measured figure")) << r.out;
  // The run has no network or host-transfer records.
  EXPECT_TRUE(Contains(r.out, "network        busbw")) << r.out;
  EXPECT_TRUE(Contains(r.out, "not measured")) << r.out;
  EXPECT_TRUE(Contains(r.out, "no collective <op>_busbw record")) << r.out;
}

TEST(BenchCheckTest, MissedThresholdExitsOne) {
  const Output r = Check("miss", kData + "/test-sheet.yaml");
  EXPECT_EQ(r.exit_code, kExitFailure) << r.out;
  EXPECT_TRUE(Contains(r.out, "FAIL: 1 below threshold: memory triad bandwidth 80.0% < 90%"))
      << r.out;
  // A lower memory threshold accepts the same run.
  analysis::CheckThresholds lenient;
  lenient.memory = 75;
  EXPECT_EQ(Check("miss", kData + "/test-sheet.yaml", false, lenient).exit_code, kExitOk);
}

TEST(BenchCheckTest, JsonOutput) {
  const Output r = Check("miss", kData + "/test-sheet.yaml", true);
  EXPECT_EQ(r.exit_code, kExitFailure);
  const nlohmann::json json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["passed"], false);
  EXPECT_EQ(json["sheet_device"], "Test GPU");
  bool found = false;
  for (const auto& row : json["rows"]) {
    if (row["metric"] != "triad bandwidth") continue;
    found = true;
    EXPECT_DOUBLE_EQ(row["measured"].get<double>(), 80e9);
    EXPECT_DOUBLE_EQ(row["spec"].get<double>(), 100e9);
    EXPECT_EQ(row["verdict"], "FAIL");
  }
  EXPECT_TRUE(found);
}

TEST(BenchCheckTest, AutoPicksTheShippedSheetByTheDriverModelName) {
  const Output r = Check("h100", "auto");
  // bf16 940 / 989.5 TFLOP/s = 95.0%; triad 3100 / 3350 GB/s = 92.5%; all_reduce busbw at the
  // largest message 430 / 450 GB/s = 95.6%; h2d 55 / 64 GB/s = 85.9% (FAIL); d2h 60 / 64 = 93.8%.
  EXPECT_EQ(r.exit_code, kExitFailure) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "against NVIDIA H100 SXM")) << r.out;
  EXPECT_TRUE(Contains(r.out, "940.00 TFLOP/s")) << r.out;
  EXPECT_TRUE(Contains(r.out, "989.50 TFLOP/s")) << r.out;
  EXPECT_TRUE(Contains(r.out, "95.0%")) << r.out;
  EXPECT_TRUE(Contains(r.out, "92.5%")) << r.out;
  EXPECT_TRUE(Contains(r.out, "95.6%")) << r.out;
  EXPECT_TRUE(Contains(r.out, "all_reduce busbw")) << r.out;
  EXPECT_TRUE(Contains(r.out, "FAIL: 1 below threshold: host_transfer h2d bandwidth 85.9% < 90%"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "93.8%")) << r.out;
  // fp8 is on the sheet but was not measured; fp64 has a vector and a tensor row.
  EXPECT_TRUE(Contains(r.out, "fp8 FLOP/s")) << r.out;
  EXPECT_TRUE(Contains(r.out, "fp64 tensor FLOP/s")) << r.out;
  EXPECT_TRUE(Contains(r.out, "34.00 TFLOP/s")) << r.out;
  EXPECT_TRUE(Contains(r.out, "NVIDIA H100 Tensor Core GPU datasheet")) << r.out;
}

TEST(BenchCheckTest, AutoComputesTheSheetOfThisMachinesCpu) {
  // The recorded Ryzen: 6 cores x 2 x 4 x 2 x 3.975 GHz = 381.6 GFLOP/s fp64; 360 is 94.3%.
  const Output r = Check("ryzen", "auto", false, {}, kTrees + "/amd-zen");
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "computed from this machine")) << r.out;
  EXPECT_TRUE(Contains(r.out, "381.60 GFLOP/s")) << r.out;
  EXPECT_TRUE(Contains(r.out, "94.3%")) << r.out;
  // No SMBIOS table in the tree: the memory check says so instead of passing or failing.
  EXPECT_TRUE(Contains(r.out, "memory: unknown (no SMBIOS memory device table")) << r.out;
  EXPECT_TRUE(Contains(r.out, "no spec")) << r.out;
}

TEST(BenchCheckTest, AutoRefusesAnotherMachinesCpu) {
  const Output r = Check("other-cpu", "auto", false, {}, kTrees + "/amd-zen");
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(
      r.err,
      "xpuperf bench check: error: the run's CPU 'Other CPU' is not this machine's 'AMD Ryzen 5 "
      "5600X 6-Core Processor': the computed CPU sheet describes this machine; pass --spec "
      "FILE\n");
}

TEST(BenchCheckTest, ErrorsAreOneLineWithExitCodes) {
  Output r = Check("unknown-gpu", "auto");
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_TRUE(Contains(r.err,
                       "xpuperf bench check: error: no spec sheet for device 'NVIDIA X1' (backend "
                       "nvidia)"))
      << r.err;
  r = Check("no-such-dir", "auto");
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_EQ(r.err, "xpuperf bench check: error: no result directory " + kData + "/no-such-dir\n");
  r = Check("malformed", kData + "/test-sheet.yaml");
  EXPECT_EQ(r.exit_code, kExitFailure);
  EXPECT_EQ(r.err, "xpuperf bench check: error: " + kData +
                       "/malformed/results.jsonl:3: not valid JSON\n");
  r = Check("pass", kData + "/bad-sheet.yaml");
  EXPECT_EQ(r.exit_code, kExitFailure);
  EXPECT_EQ(r.err, "xpuperf bench check: error: " + kData +
                       "/bad-sheet.yaml:5: 'peak_flops_per_second.fp64' is not a number\n");
  r = Check("pass", kData + "/no-such-sheet.yaml");
  EXPECT_EQ(r.exit_code, kExitUsage);
  analysis::CheckThresholds bad;
  bad.network = -5;
  r = Check("pass", kData + "/test-sheet.yaml", false, bad);
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_TRUE(Contains(r.err, "--network must be a percentage")) << r.err;
}

TEST(BenchCheckTest, CommandLine) {
  using testing::RunXpuperf;
  auto r = RunXpuperf({"bench", "check", kData + "/miss", "--spec", kData + "/test-sheet.yaml",
                       "--memory", "75", "--compute", "90"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, ">= 75%")) << r.out;
  r = RunXpuperf({"bench", "check", kData + "/miss", "--spec", kData + "/test-sheet.yaml"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  r = RunXpuperf(
      {"bench", "check", kData + "/pass", "--spec", kData + "/test-sheet.yaml", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["passed"], true);
  r = RunXpuperf({"bench", "check"});
  EXPECT_EQ(r.exit_code, 2);
  r = RunXpuperf({"bench", "check", kData + "/missing-dir"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "xpuperf bench check: error: no result directory " + kData + "/missing-dir\n");
}

TEST(BenchCheckTest, ExportWritesTheCheckForServeEvenWhenItFails) {
  const std::string path = ::testing::TempDir() + "bench-check-export.json";
  analysis::BenchCheckOptions options;
  options.results = kData + "/miss";
  options.spec = kData + "/test-sheet.yaml";
  options.export_path = path;
  std::ostringstream out, err;
  EXPECT_EQ(analysis::RunBenchCheck(options, out, err), kExitFailure) << err.str();
  std::ifstream file(path);
  const nlohmann::json exported = nlohmann::json::parse(file);
  EXPECT_FALSE(exported["passed"].get<bool>());
  EXPECT_EQ(exported["results"], options.results);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(exported["checked_at_unix_seconds"].get<double>(), now, 60);
  bool memory_failed = false;
  for (const nlohmann::json& row : exported["rows"]) {
    memory_failed |= row["component"] == "memory" && row["verdict"] == "FAIL";
  }
  EXPECT_TRUE(memory_failed) << exported.dump();
  std::filesystem::remove(path);

  // An unwritable export path is a usage error found before the check runs.
  options.export_path = "/nonexistent-dir/check.json";
  std::ostringstream out2, err2;
  EXPECT_EQ(analysis::RunBenchCheck(options, out2, err2), kExitUsage);
  EXPECT_TRUE(out2.str().empty());
  EXPECT_NE(err2.str().find("--export"), std::string::npos) << err2.str();
}

}  // namespace
}  // namespace xpuperf::cli
