// HTA's tables under --convention hta on handmade traces, values worked out by hand from HTA
// 0.5's definitions (hta_analyses.h); trace/tests/hta_referee.py checks the same functions
// against HTA itself on the shared and generated traces.
#include "xpuperf/trace/hta_analyses.h"

#include <gtest/gtest.h>

#include <cmath>

#include "trace_test_util.h"
#include "xpuperf/trace/hta_convention.h"

namespace xpuperf::trace {
namespace {

using testing::KinetoJson;
using testing::ParseOrDie;

std::string Kernel(const std::string& name, int64_t ts, int64_t dur, int stream, int correlation,
                   const std::string& category = "kernel", const std::string& extra = "") {
  return "{\"ph\":\"X\",\"cat\":\"" + category + "\",\"name\":\"" + name +
         "\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) +
         ",\"args\":{\"stream\":" + std::to_string(stream) +
         ",\"correlation\":" + std::to_string(correlation) + extra + "}}";
}

std::string Launch(int64_t ts, int64_t dur, int correlation,
                   const std::string& name = "cudaLaunchKernel") {
  return "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"" + name +
         "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) +
         ",\"args\":{\"correlation\":" + std::to_string(correlation) + "}}";
}

Trace HtaTrace(const std::string& events) {
  Trace trace = ParseOrDie(KinetoJson(events));
  ApplyHtaConvention(trace, /*drop_last_profiler_step=*/false);
  return trace;
}

// The names of a filtered rank's events, in its (start) order.
std::vector<std::string> Names(const Trace& trace) {
  std::vector<std::string> names;
  for (const TraceEvent& e : trace.events) names.emplace_back(trace.Name(e));
  return names;
}

TraceRun StepRun() {
  // Two steps [1000, 1100) and [1100, 1200) (the run's first ts is 1000), a kernel launched in
  // each, a kernel nothing launched, CPU ops in the last step, after it within its end + 1000
  // (HTA compares the aligned ts with the unaligned end) and beyond.
  const std::string events =
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1000,"dur":100},)"
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":1100,"dur":100},)" +
      Launch(1010, 5, 1) + "," + Kernel("k_first_step", 1020, 10, 7, 1) + "," + Launch(1110, 5, 2) +
      "," + Kernel("k_last_step", 1120, 10, 7, 2) + "," + Kernel("k_unlaunched", 1130, 10, 7, 99) +
      "," +
      R"({"ph":"X","cat":"cpu_op","name":"op_last_step","pid":1,"tid":1,"ts":1150,"dur":10},)"
      R"({"ph":"X","cat":"cpu_op","name":"op_within_end","pid":1,"tid":1,"ts":2150,"dur":10},)"
      R"({"ph":"X","cat":"cpu_op","name":"op_beyond","pid":1,"tid":1,"ts":2250,"dur":10})";
  TraceRun run;
  run.ranks.push_back(ParseOrDie(KinetoJson(events)));
  return run;
}

TEST(HtaConventionTest, LastProfilerStepDroppedOrIncludedAsHtaFilters) {
  TraceRun dropped = StepRun();
  EXPECT_EQ(ApplyHtaConvention(dropped, HtaLastStep::kDrop), 2);
  EXPECT_TRUE(dropped.ranks[0].hta_dropped_last_step);
  EXPECT_EQ(Names(dropped.ranks[0]),
            (std::vector<std::string>{"ProfilerStep#1", "cudaLaunchKernel", "k_first_step"}));
  TraceRun included = StepRun();
  EXPECT_EQ(ApplyHtaConvention(included, HtaLastStep::kInclude), 2);
  EXPECT_TRUE(included.ranks[0].hta_dropped_last_step);
  EXPECT_EQ(Names(included.ranks[0]),
            (std::vector<std::string>{"ProfilerStep#1", "cudaLaunchKernel", "k_first_step",
                                      "ProfilerStep#2", "cudaLaunchKernel", "k_last_step",
                                      "op_last_step", "op_within_end"}));
}

