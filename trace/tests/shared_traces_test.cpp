// Every trace of the shared folder is read without error and each analysis gives sensible output.
#include <gtest/gtest.h>

#include "trace_test_util.h"
#include "xpuperf/trace/memory_timeline.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::trace {
namespace {

std::vector<std::string> SharedFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(testing::TraceDir(), ec)) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(".json") || name.ends_with(".gz")) files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) files.push_back("");  // one instance that skips
  return files;
}

class SharedTraceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedTraceTest, ReadsAndAnalyses) {
  if (GetParam().empty()) GTEST_SKIP() << "no shared traces in " << testing::TraceDir();
  std::string path = testing::SharedTrace(GetParam());
  auto text = ReadMaybeGzipFile(path);
  ASSERT_TRUE(text.ok()) << text.error().message;
  if (LooksLikeMemoryTimeline(*text)) {
    auto m = ParseMemoryTimeline(*text, path);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_GT(m->rows, 0);
    EXPECT_GE(m->peak_bytes, m->final_bytes);
    return;
  }
  auto run = ReadTraceRun(path);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->ranks.size(), 1u);
  const Trace& t = run->ranks[0];
  EXPECT_GT(t.events.size(), 0u);
  EXPECT_TRUE(std::is_sorted(t.events.begin(), t.events.end(),
                             [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; }));
  RunReport report = AnalyzeRun(*run);
  const RankEvidence& ev = report.ranks[0].evidence;
  const TemporalBreakdown& tb = ev.temporal;
  EXPECT_EQ(tb.idle_ns + tb.compute_ns + tb.non_compute_ns, tb.window_ns);
  EXPECT_GE(tb.idle_ns, 0);
  EXPECT_GE(tb.non_compute_ns, 0);
  for (const auto& s : ev.idle.streams) {
    EXPECT_EQ(s.host_wait_ns + s.kernel_wait_ns + s.other_ns, s.idle_ns);
    EXPECT_LE(s.busy_ns, s.window_ns);
  }
  EXPECT_LE(ev.launches.matched, ev.launches.gpu_ops);
  EXPECT_LE(ev.overlap.overlap_ns, ev.overlap.comm_ns);
  for (const auto& k : ev.kernels.top) {
    EXPECT_LE(k.duration.min_ns, k.duration.mean_ns);
    EXPECT_LE(k.duration.mean_ns, k.duration.max_ns);
  }
  for (const auto& op : ev.operators.by_name) EXPECT_LE(op.exclusive_ns, op.inclusive_ns);
  for (const auto& p : report.ranks[0].gemm) {
    EXPECT_GT(p.flops, 0);
    EXPECT_GT(p.bytes, 0);
  }
  nlohmann::json j = ToJson(report);
  EXPECT_EQ(j["ranks"].size(), 1u);
  // Each analysis computed alone (`analyze -a NAME`) gives what the whole report gives for it,
  // and leaves the parts not asked for empty.
  for (const std::string& name : AnalysisNames()) {
    const std::set<std::string> one = {name};
    const nlohmann::json alone = ToJson(AnalyzeRun(*run, 10, {}, one), one);
    EXPECT_EQ(alone, ToJson(report, one)) << name;
  }
  const RunReport temporal_only = AnalyzeRun(*run, 10, {}, {"temporal"});
  const RankEvidence& only = temporal_only.ranks[0].evidence;
  EXPECT_EQ(only.temporal.window_ns, tb.window_ns);
  EXPECT_TRUE(only.kernels.top.empty());
  EXPECT_TRUE(only.operators.by_name.empty());
  EXPECT_TRUE(temporal_only.ranks[0].findings.empty());
}

INSTANTIATE_TEST_SUITE_P(Shared, SharedTraceTest, ::testing::ValuesIn(SharedFiles()),
                         [](const auto& info) {
                           std::string name = info.param.empty() ? "none" : info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(SharedRunTest, TwoRanksAreOneRunWithStragglers) {
  std::string a = testing::SharedTrace("trace_filter__sampled_rank-0.json.gz");
  XPUPERF_REQUIRE_TRACE(a);
  std::string dir = (std::filesystem::temp_directory_path() / "xpuperf_two_ranks").string();
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(a, dir + "/rank-0.json.gz",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(testing::SharedTrace("trace_filter__sampled_rank-1.json.gz"),
                             dir + "/rank-1.json.gz",
                             std::filesystem::copy_options::overwrite_existing);
  auto run = ReadTraceRun(dir);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->ranks.size(), 2u);
  EXPECT_EQ(run->ranks[0].rank, 0);
  EXPECT_EQ(run->ranks[1].rank, 1);
  Stragglers s = ComputeStragglers(*run);
  EXPECT_GT(s.collectives, 0);
  EXPECT_EQ(s.ranks[0].last_count + s.ranks[1].last_count, s.collectives);
}

}  // namespace
}  // namespace xpuperf::trace
