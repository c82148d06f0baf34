// HTA's analyses that walk a rank's frame in time order under `--convention hta`
// (hta_analyses.h): idle time by cause, launch statistics, queue length and memory bandwidth.
// Each follows HTA 0.5's pandas code step by step (python/xpuperf/_hta_frames.py does it in
// pandas). pandas sorts with numpy's unstable quicksort; events with equal timestamps are taken
// here in frame order (a stable sort), which is where a result can differ from HTA's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "hta_frame.h"
#include "xpuperf/trace/hta_analyses.h"

namespace xpuperf::trace {
namespace {

using internal::HtaMicros;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

bool IsOneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// HTA's categories of GPU events for the idle time breakdown (breakdown_analysis.py).
bool IsIdleKernelCategory(std::string_view category) {
  return IsOneOf(category, {"kernel", "Kernel", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy",
                            "mtia_ccp_events"});
}

// The stream as HTA's column holds it (4294967295 where Kineto wrote it for Context Sync).
int64_t HtaStream(const TraceEvent& e) {
  return (e.hta_flags & kHtaStreamWide) != 0 ? int64_t{4294967295} : e.stream;
}

// HTA's get_memory_kernel_type: "Memset", "Memcpy XtoY" (the name's first 11 characters) or
// "Memcpy Unknown".
std::string MemoryKind(std::string_view name) {
  if (name.substr(0, 6) == "Memset") return "Memset";
  if (name.substr(0, 6) != "Memcpy") return "Memcpy Unknown";
  return std::string(name.substr(0, 11));
}

}  // namespace

std::vector<HtaIdleRow> ComputeHtaIdleTime(const Trace& trace,
                                           int64_t consecutive_kernel_delay_us) {
  const std::vector<const TraceEvent*> frame = HtaFrameOrder(trace);
  // A kernel's launch, looked up by HTA's row label (file position): its ts, µs.
  std::unordered_map<uint32_t, int64_t> ts_by_label;
  for (const TraceEvent* e : frame) ts_by_label.emplace(e->file_index, HtaMicros(e->ts_ns));
  struct Kernel {
    int64_t ts, end;
    double runtime_ts;  // NaN when the launch is not in the frame
  };
  std::vector<int64_t> streams;  // in the order of their first kernel
  std::map<int64_t, std::vector<Kernel>> by_stream;
  for (const TraceEvent* e : frame) {
    if (e->stream == -1 || !IsIdleKernelCategory(trace.Category(*e))) continue;
    const int64_t stream = HtaStream(*e);
    auto [it, inserted] = by_stream.try_emplace(stream);
    if (inserted) streams.push_back(stream);
    const auto launch = ts_by_label.find(static_cast<uint32_t>(e->hta_index_correlation));
    const double runtime_ts = e->hta_index_correlation >= 0 && launch != ts_by_label.end()
                                  ? static_cast<double>(launch->second)
                                  : kNan;
    const int64_t ts = HtaMicros(e->ts_ns);
    it->second.push_back({ts, ts + HtaMicros(e->dur_ns), runtime_ts});
  }
  static constexpr const char* kCategories[] = {"host_wait", "kernel_wait", "other"};
  std::vector<HtaIdleRow> rows;
  for (int64_t stream : streams) {
    std::vector<Kernel>& kernels = by_stream[stream];
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](const Kernel& a, const Kernel& b) { return a.ts < b.ts; });
    double sums[3] = {0, 0, 0};
    bool present[3] = {false, false, false};
    for (size_t k = 0; k < kernels.size(); ++k) {
      const double prev_end = k == 0 ? kNan : static_cast<double>(kernels[k - 1].end);
      const double gap = static_cast<double>(kernels[k].ts) - prev_end;
      int category = 2;
      if (kernels[k].runtime_ts > prev_end) {
        category = 0;
      } else if (gap < static_cast<double>(consecutive_kernel_delay_us)) {
        category = 1;
      }
      present[category] = true;
      if (!std::isnan(gap)) sums[category] += gap;
    }
    const double total = sums[0] + sums[1] + sums[2];
    for (int c = 0; c < 3; ++c) {
      if (!present[c]) continue;
      rows.push_back(
          {stream, kCategories[c], RoundLikeNumpy(sums[c], 2), RoundLikeNumpy(sums[c] / total, 2)});
    }
  }
  return rows;
}

HtaLaunchSummary ComputeHtaLaunchStats(const Trace& trace, bool include_memory_events) {
  std::unordered_set<int64_t> launches;
  for (const TraceEvent& e : trace.events) {
    const std::string_view name = trace.Name(e);
    if (IsOneOf(name, {"cudaLaunchKernel", "cudaLaunchKernelExC",
                       "runFunction - job_prep_and_submit_for_execution"}) ||
        (include_memory_events && IsOneOf(name, {"cudaMemsetAsync", "cudaMemcpyAsync"}))) {
      launches.insert(e.correlation);
    }
  }
  // An inner join of the CPU side (stream -1) and the GPU side on correlation: one row per pair.
  std::unordered_map<int64_t, std::vector<const TraceEvent*>> gpu_by_correlation;
  for (const TraceEvent& e : trace.events) {
    if (e.stream != -1 && launches.count(e.correlation) > 0) {
      gpu_by_correlation[e.correlation].push_back(&e);
    }
  }
  std::vector<double> cpu_duration, gpu_duration, launch_delay;
  for (const TraceEvent& cpu : trace.events) {
    if (cpu.stream != -1 || launches.count(cpu.correlation) == 0) continue;
    const auto gpu = gpu_by_correlation.find(cpu.correlation);
    if (gpu == gpu_by_correlation.end()) continue;
    for (const TraceEvent* op : gpu->second) {
      cpu_duration.push_back(static_cast<double>(HtaMicros(cpu.dur_ns)));
      gpu_duration.push_back(static_cast<double>(HtaMicros(op->dur_ns)));
      const int64_t delay = HtaMicros(op->ts_ns) - HtaMicros(cpu.ts_ns) - HtaMicros(cpu.dur_ns);
      launch_delay.push_back(static_cast<double>(std::max<int64_t>(delay, 0)));
    }
  }
  return {DescribeLikePandas(std::move(cpu_duration)), DescribeLikePandas(std::move(gpu_duration)),
          DescribeLikePandas(std::move(launch_delay))};
}

