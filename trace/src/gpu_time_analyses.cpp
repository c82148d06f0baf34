// Temporal breakdown, idle time, kernel breakdown and comm/compute overlap.
#include <algorithm>
#include <unordered_map>

#include "analysis_util.h"
#include "xpuperf/trace/hta_convention.h"

namespace xpuperf::trace {

using internal::KernelClassCache;

TemporalBreakdown ComputeTemporalBreakdown(const Trace& trace) {
  if (trace.convention == Convention::kHta) return ComputeHtaTemporalBreakdown(trace);
  TemporalBreakdown result;
  result.rank = trace.rank;
  KernelClassCache classes(trace);
  std::vector<Interval> busy, compute;
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const TraceEvent& e : trace.events) {
    if (!IsGpuOp(e.kind)) continue;
    ++result.gpu_ops;
    first = std::min(first, e.ts_ns);
    last = std::max(last, e.end_ns());
    busy.push_back({e.ts_ns, e.end_ns()});
    if (classes.Of(e) == KernelClass::kCompute) compute.push_back({e.ts_ns, e.end_ns()});
  }
  if (result.gpu_ops == 0) return result;
  result.window_ns = last - first;
  result.busy_ns = MergeIntervals(busy);
  result.compute_ns = MergeIntervals(compute);
  result.non_compute_ns = result.busy_ns - result.compute_ns;
  result.idle_ns = result.window_ns - result.busy_ns;
  return result;
}

IdleBreakdown ComputeIdleBreakdown(const Trace& trace, int64_t kernel_wait_threshold_ns) {
  IdleBreakdown result;
  result.rank = trace.rank;
  result.kernel_wait_threshold_ns = kernel_wait_threshold_ns;
  internal::LaunchIndex launches = internal::BuildLaunchIndex(trace);
  for (const auto& stream : internal::GpuOpsByStream(trace)) {
    StreamIdle idle;
    idle.device = stream.device;
    idle.stream = stream.stream;
    std::vector<Interval> busy;
    int64_t prev_end = INT64_MIN;
    int64_t first = INT64_MAX;
    for (uint32_t index : stream.ops) {
      const TraceEvent& op = trace.events[index];
      first = std::min(first, op.ts_ns);
      busy.push_back({op.ts_ns, op.end_ns()});
      if (prev_end != INT64_MIN && op.ts_ns > prev_end) {
        int64_t gap = op.ts_ns - prev_end;
        ++idle.gaps;
        idle.idle_ns += gap;
        int64_t launch = launches.Find(op.correlation);
        if (launch >= 0 && trace.events[launch].ts_ns > prev_end) {
          idle.host_wait_ns += gap;
        } else if (gap < kernel_wait_threshold_ns) {
          idle.kernel_wait_ns += gap;
        } else {
          idle.other_ns += gap;
        }
      }
      prev_end = std::max(prev_end, op.end_ns());
    }
    idle.window_ns = prev_end - first;
    idle.busy_ns = MergeIntervals(busy);
    result.streams.push_back(idle);
  }
  return result;
}

KernelBreakdown ComputeKernelBreakdown(const Trace& trace, size_t top_k) {
  KernelBreakdown result;
  result.rank = trace.rank;
  KernelClassCache classes(trace);
  std::unordered_map<uint32_t, KernelStat> by_name;
  for (const TraceEvent& e : trace.events) {
    if (!IsGpuOp(e.kind)) continue;
    KernelClass k = classes.Of(e);
    result.class_total_ns[static_cast<int>(k)] += e.dur_ns;
    ++result.class_count[static_cast<int>(k)];
    result.total_ns += e.dur_ns;
    KernelStat& stat = by_name[e.name];
    stat.kernel_class = k;
    stat.duration.Add(e.dur_ns);
  }
  result.distinct_kernels = static_cast<int64_t>(by_name.size());
  std::vector<std::pair<uint32_t, KernelStat*>> sorted;
  sorted.reserve(by_name.size());
  for (auto& [name, stat] : by_name) sorted.push_back({name, &stat});
  std::sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) {
    if (a.second->duration.total_ns != b.second->duration.total_ns) {
      return a.second->duration.total_ns > b.second->duration.total_ns;
    }
    return trace.strings.Get(a.first) < trace.strings.Get(b.first);
  });
  for (size_t i = 0; i < sorted.size() && i < top_k; ++i) {
    KernelStat stat = *sorted[i].second;
    stat.name = std::string(trace.strings.Get(sorted[i].first));
    stat.duration.Finish();
    result.top.push_back(std::move(stat));
  }
  return result;
}

CommComputeOverlap ComputeCommComputeOverlap(const Trace& trace) {
  CommComputeOverlap result;
  result.rank = trace.rank;
  KernelClassCache classes(trace);
  std::vector<Interval> comm, compute;
  for (const TraceEvent& e : trace.events) {
    if (e.kind != EventKind::kKernel) continue;
    KernelClass k = classes.Of(e);
    if (k == KernelClass::kComm) comm.push_back({e.ts_ns, e.end_ns()});
    if (k == KernelClass::kCompute) compute.push_back({e.ts_ns, e.end_ns()});
  }
  result.comm_ns = MergeIntervals(comm);
  result.compute_ns = MergeIntervals(compute);
  result.overlap_ns = IntersectionLength(comm, compute);
  result.overlap_ratio = result.comm_ns > 0 ? static_cast<double>(result.overlap_ns) /
                                                  static_cast<double>(result.comm_ns)
                                            : 0;
  return result;
}

}  // namespace xpuperf::trace