TEST(HtaConventionTest, OneProfilerStepNameFiltersNothing) {
  TraceRun run;
  run.ranks.push_back(ParseOrDie(KinetoJson(
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1000,"dur":100},)" +
      Kernel("k_unlaunched", 1130, 10, 7, 99))));
  EXPECT_EQ(ApplyHtaConvention(run, HtaLastStep::kInclude), 1);
  EXPECT_FALSE(run.ranks[0].hta_dropped_last_step);
  EXPECT_EQ(run.ranks[0].events.size(), 2u);
}

TEST(HtaAnalysesTest, NumpyRoundingAndPandasDescribe) {
  EXPECT_DOUBLE_EQ(RoundLikeNumpy(0.125, 2), 0.12);  // half to even
  EXPECT_DOUBLE_EQ(RoundLikeNumpy(0.135, 2), 0.14);
  EXPECT_DOUBLE_EQ(RoundLikeNumpy(61.65, 1), 61.6);  // 61.65 is 61.6499... as a double
  const HtaDescribe d = DescribeLikePandas({4, 1, 3, 2});
  EXPECT_EQ(d.count, 4);
  EXPECT_DOUBLE_EQ(d.mean, 2.5);
  EXPECT_DOUBLE_EQ(d.std, std::sqrt(5.0 / 3.0));  // sample standard deviation
  EXPECT_DOUBLE_EQ(d.min, 1);
  EXPECT_DOUBLE_EQ(d.p25, 1.75);  // linear interpolation at 0.25 * 3
  EXPECT_DOUBLE_EQ(d.p50, 2.5);
  EXPECT_DOUBLE_EQ(d.p75, 3.25);
  EXPECT_DOUBLE_EQ(d.max, 4);
  const HtaDescribe one = DescribeLikePandas({7});
  EXPECT_TRUE(std::isnan(one.std));
  EXPECT_TRUE(std::isnan(DescribeLikePandas({}).mean));
}

TEST(HtaAnalysesTest, OverlapIsShareOfMergedCommunicationTime) {
  // comm [100, 200) and [150, 250) merge to [100, 250): 150 us; compute [120, 160) and [240, 300)
  // overlap it for 40 + 10 us: 33.33 %.
  const Trace trace = HtaTrace(Kernel("ncclKernel_AllReduce", 100, 100, 20, 1) + "," +
                               Kernel("ncclKernel_AllGather", 150, 100, 21, 2) + "," +
                               Kernel("gemm", 120, 40, 7, 3) + "," + Kernel("gemm", 240, 60, 7, 4));
  const HtaOverlap overlap = ComputeHtaCommCompOverlap(trace);
  EXPECT_TRUE(overlap.has_comm);
  EXPECT_EQ(overlap.comm_us, 150);
  EXPECT_EQ(overlap.overlap_us, 50);
  EXPECT_DOUBLE_EQ(overlap.pctg, 33.33);
  EXPECT_FALSE(ComputeHtaCommCompOverlap(HtaTrace(Kernel("gemm", 1, 2, 7, 1))).has_comm);
}

TEST(HtaAnalysesTest, KernelTypeTimeNamesOverlappingCombinations) {
  const Trace trace =
      HtaTrace(Kernel("gemm", 0, 100, 7, 1) + "," + Kernel("ncclKernel_AllReduce", 60, 60, 20, 2) +
               "," + Kernel("Memcpy HtoD (Pinned -> Device)", 200, 10, 8, 3));
  const auto rows = ComputeHtaKernelTypes(trace);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].kernel_type, "COMPUTATION");
  EXPECT_EQ(rows[0].sum_us, 60);
  EXPECT_EQ(rows[1].kernel_type, "COMPUTATION overlapping COMMUNICATION");
  EXPECT_EQ(rows[1].sum_us, 40);
  EXPECT_EQ(rows[2].kernel_type, "COMMUNICATION");
  EXPECT_EQ(rows[2].sum_us, 20);
  EXPECT_EQ(rows[3].kernel_type, "MEMORY");
  EXPECT_DOUBLE_EQ(rows[0].percentage, 46.2);  // 60 / 130
  EXPECT_DOUBLE_EQ(rows[3].percentage, 7.7);
}

