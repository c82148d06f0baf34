// The critical path on handmade traces, every segment worked out by hand (times in us in the JSON,
// ns in the results), and on the real traces: categories add up to the length.
#include "xpuperf/trace/critical_path.h"

#include <gtest/gtest.h>

#include <map>

#include "trace_test_util.h"
#include "xpuperf/trace/findings.h"

namespace xpuperf::trace {
namespace {

using testing::KinetoJson;
using testing::ParseOrDie;

std::string Host(const std::string& cat, const std::string& name, int ts, int dur,
                 int correlation = -1) {
  std::string args =
      correlation >= 0 ? R"(, "args": {"correlation": )" + std::to_string(correlation) + "}" : "";
  return R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name +
         R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) + R"(, "dur": )" +
         std::to_string(dur) + args + "}";
}

std::string Kernel(const std::string& name, int stream, int ts, int dur, int correlation) {
  return R"({"ph": "X", "cat": "kernel", "name": ")" + name + R"(", "pid": 0, "tid": )" +
         std::to_string(stream) + R"(, "ts": )" + std::to_string(ts) + R"(, "dur": )" +
         std::to_string(dur) + R"(, "args": {"device": 0, "stream": )" + std::to_string(stream) +
         R"(, "correlation": )" + std::to_string(correlation) + "}}";
}

int64_t Category(const CriticalPath& p, PathCategory c) {
  return p.category_ns[static_cast<int>(c)];
}

void ExpectCategoriesAddUp(const CriticalPath& p) {
  int64_t sum = 0;
  for (int64_t ns : p.category_ns) sum += ns;
  EXPECT_EQ(sum, p.length_ns);
  EXPECT_EQ(p.length_ns, p.end_ns - p.start_ns);
}

// The host launches a GEMM, then waits for it in cudaDeviceSynchronize:
//   aten::mm [0, 100] holding cudaLaunchKernel [10, 20] -> gemm [30, 500] on stream 7;
//   cudaDeviceSynchronize [120, 510]; aten::add [520, 600].
// Back from 600: aten::add 80, untraced 510..520, the sync returns 10 us after gemm ends, gemm 470,
// its launch 10..30 (the stream was idle). The window starts at that first launch: aten::mm's own
// 0..10 is before it.
TEST(CriticalPathTest, WaitsForTheKernelThroughTheSynchronize) {
  Trace t = ParseOrDie(KinetoJson(Host("cpu_op", "aten::mm", 0, 100) + "," +
                                  Host("cuda_runtime", "cudaLaunchKernel", 10, 10, 1) + "," +
                                  Kernel("gemm", 7, 30, 470, 1) + "," +
                                  Host("cuda_runtime", "cudaDeviceSynchronize", 120, 390, 2) + "," +
                                  Host("cpu_op", "aten::add", 520, 80)));
  const CriticalPath p = ComputeCriticalPath(t);
  EXPECT_EQ(p.window, "first GPU launch to the end");
  EXPECT_EQ(p.start_ns, 10'000);
  EXPECT_EQ(p.end_ns, 600'000);
  EXPECT_EQ(Category(p, PathCategory::kCpuOp), 80'000);
  EXPECT_EQ(Category(p, PathCategory::kCpuUntraced), 10'000);
  EXPECT_EQ(Category(p, PathCategory::kSyncWakeup), 10'000);
  EXPECT_EQ(Category(p, PathCategory::kGpuCompute), 470'000);
  EXPECT_EQ(Category(p, PathCategory::kKernelLaunch), 20'000);
  EXPECT_EQ(Category(p, PathCategory::kCpuRuntime), 0);
  ExpectCategoriesAddUp(p);
  EXPECT_EQ(p.gpu_ops, 1);
  EXPECT_EQ(p.host_ns, 120'000);
  EXPECT_EQ(p.verdict, "gpu-compute-bound");
  ASSERT_FALSE(p.top.empty());
  EXPECT_EQ(p.top[0].name, "gemm");
  EXPECT_EQ(p.top[0].ns, 470'000);
}

// A CUDA sync event that waits on a CUDA event: Kineto's "Stream Wait Event" (cudaStreamWaitEvent,
// on the waiting stream) or "Event Sync" (cudaEventSynchronize), naming the recording stream and
// the cudaEventRecord call's correlation.
std::string EventWait(const std::string& name, int stream, int ts, int correlation,
                      int wait_on_stream, int record_correlation) {
  return R"({"ph": "X", "cat": "cuda_sync", "name": ")" + name + R"(", "pid": 0, "tid": )" +
         std::to_string(stream < 0 ? 0 : stream) + R"(, "ts": )" + std::to_string(ts) +
         R"(, "dur": 1, "args": {"device": 0, "stream": )" + std::to_string(stream) +
         R"(, "correlation": )" + std::to_string(correlation) + R"(, "wait_on_stream": )" +
         std::to_string(wait_on_stream) + R"(, "wait_on_cuda_event_record_corr_id": )" +
         std::to_string(record_correlation) + "}}";
}

// An all-reduce on stream 20, an event recorded after it, stream 7 told to wait for the event,
// then a GEMM launched on stream 7 long before the all-reduce ends:
//   launch [10, 15] -> allreduce [20, 500] on 20; cudaEventRecord [16, 18];
//   cudaStreamWaitEvent [19, 21] + its Stream Wait Event on 7; launch [22, 27] -> gemm
//   [gemm_start, gemm_start + 200].
Trace StreamWaitTrace(int gemm_start) {
  return ParseOrDie(KinetoJson(Host("cuda_runtime", "cudaLaunchKernel", 10, 5, 1) + "," +
                               Kernel("ncclKernel_AllReduce", 20, 20, 480, 1) + "," +
                               Host("cuda_runtime", "cudaEventRecord", 16, 2, 2) + "," +
                               Host("cuda_runtime", "cudaStreamWaitEvent", 19, 2, 3) + "," +
                               EventWait("Stream Wait Event", 7, 19, 3, 20, 2) + "," +
                               Host("cuda_runtime", "cudaLaunchKernel", 22, 5, 4) + "," +
                               Kernel("gemm", 7, gemm_start, 200, 4)));
}

// The GEMM starting at 500 waited for the all-reduce (stream_wait 0 us), not for its launch (478
// us before): back from 700, gemm 200, all-reduce 480, its launch 10..20.
TEST(CriticalPathTest, AStreamWaitingOnAnEventWaitsForTheOpRecordedOnTheOtherStream) {
  Trace t = StreamWaitTrace(500);
  ASSERT_EQ(t.event_waits.size(), 1u);
  EXPECT_EQ(t.event_waits[0].stream, 20);
  EXPECT_EQ(t.event_waits[0].record_correlation, 2);
  const CriticalPath p = ComputeCriticalPath(t);
  EXPECT_EQ(p.end_ns, 700'000);
  EXPECT_EQ(Category(p, PathCategory::kGpuCompute), 200'000);
  EXPECT_EQ(Category(p, PathCategory::kGpuComm), 480'000);
  EXPECT_EQ(Category(p, PathCategory::kKernelLaunch), 10'000);  // the all-reduce's launch
  EXPECT_EQ(Category(p, PathCategory::kStreamWait), 0);
  EXPECT_EQ(p.gpu_ops, 2);
  EXPECT_EQ(p.verdict, "gpu-communication-bound");
  ExpectCategoriesAddUp(p);

  // The same GEMM starting 30 us after the all-reduce ends: that gap is the stream wait's.
  const CriticalPath q = ComputeCriticalPath(StreamWaitTrace(530));
  EXPECT_EQ(Category(q, PathCategory::kStreamWait), 30'000);
  EXPECT_EQ(Category(q, PathCategory::kGpuComm), 480'000);
  ExpectCategoriesAddUp(q);
  bool named = false;
  for (const auto& item : q.top) named |= item.name == "(after another stream's op)";
  EXPECT_TRUE(named);
}

// cudaEventSynchronize returns when the op recorded before the event ends, not when the latest
// op of any stream ends: the all-reduce on 20 ends at 500, a copy on 7 at 505, the call at 510.
TEST(CriticalPathTest, AnEventSynchronizeWaitsForTheRecordedOp) {
  Trace t = ParseOrDie(KinetoJson(Host("cuda_runtime", "cudaLaunchKernel", 10, 5, 1) + "," +
                                  Kernel("ncclKernel_AllReduce", 20, 20, 480, 1) + "," +
                                  Host("cuda_runtime", "cudaEventRecord", 16, 2, 2) + "," +
                                  Host("cuda_runtime", "cudaLaunchKernel", 24, 4, 3) + "," +
                                  Kernel("fill", 7, 30, 475, 3) + "," +
                                  Host("cuda_runtime", "cudaEventSynchronize", 30, 480, 4) + "," +
                                  EventWait("Event Sync", -1, 499, 4, 20, 2)));
  const CriticalPath p = ComputeCriticalPath(t);
  EXPECT_EQ(p.end_ns, 510'000);
  EXPECT_EQ(Category(p, PathCategory::kSyncWakeup), 10'000);
  EXPECT_EQ(Category(p, PathCategory::kGpuComm), 480'000);
  EXPECT_EQ(Category(p, PathCategory::kGpuCompute), 0);
  ExpectCategoriesAddUp(p);
}

// k2 is launched at 20 while k1 runs until 100: k2 waited for k1, not for its launch.
//   launch A [0, 5] -> k1 [10, 100]; launch B [20, 25] -> k2 [105, 300].
TEST(CriticalPathTest, AQueuedKernelWaitsForThePreviousOneOnItsStream) {
  Trace t = ParseOrDie(KinetoJson(
      Host("cuda_runtime", "cudaLaunchKernel", 0, 5, 1) + "," + Kernel("k1", 7, 10, 90, 1) + "," +
      Host("cuda_runtime", "cudaLaunchKernel", 20, 5, 2) + "," + Kernel("k2", 7, 105, 195, 2)));
  const CriticalPath p = ComputeCriticalPath(t);
  EXPECT_EQ(p.end_ns, 300'000);
  EXPECT_EQ(Category(p, PathCategory::kGpuCompute), 195'000 + 90'000);
  EXPECT_EQ(Category(p, PathCategory::kGpuGap), 5'000);
  EXPECT_EQ(Category(p, PathCategory::kKernelLaunch), 10'000);  // A's start to k1's start
  ExpectCategoriesAddUp(p);
  EXPECT_EQ(p.gpu_ops, 2);
  EXPECT_EQ(p.start_ns, 0);
}

// A stream synchronisation waits for its own stream's op even when another stream's op ends later
// inside the call: the cuda_sync event names the stream.
TEST(CriticalPathTest, StreamSynchronizeWaitsForItsStream) {
  const std::string sync_event =
      R"({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 399,)"
      R"( "dur": 2, "args": {"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 9}})";
  Trace t = ParseOrDie(KinetoJson(
      Host("cuda_runtime", "cudaLaunchKernel", 0, 5, 1) + "," + Kernel("on7", 7, 10, 390, 1) + "," +
      Host("cuda_runtime", "cudaLaunchKernel", 6, 4, 2) + "," + Kernel("on8", 8, 20, 385, 2) + "," +
      Host("cuda_runtime", "cudaStreamSynchronize", 100, 310, 9) + "," + sync_event));
  const CriticalPath p = ComputeCriticalPath(t);
  EXPECT_EQ(p.end_ns, 410'000);
  EXPECT_EQ(Category(p, PathCategory::kSyncWakeup), 10'000);  // on7 ends at 400, not on8 at 405
  std::map<std::string, int64_t> items;
  for (const auto& item : p.top) items[item.name] += item.ns;
  EXPECT_EQ(items["on7"], 390'000);
  EXPECT_EQ(items.count("on8"), 0u);
  ExpectCategoriesAddUp(p);
}

// The default window is the last ProfilerStep#N; its kernel runs past the step's end and is still
// its own. Another range can be named.
TEST(CriticalPathTest, WindowIsTheLastStepOrANamedRange) {
  const std::string events = Host("user_annotation", "ProfilerStep#1", 0, 1000) + "," +
                             Host("cpu_op", "aten::slow", 100, 800) + "," +
                             Host("user_annotation", "ProfilerStep#2", 1000, 300) + "," +
                             Host("cuda_runtime", "cudaLaunchKernel", 1010, 10, 5) + "," +
                             Kernel("k", 7, 1030, 370, 5);
  Trace t = ParseOrDie(KinetoJson(events));
  const CriticalPath last = ComputeCriticalPath(t);
  EXPECT_EQ(last.window, "ProfilerStep#2");
  EXPECT_EQ(last.start_ns, 1'000'000);
  EXPECT_EQ(last.end_ns, 1'400'000);
  EXPECT_EQ(Category(last, PathCategory::kGpuCompute), 370'000);
  EXPECT_EQ(Category(last, PathCategory::kKernelLaunch), 20'000);
  EXPECT_EQ(Category(last, PathCategory::kCpuOp), 10'000);  // the step's own 1000..1010
  ExpectCategoriesAddUp(last);

  const CriticalPath first = ComputeCriticalPath(t, 10, "Step#1");
  EXPECT_EQ(first.window, "ProfilerStep#1");
  EXPECT_EQ(first.start_ns, 0);
  EXPECT_EQ(first.end_ns, 1'000'000);
  EXPECT_EQ(first.verdict, "host-bound");
  EXPECT_EQ(first.gpu_ops, 0);
  EXPECT_EQ(Category(first, PathCategory::kCpuOp), 1'000'000);
  ExpectCategoriesAddUp(first);

  const CriticalPath none = ComputeCriticalPath(t, 10, "no such range");
  EXPECT_FALSE(none.found);
  EXPECT_EQ(none.length_ns, 0);
}

// The host keeps the GPU waiting through the step: the rule fires, critical above 80% of the path.
TEST(CriticalPathTest, HostBoundPathIsAFinding) {
  Trace t = ParseOrDie(KinetoJson(Host("user_annotation", "ProfilerStep#1", 0, 1010) + "," +
                                  Host("cpu_op", "aten::index", 0, 1000) + "," +
                                  Host("cuda_runtime", "cudaLaunchKernel", 990, 5, 1) + "," +
                                  Kernel("tiny", 7, 1000, 10, 1)));
  const RankEvidence ev = SummariseRank(t);
  EXPECT_EQ(ev.critical_path.verdict, "host-bound");
  EXPECT_EQ(ev.critical_path.length_ns, 1'010'000);
  EXPECT_EQ(ev.critical_path.host_ns, 1'000'000);
  bool found = false;
  for (const Finding& f : EvaluateRules(ev)) {
    if (f.rule != "host_bound_path") continue;
    found = true;
    EXPECT_EQ(f.severity, Severity::kCritical);
    EXPECT_NE(f.evidence.find("aten::index"), std::string::npos) << f.evidence;
  }
  EXPECT_TRUE(found);
}

TEST(CriticalPathTest, EmptyTraceHasAnEmptyPath) {
  Trace t = ParseOrDie(KinetoJson(""));
  const CriticalPath p = ComputeCriticalPath(t);
  EXPECT_EQ(p.verdict, "empty");
  EXPECT_EQ(p.length_ns, 0);
}

TEST(CriticalPathTest, RealTracesAddUp) {
  for (const char* name :
       {"critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
        "critical_path__cuda_event_sync__event_sync_trace.json.gz",
        "trace_filter__sampled_rank-1.json.gz"}) {
    const std::string path = testing::SharedTrace(name);
    XPUPERF_REQUIRE_TRACE(path);
    auto text = TraceText::Load(path);
    ASSERT_TRUE(text.ok()) << text.error().message;
    auto trace = ParseTrace(text->view(), path);
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    const CriticalPath p = ComputeCriticalPath(*trace);
    EXPECT_GT(p.length_ns, 0) << name;
    EXPECT_GT(p.gpu_ops, 0) << name;
    ExpectCategoriesAddUp(p);
  }
}

}  // namespace
}  // namespace xpuperf::trace
