// HTA's statistics helpers, its frame order, and its kernel analyses (comm/compute overlap,
// kernel-type time, per-kernel breakdown) under `--convention hta` (hta_analyses.h). Each follows
// HTA 0.5's pandas code step by step; python/xpuperf/hta.py does the same in pandas.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "hta_frame.h"
#include "xpuperf/trace/hta_analyses.h"
#include "xpuperf/trace/hta_convention.h"

namespace xpuperf::trace {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// numpy's linear interpolation between two sorted neighbours (its _lerp: from the upper one when
// t >= 0.5, so that the result is exact at t = 1).
double Lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

double QuantileOfSorted(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return Lerp(sorted[below], sorted[above], position - static_cast<double>(below));
}

// HTA's merge_kernel_intervals over (ts, end) pairs: sorted by ts, a new interval where ts
// exceeds the running maximum of the ends before it.
std::vector<internal::HtaInterval> MergeLikeHta(std::vector<internal::HtaInterval> intervals) {
  std::stable_sort(intervals.begin(), intervals.end(),
                   [](const auto& a, const auto& b) { return a.ts < b.ts; });
  std::vector<internal::HtaInterval> merged;
  int64_t running_end = std::numeric_limits<int64_t>::min();
  for (const auto& interval : intervals) {
    if (merged.empty() || interval.ts > running_end) {
      merged.push_back(interval);
    } else {
      merged.back().end = std::max(merged.back().end, interval.end);
    }
    running_end = std::max(running_end, interval.end);
  }
  return merged;
}

const char* HtaKernelTypeName(HtaKernelType type) {
  switch (type) {
    case HtaKernelType::kComputation:
      return "COMPUTATION";
    case HtaKernelType::kCommunication:
      return "COMMUNICATION";
    case HtaKernelType::kMemory:
      return "MEMORY";
    case HtaKernelType::kOther:
      break;
  }
  return "OTHER";
}

std::vector<HtaKernelType> AnalysedTypes(bool include_memory_kernels) {
  std::vector<HtaKernelType> types = {HtaKernelType::kComputation, HtaKernelType::kCommunication};
  if (include_memory_kernels) types.push_back(HtaKernelType::kMemory);
  return types;
}

// Sum, max, min, mean and sample std (NaN -> 0) of a group, as pandas' agg computes them.
HtaKernelRow Aggregate(const std::vector<double>& values) {
  HtaKernelRow row;
  double sum = 0;
  row.max_us = -std::numeric_limits<double>::infinity();
  row.min_us = std::numeric_limits<double>::infinity();
  for (double v : values) {
    sum += v;
    row.max_us = std::max(row.max_us, v);
    row.min_us = std::min(row.min_us, v);
  }
  row.sum_us = sum;
  const auto n = static_cast<double>(values.size());
  row.mean_us = sum / n;
  double squares = 0;
  for (double v : values) squares += (v - row.mean_us) * (v - row.mean_us);
  row.std_us = values.size() > 1 ? std::sqrt(squares / (n - 1)) : 0;
  return row;
}

}  // namespace

namespace internal {

std::vector<HtaInterval> HtaGpuIntervals(const Trace& trace, HtaKernelType type) {
  std::vector<HtaInterval> intervals;
  for (const TraceEvent& e : trace.events) {
    if (e.stream == -1 || HtaKernelTypeOf(trace.Name(e)) != type) continue;
    intervals.push_back({HtaMicros(e.ts_ns), HtaMicros(e.ts_ns) + HtaMicros(e.dur_ns)});
  }
  return intervals;
}

}  // namespace internal

double RoundLikeNumpy(double x, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::nearbyint(x * scale) / scale;
}

HtaDescribe DescribeLikePandas(std::vector<double> values) {
  HtaDescribe d;
  d.count = static_cast<int64_t>(values.size());
  if (values.empty()) {
    d.mean = d.std = d.min = d.p25 = d.p50 = d.p75 = d.max = kNan;
    return d;
  }
  double sum = 0;
  for (double v : values) sum += v;
  const auto n = static_cast<double>(values.size());
  d.mean = sum / n;
  double squares = 0;
  for (double v : values) squares += (v - d.mean) * (v - d.mean);
  d.std = values.size() > 1 ? std::sqrt(squares / (n - 1)) : kNan;
  std::sort(values.begin(), values.end());
  d.min = values.front();
  d.max = values.back();
  d.p25 = QuantileOfSorted(values, 0.25);
  d.p50 = QuantileOfSorted(values, 0.5);
  d.p75 = QuantileOfSorted(values, 0.75);
  return d;
}

std::vector<const TraceEvent*> HtaFrameOrder(const Trace& trace) {
  std::vector<const TraceEvent*> order;
  order.reserve(trace.events.size());
  for (const TraceEvent& e : trace.events) order.push_back(&e);
  const bool gpu_first = trace.hta_dropped_last_step;
  auto group = [&](const TraceEvent* e) {
    return gpu_first && !internal::IsHtaGpuKernel(trace, *e) ? 1 : 0;
  };
  std::stable_sort(order.begin(), order.end(), [&](const TraceEvent* a, const TraceEvent* b) {
    const int ga = group(a), gb = group(b);
    if (ga != gb) return ga < gb;
    return a->file_index < b->file_index;
  });
  return order;
}

