// Expected values for the small shared traces. Every number below was computed independently of
// xpuperf by trace/tests/golden_values.py (plain Python over the JSON, timestamps as exact decimal
// microseconds -> integer ns, the definitions of docs/TRACES.md), run by hand.
#include <gtest/gtest.h>

#include "trace_test_util.h"
#include "xpuperf/trace/analyses.h"
#include "xpuperf/trace/memory_timeline.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::trace {
namespace {

using testing::SharedTrace;

Trace Read(const std::string& path) {
  auto t = ReadTraceFile(path);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(t).value() : Trace{};
}

const StreamIdle* FindStream(const IdleBreakdown& idle, int stream) {
  for (const auto& s : idle.streams) {
    if (s.stream == stream) return &s;
  }
  return nullptr;
}

TEST(GoldenTest, CallStackBackwardThread) {
  std::string path = SharedTrace("call_stack__backward_thread.json");
  XPUPERF_REQUIRE_TRACE(path);
  Trace t = Read(path);
  TemporalBreakdown tb = ComputeTemporalBreakdown(t);
  EXPECT_EQ(tb.window_ns, 45000);
  EXPECT_EQ(tb.compute_ns, 45000);
  EXPECT_EQ(tb.non_compute_ns, 0);
  EXPECT_EQ(tb.idle_ns, 0);
  KernelBreakdown kb = ComputeKernelBreakdown(t);
  EXPECT_EQ(kb.class_count[static_cast<int>(KernelClass::kCompute)], 1);
  LaunchStats ls = ComputeLaunchStats(t);
  EXPECT_EQ(ls.matched, 1);
  EXPECT_EQ(ls.delay.max_ns, 64125000);
  EXPECT_EQ(ls.short_kernels, 0);
  QueueLength q = ComputeQueueLength(t);
  ASSERT_EQ(q.streams.size(), 1u);
  EXPECT_EQ(q.streams[0].max_length, 1);
  EXPECT_EQ(q.streams[0].time_at_or_above_limit_ns, 0);
}

TEST(GoldenTest, CudaEventSync) {
  std::string path = SharedTrace("critical_path__cuda_event_sync__event_sync_trace.json.gz");
  XPUPERF_REQUIRE_TRACE(path);
  Trace t = Read(path);
  TemporalBreakdown tb = ComputeTemporalBreakdown(t);
  EXPECT_EQ(tb.window_ns, 263000);
  EXPECT_EQ(tb.busy_ns, 51000);
  EXPECT_EQ(tb.compute_ns, 49000);
  EXPECT_EQ(tb.non_compute_ns, 2000);
  EXPECT_EQ(tb.idle_ns, 212000);
  IdleBreakdown idle = ComputeIdleBreakdown(t);
  const StreamIdle* s7 = FindStream(idle, 7);
  ASSERT_NE(s7, nullptr);
  EXPECT_EQ(s7->gaps, 4);
  EXPECT_EQ(s7->host_wait_ns, 212000);
  EXPECT_EQ(s7->kernel_wait_ns, 0);
  EXPECT_EQ(s7->other_ns, 0);
  KernelBreakdown kb = ComputeKernelBreakdown(t);
  EXPECT_EQ(kb.class_count[static_cast<int>(KernelClass::kCompute)], 4);
  EXPECT_EQ(kb.class_count[static_cast<int>(KernelClass::kMemory)], 1);
  EXPECT_EQ(kb.class_total_ns[static_cast<int>(KernelClass::kCompute)], 49000);
  LaunchStats ls = ComputeLaunchStats(t);
  EXPECT_EQ(ls.matched, 5);
  EXPECT_EQ(ls.delay.total_ns, 5000);
  EXPECT_EQ(ls.delay.max_ns, 2000);
  EXPECT_EQ(ls.delay.min_ns, 0);
  EXPECT_EQ(ls.delay_p50_ns, 1000);
  EXPECT_EQ(ls.short_kernels, 2);
  QueueLength q = ComputeQueueLength(t);
  ASSERT_EQ(q.streams.size(), 1u);
  EXPECT_EQ(q.streams[0].max_length, 1);
}

TEST(GoldenTest, SimpleAdd) {
  std::string path =
      SharedTrace("critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz");
  XPUPERF_REQUIRE_TRACE(path);
  Trace t = Read(path);
  TemporalBreakdown tb = ComputeTemporalBreakdown(t);
  EXPECT_EQ(tb.window_ns, 16025575000);
  EXPECT_EQ(tb.busy_ns, 49758000);
  EXPECT_EQ(tb.compute_ns, 10670000);
  EXPECT_EQ(tb.non_compute_ns, 39088000);
  EXPECT_EQ(tb.idle_ns, 15975817000);
  IdleBreakdown idle = ComputeIdleBreakdown(t);
  const StreamIdle* s7 = FindStream(idle, 7);
  const StreamIdle* s20 = FindStream(idle, 20);
  ASSERT_TRUE(s7 && s20);
  EXPECT_EQ(s7->gaps, 90);
  EXPECT_EQ(s7->host_wait_ns, 15976739000);
  EXPECT_EQ(s7->kernel_wait_ns, 91000);
  EXPECT_EQ(s7->other_ns, 0);
  EXPECT_EQ(s20->gaps, 6);
  EXPECT_EQ(s20->host_wait_ns, 13582776000);
  EXPECT_EQ(s20->kernel_wait_ns, 8000);
  KernelBreakdown kb = ComputeKernelBreakdown(t);
  EXPECT_EQ(kb.class_count[static_cast<int>(KernelClass::kCompute)], 79);
  EXPECT_EQ(kb.class_count[static_cast<int>(KernelClass::kMemory)], 19);
  EXPECT_EQ(kb.class_total_ns[static_cast<int>(KernelClass::kCompute)], 10728000);
  EXPECT_EQ(kb.class_total_ns[static_cast<int>(KernelClass::kMemory)], 39088000);
  LaunchStats ls = ComputeLaunchStats(t);
  EXPECT_EQ(ls.gpu_ops, 98);
  EXPECT_EQ(ls.matched, 98);
  EXPECT_EQ(ls.delay.total_ns, 10264000);
  EXPECT_EQ(ls.delay.max_ns, 874000);
  EXPECT_EQ(ls.delay_p50_ns, 3000);
  EXPECT_EQ(ls.short_kernels, 17);
  // Queue length with a limit of 2 so that the time-above-limit path is exercised.
  QueueLength q = ComputeQueueLength(t, 2);
  ASSERT_EQ(q.streams.size(), 2u);
  EXPECT_EQ(q.streams[0].stream, 7);
  EXPECT_EQ(q.streams[0].max_length, 6);
  EXPECT_EQ(q.streams[0].time_at_or_above_limit_ns, 5775000);
  EXPECT_EQ(q.streams[1].stream, 20);
  EXPECT_EQ(q.streams[1].max_length, 2);
  EXPECT_EQ(q.streams[1].time_at_or_above_limit_ns, 330000);
}

TEST(GoldenTest, TraceComparePair) {
  std::string a_path = SharedTrace("trace_compare__base__base.json.gz");
  std::string b_path = SharedTrace("trace_compare__test__test.json.gz");
  XPUPERF_REQUIRE_TRACE(a_path);
  Trace a = Read(a_path);
  Trace b = Read(b_path);
  EXPECT_EQ(a.rank, 1);  // distributedInfo.rank
  TemporalBreakdown ta = ComputeTemporalBreakdown(a);
  EXPECT_EQ(ta.window_ns, 274498000);
  EXPECT_EQ(ta.busy_ns, 1694000);
  EXPECT_EQ(ta.compute_ns, 432000);
  EXPECT_EQ(ta.idle_ns, 272804000);
  IdleBreakdown idle = ComputeIdleBreakdown(a);
  const StreamIdle* s7 = FindStream(idle, 7);
  ASSERT_NE(s7, nullptr);
  EXPECT_EQ(s7->kernel_wait_ns, 12000);
  EXPECT_EQ(s7->other_ns, 274008000);
  EXPECT_EQ(s7->host_wait_ns, 0);
  LaunchStats la = ComputeLaunchStats(a);
  EXPECT_EQ(la.gpu_ops, 18);
  EXPECT_EQ(la.matched, 2);  // most launch calls are outside this sampled trace
  EXPECT_EQ(la.delay.total_ns, 109276000);

  TraceDiff diff = CompareTraces(a, b);
  ASSERT_EQ(diff.added.size(), 3u);
  std::vector<std::string> added;
  for (const auto& d : diff.added) added.push_back(d.name);
  std::sort(added.begin(), added.end());
  EXPECT_EQ(added,
            (std::vector<std::string>{"AddmmBackward0", "All2All_Pooled_Req", "CatBackward0"}));
  EXPECT_TRUE(diff.removed.empty());
  ASSERT_EQ(diff.changed.size(), 1u);
  EXPECT_EQ(diff.changed[0].kind, "gpu");
  EXPECT_NE(diff.changed[0].name.find("CUDAFunctor_add<int>"), std::string::npos);
  EXPECT_EQ(diff.unchanged, 9);
}

TEST(GoldenTest, MemoryTimelineExport) {
  std::string path = SharedTrace("memory_analysis__memory_timeline.raw.gz");
  XPUPERF_REQUIRE_TRACE(path);
  auto text = ReadMaybeGzipFile(path);
  ASSERT_TRUE(text.ok());
  ASSERT_TRUE(LooksLikeMemoryTimeline(*text));
  auto m = ParseMemoryTimeline(*text, path);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->rows, 16845);
  EXPECT_EQ(m->peak_bytes, 3082832104);
  EXPECT_EQ(m->peak_ts, 1696966047194486198);
  EXPECT_EQ(m->final_bytes, 332060904);
  const std::array<int64_t, 8> at_peak = {102440608,  102228128, 19395584, 0,
                                          2592465920, 67858432,  64225280, 134218152};
  EXPECT_EQ(m->at_peak, at_peak);
}

}  // namespace
}  // namespace xpuperf::trace