HtaQueueSummary ComputeHtaQueueLength(const Trace& trace) {
  const std::vector<const TraceEvent*> frame = HtaFrameOrder(trace);
  // The GPU ops by correlation (frame order): a launch takes the stream of each (HTA's join
  // repeats the launch when several GPU ops share its correlation).
  std::unordered_map<int64_t, std::vector<int64_t>> streams_of;
  for (const TraceEvent* e : frame) {
    if (e->stream != -1) streams_of[e->correlation].push_back(HtaStream(*e));
  }
  struct Change {
    int64_t ts;
    int64_t stream;  // INT64_MIN: the launch has no GPU op (HTA: NaN, left out by groupby)
    int delta;
  };
  std::vector<Change> changes;
  std::unordered_set<int64_t> launched;
  int64_t launch_rows = 0;
  for (const TraceEvent* e : frame) {
    if (e->hta_index_correlation <= 0 ||
        !IsOneOf(trace.Name(*e),
                 {"cudaMemsetAsync", "cudaMemcpyAsync", "cudaLaunchKernel", "cudaLaunchKernelExC",
                  "cuLaunchKernel", "runFunction - job_prep_and_submit_for_execution",
                  "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
                  "hipMemcpyWithStream"})) {
      continue;
    }
    launched.insert(e->correlation);
    const auto ops = streams_of.find(e->correlation);
    if (ops == streams_of.end()) {
      ++launch_rows;
      changes.push_back({HtaMicros(e->ts_ns), std::numeric_limits<int64_t>::min(), 1});
      continue;
    }
    for (int64_t stream : ops->second) {
      ++launch_rows;
      changes.push_back({HtaMicros(e->ts_ns), stream, 1});
    }
  }
  int64_t op_rows = 0;
  for (const TraceEvent* e : frame) {
    if (e->stream == -1 || launched.count(e->correlation) == 0) continue;
    ++op_rows;
    changes.push_back({HtaMicros(e->ts_ns), HtaStream(*e), -1});
  }
  HtaQueueSummary summary;
  if (launch_rows != op_rows) {
    summary.problem = "HTA fails on this rank (an assertion): " + std::to_string(launch_rows) +
                      " launch rows but " + std::to_string(op_rows) +
                      " GPU ops of them; they do not pair up one to one";
    return summary;
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return a.ts < b.ts; });
  std::map<int64_t, std::vector<double>> lengths;  // by stream
  std::map<int64_t, int64_t> running;
  for (const Change& c : changes) {
    if (c.stream == std::numeric_limits<int64_t>::min()) continue;
    lengths[c.stream].push_back(static_cast<double>(running[c.stream] += c.delta));
  }
  for (auto& [stream, values] : lengths) {
    summary.streams.push_back({stream, DescribeLikePandas(std::move(values))});
  }
  return summary;
}

std::vector<HtaMemoryBwRow> ComputeHtaMemoryBandwidth(const Trace& trace) {
  std::unordered_map<uint32_t, double> gbps_by_index;  // the last value of an event wins
  for (const auto& [index, gbps] : trace.memory_bandwidth_gbps) gbps_by_index[index] = gbps;
  struct Point {
    int64_t ts;
    double gbps;
  };
  // Starts first, then ends, each in frame order (HTA's concat), then sorted by time.
  std::map<std::string, std::vector<Point>> starts, ends;
  for (const TraceEvent* e : HtaFrameOrder(trace)) {
    if (e->stream == -1) continue;
    const std::string_view name = trace.Name(*e);
    if (HtaKernelTypeOf(name) != HtaKernelType::kMemory) continue;
    const auto found = gbps_by_index.find(e->file_index);
    const double gbps = found == gbps_by_index.end() ? 0.0 : found->second;
    const int64_t ts = HtaMicros(e->ts_ns);
    int64_t dur = HtaMicros(e->dur_ns);
    if (dur == 0) dur = 1;  // HTA's guard against negative values
    const std::string kind = MemoryKind(name);
    starts[kind].push_back({ts, gbps});
    ends[kind].push_back({ts + dur, -gbps});
  }
  std::vector<HtaMemoryBwRow> rows;
  for (auto& [kind, points] : starts) {
    std::vector<Point>& tail = ends[kind];
    points.insert(points.end(), tail.begin(), tail.end());
    std::stable_sort(points.begin(), points.end(),
                     [](const Point& a, const Point& b) { return a.ts < b.ts; });
    std::vector<double> positive;
    double in_use = 0;
    for (const Point& p : points) {
      in_use += p.gbps;
      if (in_use > 0) positive.push_back(in_use);
    }
    // A kind whose bandwidth is never positive has no row (its group is empty after HTA's filter).
    if (!positive.empty()) rows.push_back({kind, DescribeLikePandas(std::move(positive))});
  }
  return rows;
}

}  // namespace xpuperf::trace
