#include "xpuperf/bench/result_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "xpuperf/bench/results.h"

namespace xpuperf::bench {
namespace {

namespace fs = std::filesystem;

fs::path TempPath(const std::string& name) {
  return fs::temp_directory_path() /
         ("xpuperf-result-reader-" + std::to_string(getpid()) + "-" + name);
}

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
}

const char* kLine =
    R"({"benchmark":"stream","metric":"triad_bandwidth","value":31.5,"unit":"GB/s",)"
    R"("parameters":{"kernel":"triad"},"samples_s":[0.01,0.011,0.012],"json_schema_version":1,)"
    R"("device":{"backend":"cpu","model":"Test CPU","id":"cpu0"},"host":"h","run_id":"r1"})";

// kLine's record for another kernel: a file may not hold the same record twice.
std::string CopyLine() {
  std::string line = kLine;
  line.replace(line.find("triad_bandwidth"), 15, "copy_bandwidth");
  line.replace(line.find("\"triad\""), 7, "\"copy\"");
  return line;
}

TEST(ResultReaderTest, ParsesRecordsAndSkipsBlankLines) {
  auto records = ParseResultsJsonl(CopyLine() + "\n\n" + kLine + "\n", "results.jsonl");
  ASSERT_TRUE(records.ok()) << records.error().ToString();
  ASSERT_EQ(records->size(), 2u);
  const ResultRecord& r = (*records)[1];
  EXPECT_EQ(r.line, 3);
  EXPECT_EQ(r.measurement.benchmark, "stream");
  EXPECT_EQ(r.measurement.metric, "triad_bandwidth");
  EXPECT_DOUBLE_EQ(r.measurement.value, 31.5);
  EXPECT_EQ(r.measurement.unit, "GB/s");
  EXPECT_EQ(r.measurement.parameters["kernel"], "triad");
  EXPECT_EQ(r.measurement.sample_seconds, (std::vector<double>{0.01, 0.011, 0.012}));
  // No statistics object: computed from the samples.
  EXPECT_EQ(r.measurement.statistics.count, 3);
  EXPECT_DOUBLE_EQ(r.measurement.statistics.median, 0.011);
  EXPECT_EQ(r.device_model, "Test CPU");
  EXPECT_EQ(r.run_id, "r1");
}

TEST(ResultReaderTest, MalformedLinesNameTheLine) {
  const auto expect_error = [](const std::string& text, const std::string& message) {
    auto records = ParseResultsJsonl(text, "dir/results.jsonl");
    ASSERT_FALSE(records.ok()) << text;
    EXPECT_EQ(records.error().code, ErrorCode::kParse);
    EXPECT_EQ(records.error().message, message);
  };
  const std::string good = std::string(kLine) + "\n";
  expect_error(good + "{\"benchmark\": \n", "dir/results.jsonl:2: not valid JSON");
  expect_error(good + CopyLine() + "\n[1, 2]\n", "dir/results.jsonl:3: a record is a JSON object");
  expect_error(R"({"metric":"m","value":1,"unit":"GB/s"})",
               "dir/results.jsonl:1: missing text field 'benchmark'");
  expect_error(R"({"benchmark":"b","metric":"m","value":"fast","unit":"GB/s"})",
               "dir/results.jsonl:1: 'value' is missing or not a number");
  expect_error(R"({"benchmark":"b","metric":"m","value":1,"unit":"GB/s","samples_s":[1,"x"]})",
               "dir/results.jsonl:1: samples_s[1] is not a number");
  expect_error(R"({"benchmark":"b","metric":"m","value":1,"unit":"GB/s","parameters":[1]})",
               "dir/results.jsonl:1: 'parameters' is not an object");
  expect_error(R"({"benchmark":"b","metric":"m","value":1,"unit":"GB/s","json_schema_version":9})",
               "dir/results.jsonl:1: json_schema_version 9 is newer than this xpuperf reads (1)");
  expect_error(R"({"benchmark":"b","metric":"m","value":1,"unit":"GB/s","stable":"no"})",
               "dir/results.jsonl:1: 'stable' is not true or false");
  expect_error(R"({"benchmark":"b","metric":"m","value":1,"unit":"GB/s","unstable_reasons":[1]})",
               "dir/results.jsonl:1: 'unstable_reasons' holds something other than text");
}

TEST(ResultReaderTest, DuplicateRecordsNameBothLines) {
  auto twice = ParseResultsJsonl(std::string(kLine) + "\n\n" + kLine + "\n", "results.jsonl");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message,
            "results.jsonl:3: duplicates the record of line 1 (same run, device, benchmark, metric "
            "and parameters)");
  // Records compare as values, not as text: other spacing is still the same record.
  std::string reordered = kLine;
  reordered.replace(reordered.find(R"("parameters":{"kernel":"triad"})"), 31,
                    R"("parameters":{"kernel":"triad"}  )");
  EXPECT_FALSE(ParseResultsJsonl(std::string(kLine) + "\n" + reordered, "r").ok());
  // Another run in the same file (two runs merged) is not a duplicate.
  std::string other_run = kLine;
  other_run.replace(other_run.find("\"r1\""), 4, "\"r2\"");
  EXPECT_TRUE(ParseResultsJsonl(std::string(kLine) + "\n" + other_run, "r").ok());
}

