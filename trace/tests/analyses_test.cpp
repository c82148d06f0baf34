// Analyses on small synthetic traces whose expected values follow by hand from the events (µs).
#include "xpuperf/trace/analyses.h"

#include <gtest/gtest.h>

#include "trace_test_util.h"
#include "xpuperf/trace/analysis_registry.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::trace {
namespace {

using testing::KinetoJson;
using testing::ParseOrDie;

// One step on thread 1; a gemm (stream 7, 10-30), an all-reduce (stream 20, 20-40) and a pageable
// 1 MB copy (stream 7, 40-50); three allocations/frees inside the CPU ops.
const char* kStep = R"json(
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
  {"ph": "X", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 10, "dur": 20},
  {"ph": "X", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 35, "dur": 10},
  {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 60, "dur": 10},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 20, "args": {"stream": 7, "device": 0}},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 20, "ts": 20, "dur": 20, "args": {"stream": 20, "device": 0}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 40, "dur": 10, "args": {"stream": 7, "device": 0, "bytes": 1000000}},
  {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 12, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 1000, "Total Allocated": 1000, "Total Reserved": 4096}},
  {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 40, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 500, "Total Allocated": 1500, "Total Reserved": 4096}},
  {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 47, "args": {"Device Type": 1, "Device Id": 0, "Bytes": -1000, "Total Allocated": 500, "Total Reserved": 4096}}
)json";

TEST(AnalysesTest, TemporalOverlapAndKernelClasses) {
  Trace t = ParseOrDie(KinetoJson(kStep));
  TemporalBreakdown tb = ComputeTemporalBreakdown(t);
  EXPECT_EQ(tb.window_ns, 40000);  // 10 .. 50
  EXPECT_EQ(tb.busy_ns, 40000);
  EXPECT_EQ(tb.compute_ns, 20000);
  EXPECT_EQ(tb.non_compute_ns, 20000);
  EXPECT_EQ(tb.idle_ns, 0);
  CommComputeOverlap o = ComputeCommComputeOverlap(t);
  EXPECT_EQ(o.comm_ns, 20000);
  EXPECT_EQ(o.overlap_ns, 10000);  // 20 .. 30
  EXPECT_DOUBLE_EQ(o.overlap_ratio, 0.5);
  KernelBreakdown kb = ComputeKernelBreakdown(t);
  EXPECT_EQ(kb.class_count[static_cast<int>(KernelClass::kComm)], 1);
  EXPECT_EQ(kb.class_count[static_cast<int>(KernelClass::kMemory)], 1);
  EXPECT_EQ(kb.class_total_ns[static_cast<int>(KernelClass::kCompute)], 20000);
  ASSERT_EQ(kb.top.size(), 3u);
  EXPECT_EQ(kb.top[2].name, "Memcpy HtoD (Pageable -> Device)");  // 10 us, the shortest
}

TEST(AnalysesTest, OperatorsExclusiveTime) {
  Trace t = ParseOrDie(KinetoJson(kStep));
  OperatorBreakdown ops = ComputeOperatorBreakdown(t);
  EXPECT_EQ(ops.total_ops, 4);
  ASSERT_GE(ops.by_name.size(), 2u);
  EXPECT_EQ(ops.by_name[0].name, "inner");  // 30 us exclusive
  EXPECT_EQ(ops.by_name[0].count, 2);
  EXPECT_EQ(ops.by_name[0].exclusive_ns, 30000);
  EXPECT_EQ(ops.by_name[1].name, "outer");  // 50 - 20 - 10
  EXPECT_EQ(ops.by_name[1].inclusive_ns, 50000);
  EXPECT_EQ(ops.by_name[1].exclusive_ns, 20000);
}

