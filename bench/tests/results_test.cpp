#include "xpuperf/bench/results.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "xpuperf/bench/result_reader.h"
#include "xpuperf/core/json.h"

namespace xpuperf::bench {
namespace {

namespace fs = std::filesystem;

class ResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("xpuperf_results_test_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  static std::vector<Measurement> Measurements() {
    Measurement m;
    m.benchmark = "stream";
    m.metric = "triad_bandwidth";
    m.unit = "GB/s";
    m.sample_seconds = {0.002, 0.001, 0.003};
    m.statistics = ComputeStatistics(m.sample_seconds);
    m.bytes_per_repetition = 24e6;
    m.value = 24e6 / m.statistics.median / 1e9;
    m.parameters = {{"kernel", "triad"}, {"note", "a \"quoted\", text"}};
    m.formula = "bytes = 24 x 1e6";
    Measurement peak = m;
    peak.benchmark = "peak_fma";
    peak.metric = "fp64_flops";
    peak.unit = "GFLOP/s";
    peak.nominal_peak = 48;
    return {m, peak};
  }

  static RunInfo Run() {
    RunInfo run;
    run.host = "testhost";
    run.suite = "quick";
    run.timestamp_ns = 1'700'000'000'000'000'000;
    run.run_id = MakeRunId(run.timestamp_ns, run.host);
    run.device.backend = "cpu";
    run.device.id = "cpu0";
    run.device.model = "Test CPU";
    return run;
  }

  fs::path root_;
};

TEST_F(ResultsTest, WritesParseableFiles) {
  const fs::path dir = root_ / "run";
  ASSERT_TRUE(WriteResultDirectory(dir.string(), Measurements(), Run()).ok());
  std::ifstream jsonl(dir / "results.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(jsonl, line)) {
    const nlohmann::json record = nlohmann::json::parse(line);
    ++lines;
    for (const char* field :
         {"benchmark", "metric", "value", "unit", "parameters", "statistics", "samples_s", "device",
          "host", "run_id", "timestamp", "metadata", "xpuperf_version", "formula"}) {
      EXPECT_TRUE(record.contains(field)) << field;
    }
    EXPECT_EQ(record["json_schema_version"], kJsonSchemaVersion);
    EXPECT_EQ(record["run_id"], "20231114T221320Z-testhost");
    EXPECT_EQ(record["statistics"]["count"], 3);
    EXPECT_DOUBLE_EQ(record["timestamp"].get<double>(), 1.7e9);
  }
  EXPECT_EQ(lines, 2);
  std::ifstream csv(dir / "summary.csv");
  std::stringstream text;
  text << csv.rdbuf();
  EXPECT_NE(text.str().find("stream,triad_bandwidth,12,GB/s,0.002,0.5000,,,"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("\\\"\"quoted\\\"\""), std::string::npos);
  EXPECT_NE(text.str().find(",48,25.00,"), std::string::npos) << text.str();
  std::ifstream env(dir / "environment.json");
  const nlohmann::json environment = nlohmann::json::parse(env);
  EXPECT_TRUE(environment.contains("compiler"));
  EXPECT_TRUE(environment.contains("openblas"));
  // Only the final directory remains: no temporary sibling.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(root_)) ++entries;
  EXPECT_EQ(entries, 1);
}

// stable, its reasons and the machine's state are written and read back; a run that broke a
// consistency check says so in environment.json.
TEST_F(ResultsTest, StabilityRoundTrips) {
  std::vector<Measurement> measurements = Measurements();
  MarkUnstable(measurements[1], "busy machine: other processes used 48% of the 2 CPUs");
  MarkUnstable(measurements[1], "busy machine: other processes used 48% of the 2 CPUs");
  RunInfo run = Run();
  run.machine_window_start = MachineState{};
  run.machine_before = MachineState{};
  run.machine_after = MachineState{};
  run.inconsistencies = {"fp32 peak 8.4 is below fp64 peak 12.6 GFLOP/s"};
  const fs::path dir = root_ / "run";
  ASSERT_TRUE(WriteResultDirectory(dir.string(), measurements, run).ok());
  auto read = ReadResultDirectory(dir.string());
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_TRUE(read->records[0].measurement.stable);
  EXPECT_FALSE(read->records[1].measurement.stable);
  EXPECT_EQ(read->records[1].measurement.unstable_reasons,
            std::vector<std::string>{"busy machine: other processes used 48% of the 2 CPUs"});
  EXPECT_EQ(read->environment["inconsistencies"][0], run.inconsistencies[0]);
  EXPECT_TRUE(read->environment["machine_state"].contains("before"));
  EXPECT_TRUE(read->environment["machine_state"].contains("busy_at_start"));
  std::ifstream csv(dir / "summary.csv");
  std::stringstream text;
  text << csv.rdbuf();
  EXPECT_NE(text.str().find(",false,\"busy machine: other processes used 48% of the 2 CPUs\""),
            std::string::npos)
      << text.str();
}

TEST_F(ResultsTest, RefusesAnExistingDirectory) {
  fs::create_directories(root_ / "run");
  const Status status = WriteResultDirectory((root_ / "run").string(), Measurements(), Run());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(ResultsTest, FailureLeavesNoPartialFiles) {
  // The parent is a file, so nothing can be created under it.
  std::ofstream(root_ / "blocker") << "x";
  const Status status =
      WriteResultDirectory((root_ / "blocker" / "run").string(), Measurements(), Run());
  ASSERT_FALSE(status.ok());
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(root_)) ++entries;
  EXPECT_EQ(entries, 1);
}

}  // namespace
}  // namespace xpuperf::bench