TEST(HtaAnalysesTest, KernelTableGroupsOthersAndKeepsNegativeSums) {
  // 12 computation names: k0..k10 with sums 120, 110, ..., 20, and one with a negative sum (a
  // sub-µs kernel rounded inward: ts 5.2 -> 6, end 5.9 -> 5). Past 10 names, those beyond the
  // first 10 or past the 0.8 quantile of the cumulative sum become "others"; the negative one
  // keeps its row (HTA's `sum < 0` keep mask).
  std::string events;
  for (int i = 0; i <= 10; ++i) {
    events += Kernel("k" + std::to_string(i), 1000 * i, 120 - 10 * i, 7, i + 1) + ",";
  }
  events += R"({"ph":"X","cat":"kernel","name":"tiny","pid":0,"tid":7,"ts":5.2,"dur":0.7,)"
            R"("args":{"stream":7,"correlation":99}})";
  const auto rows = ComputeHtaKernels(HtaTrace(events));
  // cumsum: 120 230 330 420 500 570 630 680 720 750 770 769; its 0.8 quantile (12 values,
  // position 8.8) = 720 + 0.8 * 30 = 744: k9 (750), k10 (770, also index 10) go to others.
  std::vector<std::string> names;
  for (const auto& row : rows) names.push_back(row.name);
  EXPECT_EQ(names, (std::vector<std::string>{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8",
                                             "others", "tiny"}));
  const HtaKernelRow& others = rows[9];
  EXPECT_DOUBLE_EQ(others.sum_us, 50);  // 30 + 20
  EXPECT_DOUBLE_EQ(others.max_us, 30);
  EXPECT_DOUBLE_EQ(others.min_us, 20);
  EXPECT_DOUBLE_EQ(others.mean_us, 25);
  EXPECT_DOUBLE_EQ(others.std_us, std::sqrt(50.0));
  EXPECT_DOUBLE_EQ(rows[0].max_us, 120);  // a kept name's max, min and mean are its sum
  EXPECT_DOUBLE_EQ(rows[10].sum_us, -1);
  EXPECT_EQ(rows[0].kernel_type, "COMPUTATION");
}

TEST(HtaAnalysesTest, IdleTimeByCausePerStream) {
  // Stream 7, kernels a..e: a [100, 110) is the first (its NaN gap counts 0, as "other"); b
  // [115, 120), launched at 90 < 110, gap 5 < 30: kernel wait; c [200, 210), launched at 150 >
  // 120: host wait 80; d [300, 310), launched at 250 > 210: host wait 90; e [400, 405), launched
  // at 205 < 310, gap 90 >= 30: other.
  const Trace trace = HtaTrace(Launch(50, 5, 1) + "," + Kernel("a", 100, 10, 7, 1) + "," +
                               Launch(90, 5, 2) + "," + Kernel("b", 115, 5, 7, 2) + "," +
                               Launch(150, 5, 3) + "," + Kernel("c", 200, 10, 7, 3) + "," +
                               Launch(250, 5, 4) + "," + Kernel("d", 300, 10, 7, 4) + "," +
                               Launch(205, 5, 5) + "," + Kernel("e", 400, 5, 7, 5));
  const auto rows = ComputeHtaIdleTime(trace);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].category, "host_wait");
  EXPECT_DOUBLE_EQ(rows[0].idle_time_us, 80 + 90);
  EXPECT_EQ(rows[1].category, "kernel_wait");
  EXPECT_DOUBLE_EQ(rows[1].idle_time_us, 5);
  EXPECT_EQ(rows[2].category, "other");  // e's 90 us (the first kernel's NaN gap counts 0)
  EXPECT_DOUBLE_EQ(rows[2].idle_time_us, 90);
  EXPECT_DOUBLE_EQ(rows[0].idle_time_ratio, RoundLikeNumpy(170.0 / 265, 2));
  EXPECT_EQ(rows[0].stream, 7);
  // One kernel alone: only the "other" row, 0 us, and a NaN share (0 / 0), as HTA.
  const auto alone = ComputeHtaIdleTime(HtaTrace(Kernel("a", 100, 10, 7, 1)));
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].category, "other");
  EXPECT_TRUE(std::isnan(alone[0].idle_time_ratio));
}

