// HTA's analyses, with HTA's definitions, on a rank read under `--convention hta`
// (ApplyHtaConvention): the comm/compute overlap, the kernel-type and per-kernel breakdowns, the
// idle time breakdown, the launch statistics, and the queue length and memory bandwidth
// summaries, each as Holistic Trace Analysis 0.5 computes it (its pandas operations, their
// quirks included: docs/TRACES.md, "The hta convention"). Times are HTA's whole microseconds.
// trace/tests/hta_referee.py compares every table with HTA itself. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

// numpy's round(x, decimals) (round half to even of x * 10^decimals), as HTA rounds its columns.
double RoundLikeNumpy(double x, int decimals);

// pandas' Series.describe() of a numeric column: count, mean, std (ddof = 1, NaN below two
// values), min, the 25/50/75 % quantiles (linear interpolation, numpy's formula) and max; NaN
// everywhere but count when there are no values.
struct HtaDescribe {
  int64_t count = 0;
  double mean = 0, std = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;
};
HtaDescribe DescribeLikePandas(std::vector<double> values);

// The events of HTA's frame of the rank, in its row order: file order, or, when the last
// ProfilerStep was dropped, the kept GPU kernels (each repeated once per kept CPU event of its
// correlation) before the kept CPU events, each part in file order.
std::vector<const TraceEvent*> HtaFrameOrder(const Trace& trace);

// get_comm_comp_overlap: the share of the merged communication-kernel time that overlaps merged
// computation-kernel time, in % rounded to 2 decimals; has_comm false (HTA: NaN) without
// communication time.
struct HtaOverlap {
  bool has_comm = false;
  double pctg = 0;
  int64_t comm_us = 0;
  int64_t overlap_us = 0;
};
HtaOverlap ComputeHtaCommCompOverlap(const Trace& trace);

// get_gpu_kernel_breakdown's kernel_type_df for one rank: the time (µs) during which each
// combination of kernel types runs ("COMPUTATION overlapping COMMUNICATION"), over the union of
// each type's kernels, by time descending; percentage of the total, rounded to 1 decimal.
// Combinations that run for 0 µs are left out (HTA lists some of them, depending on its sort).
struct HtaKernelTypeRow {
  std::string kernel_type;
  int64_t sum_us = 0;
  double percentage = 0;
};
std::vector<HtaKernelTypeRow> ComputeHtaKernelTypes(const Trace& trace,
                                                    bool include_memory_kernels = true);

// get_gpu_kernel_breakdown's kernel_df for one rank: per kernel type and name, sum, max, min,
// mean and sample std (0 for one kernel) of the durations (µs); past `num_kernels` names of a
// type, the names beyond the first num_kernels by sum or past the `duration_ratio` quantile of
// the cumulative sum are one row "others" (aggregated over the names' sums; the other names'
// max, min and mean then equal their sum, as in HTA); a name whose durations sum below zero (HTA's
// rounding of sub-µs kernels) keeps its row (HTA's never-meant-to-match keep mask `sum < 0`).
// Sorted by kernel type, then name.
struct HtaKernelRow {
  std::string kernel_type;
  std::string name;
  double sum_us = 0, max_us = 0, min_us = 0, mean_us = 0, std_us = 0;
};
std::vector<HtaKernelRow> ComputeHtaKernels(const Trace& trace, int num_kernels = 10,
                                            double duration_ratio = 0.8,
                                            bool include_memory_kernels = true);

// get_idle_time_breakdown for one rank: per stream (in the order of its first kernel in the
// frame), the gaps between its consecutive kernels (categories kernel/gpu_memcpy/gpu_memset...)
// by cause: host_wait (the launch began after the previous kernel ended), kernel_wait (a gap
// below consecutive_kernel_delay µs), other (the rest, and the stream's first kernel, whose gap
// is NaN and counts 0); negative gaps are summed as they are. idle_time (µs) and its share of
// the stream's idle time, rounded to 2 decimals (NaN share when the stream's idle time is 0).
struct HtaIdleRow {
  int64_t stream = -1;
  std::string category;  // host_wait, kernel_wait, other
  double idle_time_us = 0;
  double idle_time_ratio = 0;
};
std::vector<HtaIdleRow> ComputeHtaIdleTime(const Trace& trace,
                                           int64_t consecutive_kernel_delay_us = 30);

// get_cuda_kernel_launch_stats for one rank, summarised: HTA's frame has one row per pair of a
// launch call (cudaLaunchKernel, cudaLaunchKernelExC, MTIA's runFunction, and with
// include_memory_events cudaMemsetAsync / cudaMemcpyAsync) and a GPU op of its correlation;
// cpu_duration, gpu_duration and launch_delay (GPU start - CPU end, clipped at 0), µs. Each
// column described as pandas describes it.
struct HtaLaunchSummary {
  HtaDescribe cpu_duration, gpu_duration, launch_delay;
};
HtaLaunchSummary ComputeHtaLaunchStats(const Trace& trace, bool include_memory_events = true);

// get_queue_length_summary for one rank: per stream, describe() of the queue length (launches
// not yet started on the GPU) over its change points (+1 at a launch call, -1 at its GPU op's
// start; not weighted by time, as HTA). `problem` says why there is no summary where HTA raises
// (launch calls and their GPU ops do not pair up one to one).
struct HtaQueueRow {
  int64_t stream = -1;
  HtaDescribe queue_length;
};
struct HtaQueueSummary {
  std::vector<HtaQueueRow> streams;  // by stream
  std::string problem;
};
HtaQueueSummary ComputeHtaQueueLength(const Trace& trace);

// get_memory_bw_summary for one rank: per memory-op kind ("Memcpy HtoD", "Memset", ...), the
// bandwidth in use (GB/s, the sum of the running ops' args."memory bandwidth (GB/s)") at each
// op's start and end (a 0 µs op counts 1 µs), described over the points where it is positive.
struct HtaMemoryBwRow {
  std::string kind;
  HtaDescribe memory_bw_gbps;
};
std::vector<HtaMemoryBwRow> ComputeHtaMemoryBandwidth(const Trace& trace);

}  // namespace xpuperf::trace
