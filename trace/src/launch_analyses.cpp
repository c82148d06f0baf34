// Kernel launch statistics and per-stream queue length.
#include <algorithm>
#include <unordered_map>

#include "analysis_util.h"

namespace xpuperf::trace {

LaunchStats ComputeLaunchStats(const Trace& trace) {
  LaunchStats result;
  result.rank = trace.rank;
  internal::LaunchIndex launches = internal::BuildLaunchIndex(trace);
  std::vector<int64_t> delays;
  std::unordered_map<uint32_t, LaunchCall> calls;
  std::unordered_map<uint32_t, bool> is_launch;  // by name id: the name says "Launch"
  for (const TraceEvent& e : trace.events) {
    if (e.kind != EventKind::kRuntime && e.kind != EventKind::kDriver) continue;
    auto [it, inserted] = is_launch.try_emplace(e.name, false);
    if (inserted) it->second = trace.strings.Get(e.name).find("Launch") != std::string_view::npos;
    if (it->second) ++result.host_launch_calls;
  }
  for (const TraceEvent& op : trace.events) {
    if (!IsGpuOp(op.kind)) continue;
    ++result.gpu_ops;
    int64_t found = launches.Find(op.correlation);
    if (found < 0) continue;
    const TraceEvent& call = trace.events[found];
    ++result.matched;
    int64_t delay = std::max<int64_t>(0, op.ts_ns - call.end_ns());
    result.delay.Add(delay);
    delays.push_back(delay);
    if (op.kind == EventKind::kKernel && op.dur_ns < call.dur_ns &&
        call.dur_ns <= result.runtime_cutoff_ns) {
      ++result.short_kernels;
    }
    if (call.dur_ns > result.runtime_cutoff_ns) ++result.long_launch_calls;
    if (delay > result.delay_cutoff_ns) ++result.delayed_launches;
    calls[call.name].cpu_duration.Add(call.dur_ns);
  }
  result.delay.Finish();
  result.delay_p50_ns = internal::Percentile(delays, 0.5);
  result.delay_p90_ns = internal::Percentile(delays, 0.9);
  for (auto& [name, call] : calls) {
    call.name = std::string(trace.strings.Get(name));
    call.cpu_duration.Finish();
    result.calls.push_back(std::move(call));
  }
  std::sort(result.calls.begin(), result.calls.end(), [](const auto& a, const auto& b) {
    return a.cpu_duration.total_ns != b.cpu_duration.total_ns
               ? a.cpu_duration.total_ns > b.cpu_duration.total_ns
               : a.name < b.name;
  });
  return result;
}

QueueLength ComputeQueueLength(const Trace& trace, int64_t limit) {
  QueueLength result;
  result.rank = trace.rank;
  result.limit = limit;
  internal::LaunchIndex launches = internal::BuildLaunchIndex(trace);
  for (const auto& stream : internal::GpuOpsByStream(trace)) {
    struct Step {
      int64_t ts;
      int delta;
    };
    // Launch times (+1) and op ends (-1), each nearly in order already (a stream runs its ops in
    // launch order): sorted apart, then merged, an end before a launch at the same time.
    std::vector<int64_t> launched, ended;
    for (uint32_t index : stream.ops) {
      const TraceEvent& op = trace.events[index];
      int64_t found = launches.Find(op.correlation);
      if (found < 0) continue;
      launched.push_back(trace.events[found].ts_ns);
      ended.push_back(op.end_ns());
    }
    for (std::vector<int64_t>* times : {&launched, &ended}) {
      if (!std::is_sorted(times->begin(), times->end())) std::sort(times->begin(), times->end());
    }
    std::vector<Step> steps;
    steps.reserve(launched.size() + ended.size());
    for (size_t l = 0, e = 0; l < launched.size() || e < ended.size();) {
      if (e < ended.size() && (l == launched.size() || ended[e] <= launched[l])) {
        steps.push_back({ended[e++], -1});
      } else {
        steps.push_back({launched[l++], +1});
      }
    }
    StreamQueue queue;
    queue.device = stream.device;
    queue.stream = stream.stream;
    if (!steps.empty()) {
      int64_t length = 0;
      double weighted = 0;
      for (size_t i = 0; i < steps.size(); ++i) {
        length += steps[i].delta;
        queue.max_length = std::max(queue.max_length, length);
        if (i + 1 < steps.size()) {
          int64_t span = steps[i + 1].ts - steps[i].ts;
          weighted += static_cast<double>(length) * static_cast<double>(span);
          if (length >= limit) queue.time_at_or_above_limit_ns += span;
        }
      }
      queue.span_ns = steps.back().ts - steps.front().ts;
      queue.mean_length = queue.span_ns > 0 ? weighted / static_cast<double>(queue.span_ns) : 0;
    }
    result.streams.push_back(queue);
  }
  return result;
}

}  // namespace xpuperf::trace