HtaOverlap ComputeHtaCommCompOverlap(const Trace& trace) {
  const auto comp = MergeLikeHta(internal::HtaGpuIntervals(trace, HtaKernelType::kComputation));
  const auto comm = MergeLikeHta(internal::HtaGpuIntervals(trace, HtaKernelType::kCommunication));
  HtaOverlap result;
  size_t i = 0, j = 0;
  while (i < comp.size() && j < comm.size()) {
    const int64_t low = std::max(comp[i].ts, comm[j].ts);
    const int64_t high = std::min(comp[i].end, comm[j].end);
    if (high > low) result.overlap_us += high - low;
    if (comp[i].end < comm[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  for (const auto& c : comm) result.comm_us += c.end - c.ts;
  result.has_comm = result.comm_us != 0;
  if (result.has_comm) {
    result.pctg = RoundLikeNumpy(
        100 * (static_cast<double>(result.overlap_us) / static_cast<double>(result.comm_us)), 2);
  }
  return result;
}

std::vector<HtaKernelTypeRow> ComputeHtaKernelTypes(const Trace& trace,
                                                    bool include_memory_kernels) {
  // A sweep over the merged intervals of each type: +bit at a start, -bit at an end; the running
  // sum names the combination that runs until the next point.
  struct Point {
    int64_t time;
    int delta;
  };
  std::vector<Point> points;
  const std::vector<HtaKernelType> types = AnalysedTypes(include_memory_kernels);
  for (size_t bit = 0; bit < types.size(); ++bit) {
    const int value = 1 << bit;
    for (const auto& m : MergeLikeHta(internal::HtaGpuIntervals(trace, types[bit]))) {
      points.push_back({m.ts, value});
      points.push_back({m.end, -value});
    }
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const Point& a, const Point& b) { return a.time < b.time; });
  std::map<int, int64_t> by_running;
  int running = 0;
  for (size_t p = 0; p + 1 < points.size(); ++p) {
    running += points[p].delta;
    if (running > 0) by_running[running] += points[p + 1].time - points[p].time;
  }
  std::vector<HtaKernelTypeRow> rows;
  int64_t total = 0;
  for (const auto& [mask, sum] : by_running) {
    if (sum == 0) continue;
    std::string label;
    for (size_t bit = 0; bit < types.size(); ++bit) {
      if ((mask & (1 << bit)) == 0) continue;
      if (!label.empty()) label += " overlapping ";
      label += HtaKernelTypeName(types[bit]);
    }
    rows.push_back({label, sum, 0});
    total += sum;
  }
  // By time, descending; equal times in label order (pandas' sort keeps the groupby's order).
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.sum_us != b.sum_us ? a.sum_us > b.sum_us : a.kernel_type < b.kernel_type;
  });
  for (auto& row : rows) {
    row.percentage =
        RoundLikeNumpy(static_cast<double>(row.sum_us) / static_cast<double>(total) * 100, 1);
  }
  return rows;
}

std::vector<HtaKernelRow> ComputeHtaKernels(const Trace& trace, int num_kernels,
                                            double duration_ratio, bool include_memory_kernels) {
  std::vector<HtaKernelRow> result;
  for (HtaKernelType type : AnalysedTypes(include_memory_kernels)) {
    std::map<std::string, std::vector<double>> durations;  // by name, as groupby sorts
    for (const TraceEvent& e : trace.events) {
      if (e.stream == -1) continue;
      const std::string_view name = trace.Name(e);
      if (HtaKernelTypeOf(name) != type) continue;
      durations[std::string(name)].push_back(static_cast<double>(internal::HtaMicros(e.dur_ns)));
    }
    std::vector<HtaKernelRow> rows;
    for (const auto& [name, values] : durations) {
      HtaKernelRow row = Aggregate(values);
      row.name = name;
      rows.push_back(std::move(row));
    }
    // By sum, descending; equal sums keep the name order (pandas' descending sort of a
    // stable argsort).
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.sum_us > b.sum_us; });
    if (rows.size() > static_cast<size_t>(std::max(num_kernels, 0))) {
      std::vector<double> cumulative;
      cumulative.reserve(rows.size());
      double running = 0;
      for (const auto& row : rows) cumulative.push_back(running += row.sum_us);
      std::vector<double> sorted = cumulative;
      std::sort(sorted.begin(), sorted.end());
      const double quantile = QuantileOfSorted(sorted, duration_ratio);
      // Each name's sum becomes one value of its group; "others" gathers the rest.
      std::map<std::string, std::vector<double>> groups;
      for (size_t r = 0; r < rows.size(); ++r) {
        // HTA's "keep" mask is `sum < 0` (meant to be always false): a name whose durations sum
        // below zero (sub-µs kernels rounded inward) keeps its own row.
        const bool other = rows[r].sum_us >= 0 &&
                           (cumulative[r] > quantile || r >= static_cast<size_t>(num_kernels));
        groups[other ? "others" : rows[r].name].push_back(rows[r].sum_us);
      }
      rows.clear();
      for (const auto& [name, sums] : groups) {
        HtaKernelRow row = Aggregate(sums);
        row.name = name;
        rows.push_back(std::move(row));
      }
    }
    for (auto& row : rows) row.kernel_type = HtaKernelTypeName(type);
    result.insert(result.end(), rows.begin(), rows.end());
  }
  std::stable_sort(result.begin(), result.end(), [](const auto& a, const auto& b) {
    return a.kernel_type != b.kernel_type ? a.kernel_type < b.kernel_type : a.name < b.name;
  });
  return result;
}

}  // namespace xpuperf::trace
