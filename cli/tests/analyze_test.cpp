// `xpuperf analyze` and the trace diff, run as functions (no process).
#include "xpuperf/analyze/analyze.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace xpuperf::cli {
namespace {

std::string Data(const std::string& name) {
  return std::string(XPUPERF_TEST_DATA_DIR) + "/analyze/" + name;
}

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome Analyze(analyze::AnalyzeOptions options) {
  std::ostringstream out, err;
  int code = analyze::RunAnalyze(options, out, err);
  return {code, out.str(), err.str()};
}

TEST(AnalyzeCommandTest, SummaryFindingsThenTables) {
  Outcome r = Analyze({.path = Data("step_trace.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  size_t summary = r.out.find("Summary");
  size_t findings = r.out.find("Findings");
  size_t temporal = r.out.find("Temporal breakdown");
  ASSERT_NE(summary, std::string::npos);
  ASSERT_NE(findings, std::string::npos);
  ASSERT_NE(temporal, std::string::npos);
  EXPECT_LT(summary, findings);
  EXPECT_LT(findings, temporal);
  EXPECT_NE(r.out.find("pageable"), std::string::npos);  // the 4 KiB pageable copy is a finding
  EXPECT_NE(r.out.find("GEMM shapes"), std::string::npos);
}

TEST(AnalyzeCommandTest, JsonHasEveryAnalysisOrOnlyTheChosenOnes) {
  Outcome all = Analyze({.path = Data("step_trace.json"), .json = true});
  ASSERT_EQ(all.code, 0) << all.err;
  auto j = nlohmann::json::parse(all.out);
  const auto& rank = j["ranks"][0];
  for (const char* key :
       {"temporal_breakdown", "idle_breakdown", "kernel_breakdown", "comm_compute_overlap",
        "launch_stats", "queue_length", "memcpy_bandwidth", "operators", "iterations", "memory",
        "gemm_points", "findings", "critical_path", "annotations"}) {
    EXPECT_TRUE(rank.contains(key)) << key;
  }
  // kernel 10.5 .. 13.75 us, all-reduce 12 .. 20, memcpy 15 .. 17: window 9.5 us.
  EXPECT_EQ(rank["temporal_breakdown"]["window_ns"], 9500);
  EXPECT_EQ(rank["gemm_points"][0]["flops"], 2.0 * 4 * 2 * 8);
  Outcome some = Analyze({.path = Data("step_trace.json"), .analyses = {"temporal"}, .json = true});
  auto k = nlohmann::json::parse(some.out);
  EXPECT_TRUE(k["ranks"][0].contains("temporal_breakdown"));
  EXPECT_FALSE(k["ranks"][0].contains("launch_stats"));
}

// B/E pairs are analysed as complete events; the end without a begin is counted and shown.
TEST(AnalyzeCommandTest, BeginEndPairsAreOperatorsAndSkippedEventsAreShown) {
  Outcome json_run = Analyze({.path = Data("begin_end.json"), .json = true});
  ASSERT_EQ(json_run.code, 0) << json_run.err;
  const auto rank = nlohmann::json::parse(json_run.out)["ranks"][0];
  EXPECT_EQ(rank["events"], 2);
  EXPECT_EQ(rank["skipped_events"], 1);
  std::map<std::string, std::pair<int64_t, int64_t>> ops;  // inclusive, exclusive
  for (const auto& op : rank["operators"]["by_name"]) {
    ops[op["name"]] = {op["inclusive_ns"], op["exclusive_ns"]};
  }
  EXPECT_EQ(ops["aten::linear"], std::make_pair(int64_t{12000}, int64_t{4000}));
  EXPECT_EQ(ops["aten::addmm"], std::make_pair(int64_t{8000}, int64_t{8000}));
  Outcome text = Analyze({.path = Data("begin_end.json")});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("2 events (1 more skipped: no usable timestamp, or an unmatched B/E)"),
            std::string::npos)
      << text.out;
}

TEST(AnalyzeCommandTest, CriticalPathRangeMustExist) {
  Outcome json_run =
      Analyze({.path = Data("step_trace.json"), .analyses = {"critical_path"}, .json = true});
  ASSERT_EQ(json_run.code, 0) << json_run.err;
  const auto path = nlohmann::json::parse(json_run.out)["ranks"][0]["critical_path"];
  EXPECT_GT(path["length_ns"].get<int64_t>(), 0);
  int64_t sum = 0;
  for (const auto& [name, category] : path["categories"].items())
    sum += category["ns"].get<int64_t>();
  EXPECT_EQ(sum, path["length_ns"].get<int64_t>());
  Outcome text = Analyze({.path = Data("step_trace.json"), .analyses = {"critical_path"}});
  EXPECT_NE(text.out.find("Critical path over"), std::string::npos) << text.out;
  Outcome missing = Analyze({.path = Data("step_trace.json"), .critical_path_range = "nowhere"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("no host range"), std::string::npos) << missing.err;
}

TEST(AnalyzeCommandTest, HtmlReportIsOneSelfContainedFile) {
  std::string path =
      (std::filesystem::temp_directory_path() / "xpuperf_analyze_test.html").string();
  std::filesystem::remove(path);
  Outcome r = Analyze({.path = Data("step_trace.json"), .html = path});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream file(path);
  std::string html((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("GPU utilisation"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(AnalyzeCommandTest, HtaTablesOnlyUnderTheHtaConvention) {
  Outcome hta = Analyze({.path = Data("step_trace.json"), .json = true, .convention = "hta"});
  ASSERT_EQ(hta.code, 0) << hta.err;
  const nlohmann::json doc = nlohmann::json::parse(hta.out);
  const nlohmann::json& tables = doc["ranks"][0]["hta"];
  for (const char* table : {"comm_comp_overlap", "kernel_types", "kernels", "idle_time",
                            "launch_stats", "queue_length", "memory_bw"}) {
    EXPECT_TRUE(tables.contains(table)) << table;
  }
  EXPECT_FALSE(tables["kernels"].empty());
  Outcome own = Analyze({.path = Data("step_trace.json"), .json = true});
  ASSERT_EQ(own.code, 0) << own.err;
  EXPECT_FALSE(nlohmann::json::parse(own.out)["ranks"][0].contains("hta"));
}

TEST(AnalyzeCommandTest, IncludeLastProfilerStepOnlyUnderTheHtaConvention) {
  Outcome included = Analyze({.path = Data("step_trace.json"),
                              .json = true,
                              .convention = "hta",
                              .include_last_profiler_step = true});
  ASSERT_EQ(included.code, 0) << included.err;
  EXPECT_TRUE(nlohmann::json::parse(included.out)["include_last_profiler_step"].get<bool>());
  Outcome dropped = Analyze({.path = Data("step_trace.json"), .json = true, .convention = "hta"});
  ASSERT_EQ(dropped.code, 0) << dropped.err;
  EXPECT_FALSE(nlohmann::json::parse(dropped.out)["include_last_profiler_step"].get<bool>());
  Outcome own = Analyze({.path = Data("step_trace.json"), .include_last_profiler_step = true});
  EXPECT_EQ(own.code, 2);
  EXPECT_NE(own.err.find("--include-last-profiler-step needs --convention hta"), std::string::npos)
      << own.err;
}

TEST(AnalyzeCommandTest, Errors) {
  Outcome missing = Analyze({.path = Data("no_such_trace.json")});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err.rfind("xpuperf analyze: error: ", 0), 0u);
  Outcome unknown = Analyze({.path = Data("step_trace.json"), .analyses = {"nonsense"}});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("unknown analysis 'nonsense'"), std::string::npos);
  Outcome hta_tables = Analyze({.path = Data("step_trace.json"), .analyses = {"hta"}});
  EXPECT_EQ(hta_tables.code, 2);
  EXPECT_NE(hta_tables.err.find("needs --convention hta"), std::string::npos) << hta_tables.err;
  Outcome cut = Analyze({.path = Data("truncated.json")});
  EXPECT_EQ(cut.code, 1);
  EXPECT_NE(cut.err.find("truncated at byte"), std::string::npos) << cut.err;
  EXPECT_EQ(std::count(cut.err.begin(), cut.err.end(), '\n'), 1);
  std::string html = (std::filesystem::temp_directory_path() / "xpuperf_no_partial.html").string();
  std::filesystem::remove(html);
  Outcome bad_html = Analyze({.path = Data("truncated.json"), .html = html});
  EXPECT_EQ(bad_html.code, 1);
  EXPECT_FALSE(std::filesystem::exists(html));  // no partial report
}

// --progress: a line per file of a directory, with the files and bytes so far; without it (and
// err not a terminal) a short read says nothing.
TEST(AnalyzeCommandTest, ProgressLinesPerFileOfADirectory) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("xpuperf_analyze_progress_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(Data("base.json"), dir / "rank-0.json");
  std::filesystem::copy_file(Data("candidate.json"), dir / "rank-1.json");
  Outcome r = Analyze({.path = dir.string(), .top = 3, .progress = true});
  Outcome quiet = Analyze({.path = dir.string(), .top = 3});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("xpuperf analyze: read 1 of 2 files (rank-"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("xpuperf analyze: read 2 of 2 files (rank-"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" s elapsed, about "), std::string::npos) << r.err;  // after the first
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  if (isatty(STDERR_FILENO) == 0) {
    EXPECT_EQ(quiet.err.find("xpuperf analyze: read "), std::string::npos) << quiet.err;
  }
}

TEST(AnalyzeCommandTest, SharedTraceRunDirectory) {
  std::string dir = std::string(XPUPERF_TEST_DATA_DIR) + "/../../../../shared/data/traces";
  if (!std::filesystem::exists(dir + "/trace_filter__sampled_rank-0.json.gz")) {
    GTEST_SKIP() << "shared traces not found under " << dir;
  }
  Outcome r = Analyze({.path = dir + "/trace_filter__sampled_rank-0.json.gz", .top = 3});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("COMM"), std::string::npos);
}

TEST(TraceCompareTest, AddedRemovedChanged) {
  std::ostringstream out, err;
  int code = analyze::RunTraceCompare(
      {.baseline = Data("base.json"), .candidate = Data("candidate.json"), .json = true}, out, err);
  ASSERT_EQ(code, 0) << err.str();
  auto j = nlohmann::json::parse(out.str());
  ASSERT_EQ(j["added"].size(), 1u);
  EXPECT_EQ(j["added"][0]["name"], "aten::gelu");
  ASSERT_EQ(j["removed"].size(), 1u);
  EXPECT_EQ(j["removed"][0]["name"], "aten::relu");
  ASSERT_EQ(j["changed"].size(), 1u);
  EXPECT_EQ(j["changed"][0]["name"], "gemm");
  EXPECT_EQ(j["changed"][0]["delta_ns"], -10000);
  EXPECT_EQ(j["unchanged"], 1);
  std::ostringstream text, text_err;
  EXPECT_EQ(
      analyze::RunTraceCompare({.baseline = Data("base.json"), .candidate = Data("candidate.json")},
                               text, text_err),
      0);
  EXPECT_NE(text.str().find("1 ops added, 1 removed, 1 changed"), std::string::npos) << text.str();
  std::ostringstream e1, e2;
  EXPECT_EQ(analyze::RunTraceCompare(
                {.baseline = Data("base.json"), .candidate = Data("truncated.json")}, e1, e2),
            1);
}

}  // namespace
}  // namespace xpuperf::cli

namespace xpuperf::cli {
namespace {

// One 10 µs step on an A100 80 GB (a shipped sheet's alias) with one bf16 1024³ matrix product:
// 2·1024³ FLOP at the bf16 peak (312 TFLOP/s) take 6.88 µs: MFU 68.8%.
std::string WriteMfuTrace(bool with_gpu) {
  const std::string path =
      (std::filesystem::temp_directory_path() /
       (std::string("xpuperf_mfu_") + (with_gpu ? "gpu" : "cpu") + "_" +
        std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".json"))
          .string();
  std::ofstream(path) << std::string(R"({"schemaVersion": 1,
    "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85899345920}],
    "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
     "args": {"External id": 1, "Input Dims": [[1024, 1024], [1024, 1024]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}})") +
                             (with_gpu ? R"(,
    {"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_bf16bf16_bf16f32_f32_nn", "pid": 0, "tid": 7, "ts": 3, "dur": 7, "args": {"stream": 7, "External id": 1}})"
                                       : "") +
                             "]}";
  return path;
}

TEST(AnalyzeMfuTest, AGpuTraceIsJudgedAgainstItsDevicesSheet) {
  const std::string path = WriteMfuTrace(true);
  Outcome r = Analyze({.path = path});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("MFU 68.8% over 1 step (2.15 GFLOP of model FLOPs against spec sheet "
                       "nvidia-a100-sxm-80gb (the trace's device, NVIDIA A100-SXM4-80GB))"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Model FLOP utilisation, rank 0: 68.8%"), std::string::npos) << r.out;

  // Another sheet by name; a name that is no sheet is a usage error.
  Outcome h100 =
      Analyze({.path = path, .analyses = {"mfu"}, .json = true, .spec = "nvidia-h100-sxm"});
  ASSERT_EQ(h100.code, 0) << h100.err;
  const auto mfu = nlohmann::json::parse(h100.out)["ranks"][0]["mfu"];
  EXPECT_EQ(mfu["peak_source"], "spec sheet nvidia-h100-sxm (--spec)");
  EXPECT_EQ(mfu["precisions"][0]["precision"], "bf16");
  Outcome bogus = Analyze({.path = path, .spec = "no-such-gpu"});
  EXPECT_EQ(bogus.code, 2);
  EXPECT_NE(bogus.err.find("--spec no-such-gpu: no such file and no shipped spec sheet"),
            std::string::npos)
      << bogus.err;
  std::filesystem::remove(path);
}

TEST(AnalyzeMfuTest, ACpuTraceNeedsTheHostSheetAndSaysSo) {
  const std::string path = WriteMfuTrace(false);
  Outcome r = Analyze({.path = path});
  ASSERT_EQ(r.code, 0) << r.err;
  // deviceProperties lists an A100, but nothing ran on it.
  EXPECT_NE(r.out.find("model FLOPs 2.15 GFLOP over 1 step; no MFU: the trace shows no GPU work, "
                       "so its operators ran on the CPU: give --spec host"),
            std::string::npos)
      << r.out;
  Outcome host = Analyze({.path = path, .analyses = {"mfu"}, .json = true, .spec = "host"});
  ASSERT_EQ(host.code, 0) << host.err;
  const auto mfu = nlohmann::json::parse(host.out)["ranks"][0]["mfu"];
  ASSERT_TRUE(mfu.contains("mfu")) << mfu.dump(2);
  EXPECT_NE(mfu["peak_source"].get<std::string>().find("computed for this machine's CPU"),
            std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace xpuperf::cli

namespace xpuperf::cli {
namespace {

// The HTML report holds every table the text shows (one model: the registry's descriptors).
TEST(AnalyzeHtmlTest, HoldsTheTablesTheTextShows) {
  const std::string html =
      (std::filesystem::temp_directory_path() /
       ("xpuperf_analyze_tables_" +
        std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".html"))
          .string();
  Outcome r = Analyze({.path = Data("step_trace.json"), .html = html});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int shown = 0;
  for (const char* caption :
       {"Communication / computation overlap", "Kernel launches", "Launch queue length by stream",
        "Memory copies and sets", "Iterations (ProfilerStep#N)", "Allocator ([memory] events)"}) {
    if (r.out.find(caption) == std::string::npos) continue;
    ++shown;
    // "<->" and "[memory]" are escaped in the page; the words before them are not.
    const std::string words = std::string(caption).substr(0, 14);
    EXPECT_NE(page.find(words), std::string::npos) << caption;
  }
  EXPECT_GE(shown, 4) << r.out;
  std::filesystem::remove(html);
}

}  // namespace
}  // namespace xpuperf::cli