// Ranges on two threads: "block" [0, 100] holds another "block" [10, 50] holding "attn" [20, 40];
// launches at 25 (kernel 30 us) and 60 (20 us) on thread 1, at 150 (5 us, outside every range);
// "attn" [0, 10] on thread 2 launches a 7 us kernel at 5. ProfilerStep#1 is left to iterations.
TEST(AnalysesTest, AnnotationsAnalysisCountsGpuTimeLaunchedInside) {
  const char* events = R"json(
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 200},
    {"ph": "X", "cat": "user_annotation", "name": "block", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "user_annotation", "name": "block", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
    {"ph": "X", "cat": "user_annotation", "name": "attn", "pid": 1, "tid": 1, "ts": 20, "dur": 20},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 25, "dur": 2, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 60, "dur": 2, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 150, "dur": 2, "args": {"correlation": 3}},
    {"ph": "X", "cat": "user_annotation", "name": "attn", "pid": 1, "tid": 2, "ts": 0, "dur": 10},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 5, "dur": 2, "args": {"correlation": 4}},
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 30, "dur": 30, "args": {"stream": 7, "device": 0, "correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 65, "dur": 20, "args": {"stream": 7, "device": 0, "correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 155, "dur": 5, "args": {"stream": 7, "device": 0, "correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "k4", "pid": 0, "tid": 8, "ts": 8, "dur": 7, "args": {"stream": 8, "device": 0, "correlation": 4}}
  )json";
  Trace t = ParseOrDie(KinetoJson(events));
  const AnalysisDescriptor* analysis = FindRegisteredAnalysis("annotations");
  ASSERT_NE(analysis, nullptr);
  const AnalysisOutput out = analysis->compute(t, AnalysisContext{});
  ASSERT_EQ(out.fields.size(), 2u);
  EXPECT_EQ(out.fields[0].json_key, "gpu_total_ns");
  EXPECT_EQ(out.fields[0].value.integer, 62000);
  EXPECT_EQ(out.fields[1].value.integer, 2);  // names: ProfilerStep#1 is not one of them
  ASSERT_EQ(out.tables.size(), 1u);
  const auto& rows = out.tables[0].rows;
  ASSERT_EQ(rows.size(), 2u);
  // Columns: name, count, host ns, GPU ns, GPU ops, GPU share.
  EXPECT_EQ(rows[0][0].text, "block");
  EXPECT_EQ(rows[0][1].integer, 1);  // the nested "block" is inside the first
  EXPECT_EQ(rows[0][2].integer, 100000);
  EXPECT_EQ(rows[0][3].integer, 50000);  // k1 once (two "block" ranges open) and k2
  EXPECT_EQ(rows[0][4].integer, 2);
  EXPECT_DOUBLE_EQ(rows[0][5].number, 50000.0 / 62000.0);
  EXPECT_EQ(rows[1][0].text, "attn");
  EXPECT_EQ(rows[1][1].integer, 2);
  EXPECT_EQ(rows[1][2].integer, 30000);
  EXPECT_EQ(rows[1][3].integer, 37000);  // k1 on thread 1, k4 on thread 2
  EXPECT_EQ(rows[1][4].integer, 2);
  // The JSON form: fields, then the table's rows by column key.
  const nlohmann::json j = ToJson(out);
  EXPECT_EQ(j["gpu_total_ns"], 62000);
  EXPECT_EQ(j["by_name"][1]["name"], "attn");
  EXPECT_EQ(j["by_name"][1]["gpu_ns"], 37000);
  // top_k cuts the table, not the count of names.
  AnalysisContext one;
  one.top_k = 1;
  const AnalysisOutput cut = analysis->compute(t, one);
  EXPECT_EQ(cut.tables[0].rows.size(), 1u);
  EXPECT_EQ(cut.fields[1].value.integer, 2);
}

TEST(AnalysesTest, IterationsMemcpyAndMemory) {
  Trace t = ParseOrDie(KinetoJson(kStep));
  IterationBreakdown it = ComputeIterationBreakdown(t);
  ASSERT_EQ(it.steps.size(), 1u);
  EXPECT_EQ(it.steps[0].step, 3);
  EXPECT_EQ(it.steps[0].duration_ns, 100000);
  EXPECT_EQ(it.steps[0].kernels, 3);
  EXPECT_EQ(it.steps[0].gpu_busy_ns, 40000);
  EXPECT_EQ(it.steps[0].compute_ns, 20000);
  EXPECT_EQ(it.steps[0].comm_ns, 20000);
  EXPECT_EQ(it.steps[0].memory_ns, 10000);
  EXPECT_EQ(it.steps[0].dataloader_ns, 10000);

  MemcpyBandwidth bw = ComputeMemcpyBandwidth(t);
  ASSERT_EQ(bw.kinds.size(), 1u);
  EXPECT_EQ(bw.kinds[0].kind, "HtoD");
  EXPECT_EQ(bw.kinds[0].bytes, 1000000);
  EXPECT_DOUBLE_EQ(bw.kinds[0].gbps, 100.0);  // 1e6 bytes / 10 us
  EXPECT_EQ(bw.kinds[0].pageable, 1);

  MemoryEventsSummary m = ComputeMemoryEvents(t);
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].peak_allocated, 1500);
  EXPECT_EQ(m.devices[0].peak_reserved, 4096);
  EXPECT_EQ(m.devices[0].peak_ts_ns, 40000);
  EXPECT_EQ(m.devices[0].allocations, 2);
  EXPECT_EQ(m.devices[0].frees, 1);
  ASSERT_EQ(m.top_sites.size(), 1u);
  EXPECT_EQ(m.top_sites[0].op, "inner");
  EXPECT_EQ(m.top_sites[0].allocations, 2);
  EXPECT_EQ(m.top_sites[0].bytes, 1500);
}