TEST(ResultReaderTest, ReadsWhatTheWriterWrote) {
  const fs::path dir = TempPath("roundtrip");
  fs::remove_all(dir);
  Measurement m;
  m.benchmark = "peak_fma";
  m.metric = "fp64_flops";
  m.value = 101.5;
  m.unit = "GFLOP/s";
  m.parameters = {{"precision", "fp64"}, {"threads", 2}};
  m.sample_seconds = {0.5, 0.4, 0.6};
  m.statistics = ComputeStatistics(m.sample_seconds);
  m.flops_per_repetition = 5e7;
  m.nominal_peak = 78.25;
  RunInfo run;
  run.run_id = "20261130T000000Z-h";
  run.host = "h";
  run.suite = "quick";
  run.device.backend = "cpu";
  run.device.model = "Test CPU";
  run.device.id = "cpu0";
  run.device.topology.cores = 2;
  run.skipped = {"peak_fma {\"precision\":\"bf16\"}: unsupported: no AVX512_BF16"};
  ASSERT_TRUE(WriteResultDirectory(dir.string(), {m}, run).ok());

  auto read = ReadResultDirectory(dir.string());
  ASSERT_TRUE(read.ok()) << read.error().ToString();
  EXPECT_EQ(read->path, dir.string());
  ASSERT_EQ(read->records.size(), 1u);
  const Measurement& back = read->records[0].measurement;
  EXPECT_EQ(back.benchmark, "peak_fma");
  EXPECT_DOUBLE_EQ(back.value, 101.5);
  EXPECT_EQ(back.parameters, m.parameters);
  EXPECT_EQ(back.sample_seconds, m.sample_seconds);
  EXPECT_DOUBLE_EQ(back.statistics.median, 0.5);
  EXPECT_DOUBLE_EQ(back.flops_per_repetition, 5e7);
  EXPECT_DOUBLE_EQ(*back.nominal_peak, 78.25);
  EXPECT_EQ(read->device.model, "Test CPU");
  EXPECT_EQ(read->device.backend, "cpu");
  EXPECT_EQ(read->device.topology.cores, 2);
  EXPECT_EQ(read->run_id, "20261130T000000Z-h");
  EXPECT_EQ(read->suite, "quick");
  EXPECT_EQ(read->skipped, run.skipped);
  fs::remove_all(dir);
}

TEST(ResultReaderTest, DirectoryErrors) {
  auto missing = ReadResultDirectory("/no/such/results");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().message, "no result directory /no/such/results");

  const fs::path dir = TempPath("errors");
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto empty = ReadResultDirectory(dir.string());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ErrorCode::kNotFound);
  EXPECT_NE(empty.error().message.find("has no results.jsonl"), std::string::npos);

  WriteText(dir / "results.jsonl", std::string(kLine) + "\nnot json\n");
  auto bad = ReadResultDirectory(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, (dir / "results.jsonl").string() + ":2: not valid JSON");

  // Without environment.json the device comes from the first record.
  WriteText(dir / "results.jsonl", std::string(kLine) + "\n");
  auto no_env = ReadResultDirectory(dir.string());
  ASSERT_TRUE(no_env.ok()) << no_env.error().ToString();
  EXPECT_EQ(no_env->device.model, "Test CPU");
  EXPECT_EQ(no_env->run_id, "r1");

  WriteText(dir / "environment.json", "{ broken");
  auto bad_env = ReadResultDirectory(dir.string());
  ASSERT_FALSE(bad_env.ok());
  EXPECT_EQ(bad_env.error().code, ErrorCode::kParse);
  EXPECT_NE(bad_env.error().message.find("environment.json: not a JSON object"), std::string::npos);

  auto file = ReadResultDirectory((dir / "results.jsonl").string());
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().code, ErrorCode::kInvalidArgument);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace xpuperf::bench
