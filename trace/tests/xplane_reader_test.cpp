#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "xpuperf/core/input_file.h"
#include "xpuperf/trace/analysis_registry.h"
#include "xpuperf/trace/chrome_export.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/trace/report.h"
#include "xpuperf/trace/xplane.h"
#include "xspace_builder.h"

namespace xpuperf::trace {
namespace {

using testing::SampleTpuXSpace;

const TraceEvent* FindEvent(const Trace& t, std::string_view name, size_t nth = 0) {
  for (const TraceEvent& e : t.events) {
    if (t.Name(e) == name && nth-- == 0) return &e;
  }
  return nullptr;
}

TEST(XPlaneReaderTest, MapsDevicePlaneLinesAndTimes) {
  auto parsed = ParseXSpace(SampleTpuXSpace(), "sample.xplane.pb");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const Trace& t = *parsed;
  EXPECT_EQ(t.format, TraceFormat::kXPlane);
  const int64_t t0 = 1'764'000'000'000'000'000;
  const TraceEvent* conv = FindEvent(t, "convolution.2", 1);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->kind, EventKind::kKernel);
  EXPECT_EQ(t.Category(*conv), kXlaOpsCategory);
  EXPECT_EQ(conv->device, 0);
  EXPECT_EQ(conv->stream, 12);
  // offset 12 ms + 1 ms + 3.5 us... in ps: 12'000'000 + 1'000'000 + 3'500'000 ps = 16.5 us.
  EXPECT_EQ(conv->ts_ns, t0 + 16'500);
  EXPECT_EQ(conv->dur_ns, 4'000);
  const TraceEvent* module = FindEvent(t, "jit_train_step(123)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->kind, EventKind::kGpuUserAnnotation);
  EXPECT_EQ(t.Category(*module), kXlaModulesCategory);
  const TraceEvent* step = FindEvent(t, "2");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(t.Category(*step), kXlaStepsCategory);
  EXPECT_EQ(step->dur_ns, 10'000);
  // The host's XLA:CPU op, and nothing from /host:metadata.
  const TraceEvent* host_op = FindEvent(t, "ynn_fusion");
  ASSERT_NE(host_op, nullptr);
  EXPECT_EQ(host_op->device, -1);
  EXPECT_EQ(t.Category(*host_op), kXlaOpsCategory);
  EXPECT_EQ(host_op->tid, 4242);
  EXPECT_EQ(t.strings.Get(host_op->module), "jit_f");
  EXPECT_EQ(FindEvent(t, "x"), nullptr);
  EXPECT_EQ(t.events.size(), 2u + 2u + 4u + 1u);
  EXPECT_TRUE(std::is_sorted(t.events.begin(), t.events.end(),
                             [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; }));
  // Facts from the metadata's stats (str, ref, uint and double values).
  const auto fusion = t.xla_ops.find(static_cast<uint32_t>(t.strings.Find("fusion.1")));
  ASSERT_NE(fusion, t.xla_ops.end());
  EXPECT_EQ(t.strings.Get(fusion->second.category), "loop fusion");
  EXPECT_EQ(fusion->second.flops, 1000);
  EXPECT_EQ(fusion->second.bytes_accessed, 4096);
  const auto convolution = t.xla_ops.find(static_cast<uint32_t>(t.strings.Find("convolution.2")));
  ASSERT_NE(convolution, t.xla_ops.end());
  EXPECT_EQ(t.strings.Get(convolution->second.category), "convolution");
  EXPECT_EQ(convolution->second.flops, 8'000'000);
  EXPECT_EQ(convolution->second.bytes_accessed, -1);
}

const Table* TableOf(const AnalysisOutput& out, std::string_view key) {
  for (const Table& t : out.tables) {
    if (t.json_key == key) return &t;
  }
  return nullptr;
}

TEST(XPlaneReaderTest, AnalysesGiveDistributionsStepsAndBusyTime) {
  auto parsed = ParseXSpace(SampleTpuXSpace(), "sample.xplane.pb");
  ASSERT_TRUE(parsed.ok());
  AnalysisContext context;
  auto ops = FindRegisteredAnalysis("xla_ops")->compute(*parsed, context);
  const Table* by_op = TableOf(ops, "by_op");
  ASSERT_NE(by_op, nullptr);
  ASSERT_EQ(by_op->rows.size(), 3u);
  // convolution.2: 2 x 4 us = 8 us; fusion.1: 2 us + 3 us; ynn_fusion 50 ns.
  EXPECT_EQ(by_op->rows[0][0].text, "convolution.2");
  EXPECT_EQ(by_op->rows[0][2].integer, 2);
  EXPECT_EQ(by_op->rows[0][3].integer, 8'000);
  EXPECT_EQ(by_op->rows[1][0].text, "fusion.1");
  EXPECT_EQ(by_op->rows[1][4].integer, 2'000);  // p50 (nearest rank of {2, 3} us)
  EXPECT_EQ(by_op->rows[1][5].integer, 3'000);  // p90
  EXPECT_EQ(by_op->rows[1][1].text, "loop fusion");
  // 8e6 flops x 2 / 8000 ns = 2000 GFLOP/s
  EXPECT_DOUBLE_EQ(by_op->rows[0][9].number, 2000.0);
  EXPECT_EQ(by_op->rows[0][10].text, "-");

  auto steps = FindRegisteredAnalysis("xla_steps")->compute(*parsed, context);
  const Table* step_table = TableOf(steps, "steps");
  ASSERT_NE(step_table, nullptr);
  ASSERT_EQ(step_table->rows.size(), 1u);
  EXPECT_EQ(step_table->rows[0][0].text, "device 0");
  EXPECT_EQ(step_table->rows[0][1].integer, 2);
  const Table* modules = TableOf(steps, "modules");
  ASSERT_NE(modules, nullptr);
  ASSERT_EQ(modules->rows.size(), 1u);
  EXPECT_EQ(modules->rows[0][0].text, "jit_train_step(123)");

  auto devices = FindRegisteredAnalysis("xla_devices")->compute(*parsed, context);
  const Table* device_table = TableOf(devices, "devices");
  ASSERT_NE(device_table, nullptr);
  ASSERT_EQ(device_table->rows.size(), 2u);  // host, device 0
  EXPECT_EQ(device_table->rows[1][0].text, "device 0");
  // window 1 us .. 12+1+3.5+4 = 20.5 us; busy 2+4+3+4 = 13 us
  EXPECT_EQ(device_table->rows[1][2].integer, 19'500);
  EXPECT_EQ(device_table->rows[1][3].integer, 13'000);
  EXPECT_EQ(device_table->rows[1][4].integer, 6'500);
}

TEST(XPlaneReaderTest, MalformedInputIsAParseErrorWithAnOffset) {
  const std::string good = SampleTpuXSpace();
  for (size_t cut : {size_t{1}, size_t{7}, good.size() / 2, good.size() - 1}) {
    auto parsed = ParseXSpace(std::string_view(good).substr(0, cut), "cut.xplane.pb");
    ASSERT_FALSE(parsed.ok()) << cut;
    EXPECT_EQ(parsed.error().code, ErrorCode::kParse);
    EXPECT_NE(parsed.error().message.find("cut.xplane.pb: malformed XSpace"), std::string::npos)
        << parsed.error().message;
    EXPECT_NE(parsed.error().message.find("byte"), std::string::npos) << parsed.error().message;
  }
  // An 11-byte varint, a group, field number 0.
  for (std::string bad : {std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12),
                          std::string("\x0b\x0c", 2), std::string("\x00\x01", 2),
                          std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11)}) {
    auto parsed = ParseXSpace(bad, "bad.xplane.pb");
    EXPECT_FALSE(parsed.ok());
  }
  // JSON is not an XSpace.
  EXPECT_FALSE(ParseXSpace(R"({"traceEvents": []})", "j.xplane.pb").ok());
  // Empty: a valid empty XSpace.
  auto empty = ParseXSpace("", "empty.xplane.pb");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->events.empty());
}

TEST(XPlaneReaderTest, OutOfRangeTimesAreSkippedNotWrapped) {
  using testing::XPlaneSpec;
  XPlaneSpec plane{1, "/device:GPU:3", {}, {}};
  plane.lines.push_back({1,
                         "XLA Ops",
                         INT64_MAX - 10,
                         {{"a", INT64_MAX, 10, {}},
                          {"b", 0, INT64_MAX, {}},
                          {"c", -5'000, -1, {}},
                          {"d", 0, 1000, {}}}});
  plane.lines.push_back({2, "XLA Ops", 1000, {{"e", -1'500, 1'000, {}}, {"f", 1, INT64_MAX, {}}}});
  auto parsed = ParseXSpace(testing::XSpaceBuilder().Plane(plane).Build(), "range.xplane.pb");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->events.size(), 1u);
  EXPECT_EQ(parsed->Name(parsed->events[0]), "e");
  EXPECT_EQ(parsed->events[0].ts_ns, 998);  // 1000 ns + floor(-1.5 ns)
  EXPECT_EQ(parsed->events[0].dur_ns, 1);   // floor(-0.5) - floor(-1.5)
  EXPECT_EQ(parsed->events[0].device, 3);
  EXPECT_EQ(parsed->skipped_events, 5);
}

TEST(XPlaneReaderTest, InvalidUtf8NamesAreRepairedSoJsonCanBeWritten) {
  using testing::XPlaneSpec;
  // A lone continuation byte, an overlong '/', a surrogate, a truncated sequence; and valid text.
  XPlaneSpec plane{1, "/device:TPU:0", {}, {}};
  plane.lines.push_back({1,
                         "XLA Ops",
                         0,
                         {{std::string("a\x80") + "b", 0, 1000, {}},
                          {"\xc0\xaf", 0, 1000, {}},
                          {"\xed\xa0\x80", 0, 1000, {}},
                          {"x\xe2\x82", 0, 1000, {}},
                          {"\xe2\x82\xac\xf0\x9f\x98\x80", 0, 1000, {}}}});
  auto parsed = ParseXSpace(testing::XSpaceBuilder().Plane(plane).Build(), "utf8.xplane.pb");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  std::set<std::string> names;
  for (const TraceEvent& e : parsed->events) names.insert(std::string(parsed->Name(e)));
  EXPECT_TRUE(
      names.count("a\xef\xbf\xbd"
                  "b"));
  EXPECT_TRUE(names.count("\xef\xbf\xbd\xef\xbf\xbd"));
  EXPECT_TRUE(names.count("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"));
  EXPECT_TRUE(names.count("x\xef\xbf\xbd\xef\xbf\xbd"));
  EXPECT_TRUE(names.count("\xe2\x82\xac\xf0\x9f\x98\x80"));  // valid: kept
  TraceRun run;
  run.ranks.push_back(std::move(parsed).value());
  EXPECT_NO_THROW((void)ToJson(AnalyzeRun(run, 10)).dump());
}

TEST(XPlaneReaderTest, GpuStreamsAreOpsOnlyWithoutAnXlaOpsLine) {
  using testing::XPlaneSpec;
  XPlaneSpec cupti{
      1, "/device:GPU:0", {{7, "Stream #7(Compute)", 0, {{"gemm_kernel", 0, 5000, {}}}}}, {}};
  auto only_streams = ParseXSpace(testing::XSpaceBuilder().Plane(cupti).Build(), "g.xplane.pb");
  ASSERT_TRUE(only_streams.ok());
  ASSERT_EQ(only_streams->events.size(), 1u);
  EXPECT_EQ(only_streams->events[0].kind, EventKind::kKernel);
  cupti.lines.push_back({8, "XLA Ops", 0, {{"fusion", 0, 5000, {}}}});
  auto both = ParseXSpace(testing::XSpaceBuilder().Plane(cupti).Build(), "g.xplane.pb");
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->events.size(), 2u);
  for (const TraceEvent& e : both->events) {
    EXPECT_EQ(e.kind, both->Name(e) == "fusion" ? EventKind::kKernel : EventKind::kOther);
  }
}

TEST(XPlaneReaderTest, FilesAndDirectoriesReadThroughTheRunReader) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("xplane-run-" + std::to_string(::getpid()));
  const fs::path run_dir = dir / "plugins" / "profile" / "2026_01_01_00_00_00";
  fs::create_directories(run_dir);
  {
    std::ofstream(run_dir / "host-a.xplane.pb", std::ios::binary) << SampleTpuXSpace();
    std::ofstream(run_dir / "host-b.xplane.pb", std::ios::binary) << SampleTpuXSpace();
    // A conversion next to its XSpace is not read twice (and this one is not even gzip).
    std::ofstream(run_dir / "host-a.trace.json.gz") << "not read";
  }
  auto run = ReadTraceRun(dir.string());  // a log directory: its latest profile
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->ranks.size(), 2u);
  EXPECT_EQ(run->ranks[0].events.size(), 9u);

  const std::string out = (dir / "out.json").string();
  ASSERT_TRUE(WriteChromeTrace(*run, out).ok());
  auto text = ReadInputFile(out);
  ASSERT_TRUE(text.ok());
  auto doc = nlohmann::json::parse(*text);
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  EXPECT_EQ(doc["baseTimeNanoseconds"].get<int64_t>(), 1'764'000'000'000'000'000);
  int processes = 0, convolutions = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") ++processes;
    if (e["ph"] == "X" && e["name"] == "convolution.2") {
      ++convolutions;
      EXPECT_EQ(e["args"]["hlo_category"], "convolution");
      EXPECT_EQ(e["dur"].get<double>(), 4.0);
    }
  }
  EXPECT_EQ(processes, 4);  // /device:TPU:0 and /host:CPU of each rank
  EXPECT_EQ(convolutions, 4);
  // Our own reader reads the export back: the same ops.
  auto back = ReadTraceFile(out);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->events.size(), 18u);

  EXPECT_FALSE(ReadXSpaceFile((dir / "missing.xplane.pb").string()).ok());
  auto as_dir = ReadXSpaceFile(run_dir.string());
  ASSERT_FALSE(as_dir.ok());
  EXPECT_NE(as_dir.error().message.find("directory"), std::string::npos) << as_dir.error().message;
  // An empty file is no profile (it was analysed as an empty trace).
  std::ofstream(dir / "empty.xplane.pb").close();
  auto empty = ReadXSpaceFile((dir / "empty.xplane.pb").string());
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("empty file"), std::string::npos) << empty.error().message;
  fs::remove_all(dir);
}

// The fuzzer's seeds (fuzz/corpus/xplane) are this helper's output: regenerated with
// XPUPERF_WRITE_XPLANE_SEEDS=DIR, and checked to be current otherwise.
TEST(XPlaneReaderTest, FuzzSeedsAreTheBuildersOutput) {
  using testing::XPlaneSpec;
  std::vector<std::pair<std::string, std::string>> seeds = {
      {"tpu-and-host.xplane.pb", SampleTpuXSpace()},
      {"gpu-streams.xplane.pb",
       testing::XSpaceBuilder()
           .Plane({1, "/device:GPU:0", {{7, "Stream #7", 5, {{"k", 0, 5000, {}}}}}, {}})
           .Build()},
      {"empty-planes.xplane.pb", testing::XSpaceBuilder()
                                     .Plane({1, "/host:CPU", {}, {}})
                                     .Plane({2, "/device:TPU:1", {}, {}})
                                     .Build()}};
  const char* write_dir = std::getenv("XPUPERF_WRITE_XPLANE_SEEDS");
  const std::string seed_dir = std::string(XPUPERF_SOURCE_DIR) + "/fuzz/corpus/xplane";
  for (const auto& [name, bytes] : seeds) {
    if (write_dir) {
      std::ofstream(std::string(write_dir) + "/" + name, std::ios::binary) << bytes;
      continue;
    }
    auto committed = ReadInputFile(seed_dir + "/" + name);
    ASSERT_TRUE(committed.ok()) << committed.error().message;
    EXPECT_EQ(*committed, bytes) << name << " is stale: regenerate with "
                                 << "XPUPERF_WRITE_XPLANE_SEEDS=" << seed_dir;
    EXPECT_TRUE(ParseXSpace(bytes, name).ok());
  }
}

}  // namespace
}  // namespace xpuperf::trace
