#include "analysis_util.h"

#include <cctype>
#include <cmath>
#include <map>

namespace xpuperf::trace {

std::string_view KernelClassName(KernelClass k) {
  switch (k) {
    case KernelClass::kCompute:
      return "COMPUTE";
    case KernelClass::kComm:
      return "COMM";
    case KernelClass::kMemory:
      return "MEMORY";
  }
  return "COMPUTE";
}

KernelClass ClassifyKernel(std::string_view name, EventKind kind) {
  if (kind == EventKind::kMemcpy || kind == EventKind::kMemset) return KernelClass::kMemory;
  auto starts = [&](std::string_view prefix) {
    if (name.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(name[i])) != prefix[i]) return false;
    }
    return true;
  };
  if (starts("nccl") || starts("rccl") || starts("hccl") ||
      name.find("ncclKernel") != std::string_view::npos ||
      name.find("ncclDevKernel") != std::string_view::npos) {
    return KernelClass::kComm;
  }
  if (starts("memcpy") || starts("memset") || starts("dma")) return KernelClass::kMemory;
  return KernelClass::kCompute;
}

void DurationStats::Add(int64_t ns) {
  if (count == 0 || ns < min_ns) min_ns = ns;
  if (count == 0 || ns > max_ns) max_ns = ns;
  ++count;
  total_ns += ns;
  sum_sq_ += static_cast<double>(ns) * static_cast<double>(ns);
}

void DurationStats::Finish() {
  if (count == 0) return;
  mean_ns = static_cast<double>(total_ns) / static_cast<double>(count);
  double variance = sum_sq_ / static_cast<double>(count) - mean_ns * mean_ns;
  std_ns = variance > 0 ? std::sqrt(variance) : 0;
}

int64_t MergeIntervals(std::vector<Interval>& intervals) {
  if (intervals.empty()) return 0;
  // Usually built from events in start order already: then the sort is skipped.
  auto by_begin = [](const Interval& a, const Interval& b) { return a.begin < b.begin; };
  if (!std::is_sorted(intervals.begin(), intervals.end(), by_begin)) {
    std::sort(intervals.begin(), intervals.end(), by_begin);
  }
  size_t out = 0;
  for (size_t i = 1; i < intervals.size(); ++i) {
    if (intervals[i].begin <= intervals[out].end) {
      intervals[out].end = std::max(intervals[out].end, intervals[i].end);
    } else {
      intervals[++out] = intervals[i];
    }
  }
  intervals.resize(out + 1);
  int64_t total = 0;
  for (const auto& iv : intervals) total += iv.end - iv.begin;
  return total;
}

int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  size_t i = 0, j = 0;
  int64_t total = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].begin, b[j].begin);
    int64_t hi = std::min(a[i].end, b[j].end);
    if (hi > lo) total += hi - lo;
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

namespace internal {

LaunchIndex BuildLaunchIndex(const Trace& trace) {
  LaunchIndex index;
  // One pass over the events (large, and read by every analysis): the launches' correlations and
  // positions, in file order, then the index from that short list.
  struct Launch {
    int64_t correlation;
    uint32_t event;
  };
  std::vector<Launch> launches;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if ((e.kind != EventKind::kRuntime && e.kind != EventKind::kDriver) || e.correlation < 0) {
      continue;
    }
    lo = std::min(lo, e.correlation);
    hi = std::max(hi, e.correlation);
    launches.push_back({e.correlation, i});
  }
  if (launches.empty()) return index;
  const auto count = static_cast<int64_t>(launches.size());
  if (hi - lo < 16 * count + 1024) {  // at most 16 slots (128 bytes) per launch
    index.base_ = lo;
    index.dense_.assign(static_cast<size_t>(hi - lo + 1), -1);
    for (const Launch& launch : launches) {
      int64_t& slot = index.dense_[static_cast<size_t>(launch.correlation - lo)];
      if (slot < 0) slot = launch.event;
    }
    return index;
  }
  for (const Launch& launch : launches) index.sparse_.emplace(launch.correlation, launch.event);
  return index;
}

std::vector<StreamOps> GpuOpsByStream(const Trace& trace) {
  std::map<std::pair<int, int>, std::vector<uint32_t>> by_stream;
  for (uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if (IsGpuOp(e.kind)) by_stream[{e.device, e.stream}].push_back(i);
  }
  std::vector<StreamOps> result;
  result.reserve(by_stream.size());
  for (auto& [key, ops] : by_stream) result.push_back({key.first, key.second, std::move(ops)});
  return result;
}

int64_t Percentile(std::vector<int64_t>& values, double q) {
  if (values.empty()) return 0;
  auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  if (rank == 0) rank = 1;
  // The rank-th smallest value: what sorting would put there, found in linear time.
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::min(rank, values.size()) - 1);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

}  // namespace internal
}  // namespace xpuperf::trace