TEST(HtaAnalysesTest, LaunchStatisticsPairLaunchesAndOps) {
  // Delays: 100 - (50 + 5) = 45; 60 - (58 + 4) = -2 -> 0.
  const Trace trace =
      HtaTrace(Launch(50, 5, 1) + "," + Kernel("a", 100, 10, 7, 1) + "," + Launch(58, 4, 2) + "," +
               Kernel("b", 60, 20, 7, 2) + "," + Launch(70, 3, 3, "cudaStreamSynchronize"));
  const HtaLaunchSummary launch = ComputeHtaLaunchStats(trace);
  EXPECT_EQ(launch.cpu_duration.count, 2);
  EXPECT_DOUBLE_EQ(launch.cpu_duration.mean, 4.5);
  EXPECT_DOUBLE_EQ(launch.gpu_duration.max, 20);
  EXPECT_DOUBLE_EQ(launch.launch_delay.max, 45);
  EXPECT_DOUBLE_EQ(launch.launch_delay.min, 0);
}

TEST(HtaAnalysesTest, QueueLengthOverChangePointsAndUnpairedLaunches) {
  // Launches at 10, 20, 30; their ops start at 25, 40, 50 on stream 7: +1 +1 -1 +1 -1 -1.
  const Trace trace = HtaTrace(Launch(10, 1, 1) + "," + Launch(20, 1, 2) + "," + Launch(30, 1, 3) +
                               "," + Kernel("a", 25, 5, 7, 1) + "," + Kernel("b", 40, 5, 7, 2) +
                               "," + Kernel("c", 50, 5, 7, 3));
  const HtaQueueSummary queue = ComputeHtaQueueLength(trace);
  ASSERT_TRUE(queue.problem.empty()) << queue.problem;
  ASSERT_EQ(queue.streams.size(), 1u);
  EXPECT_EQ(queue.streams[0].stream, 7);
  const HtaDescribe& d = queue.streams[0].queue_length;
  EXPECT_EQ(d.count, 6);
  EXPECT_DOUBLE_EQ(d.mean, (1 + 2 + 1 + 2 + 1 + 0) / 6.0);
  EXPECT_DOUBLE_EQ(d.max, 2);
  // Two launch calls with one op's correlation: 2 launch rows but 1 op, HTA's assertion, said as
  // a problem.
  const Trace unpaired =
      HtaTrace(Launch(10, 1, 1) + "," + Launch(12, 1, 1) + "," + Kernel("a", 25, 5, 7, 1));
  const HtaQueueSummary broken = ComputeHtaQueueLength(unpaired);
  EXPECT_NE(broken.problem.find("do not pair up"), std::string::npos) << broken.problem;
}

TEST(HtaAnalysesTest, MemoryBandwidthInUsePerKind) {
  // Two HtoD copies overlap: 10 GB/s over [100, 150), 5 GB/s over [120, 170); a 0 µs memset
  // counts 1 µs. Points: 10, 15, 5, 0 (the last not positive) -> HtoD values 10, 15, 5.
  const std::string bw = R"x(,"memory bandwidth (GB/s)":)x";
  const Trace trace = HtaTrace(
      Kernel("Memcpy HtoD (Pinned -> Device)", 100, 50, 7, 1, "gpu_memcpy", bw + "10") + "," +
      Kernel("Memcpy HtoD (Pinned -> Device)", 120, 50, 8, 2, "gpu_memcpy", bw + "5") + "," +
      Kernel("Memset (Device)", 300, 0, 7, 3, "gpu_memset", bw + "2"));
  const auto rows = ComputeHtaMemoryBandwidth(trace);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, "Memcpy HtoD");
  EXPECT_EQ(rows[0].memory_bw_gbps.count, 3);
  EXPECT_DOUBLE_EQ(rows[0].memory_bw_gbps.mean, 10);
  EXPECT_DOUBLE_EQ(rows[0].memory_bw_gbps.max, 15);
  EXPECT_EQ(rows[1].kind, "Memset");
  EXPECT_EQ(rows[1].memory_bw_gbps.count, 1);
}

}  // namespace
}  // namespace xpuperf::trace
