#include "xpuperf/roofline/roofline_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_util.h"
#include "xpuperf/core/exit_code.h"

namespace xpuperf::cli {
namespace {

namespace fs = std::filesystem;

const std::string kData = std::string(XPUPERF_TEST_DATA_DIR) + "/roofline";

struct Output {
  int code;
  std::string out, err;
};

Output Roofline(const roofline::RooflineOptions& options, bool diagnose = false) {
  std::ostringstream out, err;
  const int code = diagnose ? roofline::RunDiagnose(options, out, err)
                            : roofline::RunRoofline(options, out, err);
  return {code, out.str(), err.str()};
}

roofline::RooflineOptions Options() {
  roofline::RooflineOptions o;
  o.results_dir = kData + "/results-cpu";
  o.spec = "none";
  return o;
}

fs::path TempDir() {
  const fs::path dir = fs::temp_directory_path() / ("roofline-cmd-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(RooflineCommand, TextShowsCeilingsAndCommandLinePoint) {
  roofline::RooflineOptions o = Options();
  o.flops = 1e9;
  o.bytes = 1e9;
  o.time_seconds = 0.05;
  const Output r = Roofline(o);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("fp64 peak"), std::string::npos);
  EXPECT_NE(r.out.find("25 GB/s"), std::string::npos);
  EXPECT_NE(r.out.find("command line"), std::string::npos);
  EXPECT_NE(r.out.find("memory DRAM"), std::string::npos);
}

// The report's measured ceilings are the benchmark results, unchanged.
TEST(RooflineCommand, JsonCeilingsEqualTheRecordedResults) {
  roofline::RooflineOptions o = Options();
  o.json = true;
  const Output r = Roofline(o);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  std::ifstream lines(kData + "/results-cpu/results.jsonl");
  std::vector<nlohmann::json> records;
  for (std::string line; std::getline(lines, line);) records.push_back(nlohmann::json::parse(line));
  int measured = 0;
  for (const auto& ceiling : report["ceilings"]) {
    if (ceiling["source"] != "measured") continue;
    ++measured;
    bool found = false;
    for (const auto& record : records) {
      found = found || (record["benchmark"] == ceiling["benchmark"] &&
                        record["metric"] == ceiling["metric"] &&
                        record["value"].get<double>() == ceiling["recorded_value"].get<double>());
    }
    EXPECT_TRUE(found) << ceiling.dump();
  }
  EXPECT_EQ(measured, 12);  // fp64/fp32 peak and GEMM, L1-L3, DRAM, h2d, d2h, 2 busbw
}

// A run recorded on an AVX2-only CPU (AMD EPYC Zen 3 VM, oneDNN 2.6.3, a loaded machine, so the
// values are low): peak_fma int8 (the AVX2 vpmaddubsw sequence) and oneDNN's int8 GEMM give int8
// ceilings in OP/s next to fp32/fp64; bf16 was skipped there (no avx512_bf16), so no bf16 roof.
TEST(RooflineCommand, Int8CeilingsFromARecordedCpuRun) {
  roofline::RooflineOptions o = Options();
  o.results_dir = kData + "/results-cpu-int8";
  const Output text = Roofline(o);
  ASSERT_EQ(text.code, kExitOk) << text.err;
  EXPECT_NE(text.out.find("int8 peak  52.19 GOP/s"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("int8 GEMM  12.02 GOP/s"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("bf16"), std::string::npos) << text.out;
  o.json = true;
  const Output json = Roofline(o);
  ASSERT_EQ(json.code, kExitOk) << json.err;
  const nlohmann::json report = nlohmann::json::parse(json.out);
  int int8 = 0;
  for (const auto& ceiling : report["ceilings"]) {
    if (ceiling["scope"] != "int8") continue;
    ++int8;
    EXPECT_EQ(ceiling["unit"], "OP/s");
    EXPECT_EQ(ceiling["recorded_unit"], "GOP/s");
    EXPECT_DOUBLE_EQ(ceiling["value"].get<double>(), ceiling["recorded_value"].get<double>() * 1e9);
  }
  EXPECT_EQ(int8, 2);  // peak_fma int8_ops and gemm int8_ops
}

TEST(RooflineCommand, WritesSvgAndHtml) {
  const fs::path dir = TempDir();
  roofline::RooflineOptions o = Options();
  o.workload_file = kData + "/workload.yaml";
  o.svg = (dir / "r.svg").string();
  o.html = (dir / "r.html").string();
  const Output r = Roofline(o);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(fs::file_size(o.svg) > 1000);
  EXPECT_TRUE(fs::file_size(o.html) > fs::file_size(o.svg));
  EXPECT_NE(r.out.find("host_transfer_bound"), std::string::npos);
  fs::remove_all(dir);
}

TEST(RooflineCommand, BadInputIsAUsageErrorAndWritesNothing) {
  const fs::path dir = TempDir();
  roofline::RooflineOptions o = Options();
  o.workload_file = kData + "/no-such-workload.yaml";
  o.html = (dir / "bad.html").string();
  Output r = Roofline(o);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_EQ(r.err.rfind("xpuperf roofline: error: ", 0), 0u) << r.err;
  EXPECT_FALSE(fs::exists(o.html));
  o = Options();
  o.results_dir = kData + "/missing";
  EXPECT_EQ(Roofline(o).code, kExitUsage);
  o = Options();
  o.time_seconds = 1;  // a time without counts
  EXPECT_EQ(Roofline(o).code, kExitUsage);
  o = Options();
  o.spec = kData + "/missing-spec.yaml";
  EXPECT_NE(Roofline(o).code, kExitOk);
  o = Options();
  o.html = "/nonexistent-dir/report.html";
  r = Roofline(o);
  // A refused output path is a usage error, found before any work (docs/POLICIES.md).
  EXPECT_EQ(r.code, kExitUsage);
  fs::remove_all(dir);
}

TEST(DiagnoseCommand, VerdictsAndAdviceOnly) {
  roofline::RooflineOptions o = Options();
  EXPECT_EQ(Roofline(o, /*diagnose=*/true).code, kExitUsage);  // needs a workload
  o.workload_file = kData + "/workload.yaml";
  o.json = true;
  const Output r = Roofline(o, /*diagnose=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json json = nlohmann::json::parse(r.out);
  EXPECT_FALSE(json.contains("ceilings"));
  ASSERT_EQ(json["points"].size(), 2u);
  EXPECT_EQ(json["points"][0]["bound"], "memory");
  EXPECT_EQ(json["points"][1]["bound"], "host_link");
  EXPECT_EQ(json["advice"][0]["rule"], "host_transfer_bound");
}

TEST(RooflineCommand, EndToEndThroughTheExecutable) {
  const auto r = testing::RunXpuperf({"roofline", kData + "/results-cpu", "--workload",
                                      kData + "/workload.yaml", "--spec", "auto", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json json = nlohmann::json::parse(r.out);
  // No shipped sheet names the fixture's CPU, and the computed sheet describes only this machine.
  const std::string note = json["spec"]["note"].get<std::string>();
  EXPECT_NE(note.find("no spec comparison: the run's CPU 'Fixture CPU' is not this machine's"),
            std::string::npos)
      << note;
  const auto d = testing::RunXpuperf({"diagnose", kData + "/results-cpu"});
  EXPECT_EQ(d.exit_code, 2);
}

}  // namespace
}  // namespace xpuperf::cli