TEST(AnalysesTest, FindingsFromATrace) {
  Trace t = ParseOrDie(KinetoJson(
      kStep, R"("deviceProperties": [{"id": 0, "totalGlobalMem": 4500, "computeMajor": 8}])"));
  RankEvidence ev = SummariseRank(t);
  auto findings = EvaluateRules(ev);
  std::vector<std::string> rules;
  for (const auto& f : findings) rules.push_back(f.rule);
  std::sort(rules.begin(), rules.end());
  // DataLoader 10% of the step, 1 pageable copy, comm exposed 10 of 40 us (25%), reserved 4096 of
  // 4500 bytes (91%).
  EXPECT_EQ(rules,
            (std::vector<std::string>{"comm_bound", "input_bound", "near_oom", "pageable_memcpy"}));
}

TEST(AnalysesTest, GemmPointsFromInputDims) {
  Trace t = ParseOrDie(KinetoJson(R"(
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 0, "dur": 30,
     "args": {"External id": 5, "Input Dims": [[64], [128, 256], [256, 64], [], []], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"]}},
    {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16", "pid": 0, "tid": 7, "ts": 40, "dur": 8, "args": {"stream": 7, "External id": 5}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 100, "dur": 30,
     "args": {"External id": 6, "Input Dims": [[64], [128, 256], [256, 64], [], []], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"]}},
    {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16", "pid": 0, "tid": 7, "ts": 140, "dur": 3, "args": {"stream": 7, "External id": 6}},
    {"ph": "X", "cat": "kernel", "name": "splitk_reduce", "pid": 0, "tid": 7, "ts": 144, "dur": 1, "args": {"stream": 7, "External id": 6}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 200, "dur": 30,
     "args": {"External id": 7, "Input Dims": [[32, 16], [16, 8]], "Input type": ["float", "float"]}},
    {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 240, "dur": 2, "args": {"stream": 7, "External id": 7}})"));
  auto points = ComputeGemmPoints(t);
  // Two calls of one addmm shape make one point (12 us of kernels, the largest first); the mm is
  // another.
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].calls, 2);
  EXPECT_EQ(points[0].kernel, "sm90_xmma_gemm_bf16");
  EXPECT_EQ(points[1].op, "aten::mm");
  EXPECT_EQ(points[1].calls, 1);
  EXPECT_EQ(points[1].time_ns, 2000);
  EXPECT_DOUBLE_EQ(points[1].bytes, (32.0 * 16 + 16 * 8 + 32 * 8) * 4);
  EXPECT_EQ(points[0].m, 128);
  EXPECT_EQ(points[0].k, 256);
  EXPECT_EQ(points[0].n, 64);
  EXPECT_DOUBLE_EQ(points[0].flops, 2.0 * 128 * 64 * 256);
  EXPECT_DOUBLE_EQ(points[0].bytes, (128.0 * 256 + 256 * 64 + 128 * 64) * 2);  // bf16: 2 bytes
  EXPECT_EQ(points[0].time_ns, 8000 + 3000 + 1000);
  EXPECT_DOUBLE_EQ(points[0].FlopsPerSecond(), 2 * 2.0 * 128 * 64 * 256 / 12e-6);
  EXPECT_EQ(points[0].dtype, "c10::BFloat16");
}

TEST(AnalysesTest, StragglersAcrossRanks) {
  auto rank = [](int r, int ts1, int ts2) {
    return ParseOrDie(KinetoJson(
        R"({"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 20, "ts": )" +
            std::to_string(ts1) + R"(, "dur": 5, "args": {"stream": 20}},
           {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 20, "ts": )" +
            std::to_string(ts2) + R"(, "dur": 5, "args": {"stream": 20}})",
        R"("distributedInfo": {"rank": )" + std::to_string(r) + "}"));
  };
  TraceRun run;
  run.ranks.push_back(rank(0, 100, 300));
  run.ranks.push_back(rank(1, 110, 290));
  Stragglers s = ComputeStragglers(run);
  EXPECT_EQ(s.collectives, 2);
  ASSERT_EQ(s.ranks.size(), 2u);
  EXPECT_EQ(s.ranks[0].last_count, 1);
  EXPECT_EQ(s.ranks[1].last_count, 1);
  EXPECT_DOUBLE_EQ(s.ranks[0].mean_lateness_ns, 5000);  // (0 + 10 us) / 2
  EXPECT_DOUBLE_EQ(s.ranks[1].mean_lateness_ns, 5000);
  EXPECT_EQ(s.ranks[0].comm_ns, 10000);
}

TEST(AnalysesTest, IdleGapsAreClassified) {
  // Stream 7: k1 0-10; k2 launched at 12 (after k1 ended) runs 15-20 -> host wait 5; k3 launched at
  // 13 runs 25-30 -> gap 5 < 30 -> kernel wait; k4 launched at 14 runs 100-110 -> gap 70 -> other.
  Trace t = ParseOrDie(KinetoJson(R"(
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 10, "args": {"stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 1, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 13, "dur": 0.5, "args": {"correlation": 3}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 14, "dur": 0.5, "args": {"correlation": 4}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 15, "dur": 5, "args": {"stream": 7, "correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 25, "dur": 5, "args": {"stream": 7, "correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 100, "dur": 10, "args": {"stream": 7, "correlation": 4}})"));
  IdleBreakdown idle = ComputeIdleBreakdown(t);
  ASSERT_EQ(idle.streams.size(), 1u);
  EXPECT_EQ(idle.streams[0].host_wait_ns, 5000);
  EXPECT_EQ(idle.streams[0].kernel_wait_ns, 5000);
  EXPECT_EQ(idle.streams[0].other_ns, 70000);
  EXPECT_EQ(idle.streams[0].gaps, 3);
  LaunchStats ls = ComputeLaunchStats(t);
  EXPECT_EQ(ls.matched, 3);
  // delays: 15 - 13 = 2, 25 - 13.5 = 11.5, 100 - 14.5 = 85.5 us
  EXPECT_EQ(ls.delay.total_ns, 2000 + 11500 + 85500);
  EXPECT_EQ(ls.delay.max_ns, 85500);
  QueueLength q = ComputeQueueLength(t, 2);
  ASSERT_EQ(q.streams.size(), 1u);
  // +1 at 12, 13, 14; -1 at 20, 30, 110: length 3 from 14 to 20, >= 2 from 13 to 30.
  EXPECT_EQ(q.streams[0].max_length, 3);
  EXPECT_EQ(q.streams[0].time_at_or_above_limit_ns, 17000);
}

}  // namespace
}  // namespace xpuperf::trace

namespace xpuperf::trace {
namespace {

// The shared cupti_profiler trace: 77 cudaLaunchKernel calls on the host, no GPU events. Its
// launches are counted, so the summary says the device side is missing instead of "CPU only".
TEST(AnalysesTest, HostLaunchesAreCountedWithoutGpuEvents) {
  const std::string path =
      testing::SharedTrace("cupti_profiler__benchmark_result_924719_1679055439_trace.json.gz");
  XPUPERF_REQUIRE_TRACE(path);
  auto text = TraceText::Load(path);
  ASSERT_TRUE(text.ok()) << text.error().message;
  auto trace = ParseTrace(text->view(), path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const LaunchStats launches = ComputeLaunchStats(*trace);
  EXPECT_EQ(launches.gpu_ops, 0);
  EXPECT_EQ(launches.host_launch_calls, 77);  // as counted with Python over the JSON
}

}  // namespace
}  // namespace xpuperf::trace
