// GPU and host time per user annotation (record_function ranges).
#include <algorithm>
#include <unordered_map>

#include "analysis_util.h"
#include "xpuperf/trace/analyses.h"

namespace xpuperf::trace {

AnnotationBreakdown ComputeAnnotationBreakdown(const Trace& trace, size_t top_k) {
  AnnotationBreakdown out;
  out.rank = trace.rank;
  // GPU time and op count per correlation id (the launch call's).
  struct Launched {
    int64_t ns = 0;
    int64_t ops = 0;
  };
  std::unordered_map<int64_t, Launched> launched;
  for (const TraceEvent& e : trace.events) {
    if (!IsGpuOp(e.kind)) continue;
    out.gpu_total_ns += e.dur_ns;
    if (e.correlation < 0) continue;
    Launched& l = launched[e.correlation];
    l.ns += e.dur_ns;
    ++l.ops;
  }
  struct Open {
    uint32_t name;
    int64_t end;
  };
  std::unordered_map<uint64_t, std::vector<Open>> open;  // per (pid, tid), innermost last
  std::unordered_map<uint32_t, AnnotationStat> stats;
  for (const TraceEvent& e : trace.events) {  // in start order
    const bool annotation = e.kind == EventKind::kUserAnnotation && e.dur_ns > 0 &&
                            trace.Name(e).rfind("ProfilerStep#", 0) != 0;
    const bool launch =
        (e.kind == EventKind::kRuntime || e.kind == EventKind::kDriver) && e.correlation >= 0;
    if (!annotation && !launch) continue;
    const uint64_t thread =
        (uint64_t{static_cast<uint32_t>(e.pid)} << 32) | static_cast<uint32_t>(e.tid);
    std::vector<Open>& stack = open[thread];
    while (!stack.empty() && stack.back().end <= e.ts_ns) stack.pop_back();
    auto open_already = [&](uint32_t name, size_t below) {
      return std::any_of(stack.begin(), stack.begin() + static_cast<std::ptrdiff_t>(below),
                         [&](const Open& o) { return o.name == name; });
    };
    if (annotation) {
      AnnotationStat& s = stats[e.name];
      if (!open_already(e.name, stack.size())) {
        ++s.count;
        s.cpu_ns += e.dur_ns;
      }
      stack.push_back({e.name, e.end_ns()});
      continue;
    }
    auto it = launched.find(e.correlation);
    if (it == launched.end()) continue;
    for (size_t k = 0; k < stack.size(); ++k) {
      if (open_already(stack[k].name, k)) continue;  // each name once
      AnnotationStat& s = stats[stack[k].name];
      s.gpu_ns += it->second.ns;
      s.gpu_ops += it->second.ops;
    }
  }
  out.names = static_cast<int64_t>(stats.size());
  for (auto& [name, s] : stats) {
    s.name = std::string(trace.strings.Get(name));
    out.by_name.push_back(std::move(s));
  }
  std::sort(out.by_name.begin(), out.by_name.end(), [](const auto& a, const auto& b) {
    if (a.gpu_ns != b.gpu_ns) return a.gpu_ns > b.gpu_ns;
    if (a.cpu_ns != b.cpu_ns) return a.cpu_ns > b.cpu_ns;
    return a.name < b.name;
  });
  if (out.by_name.size() > top_k) out.by_name.resize(top_k);
  return out;
}

}  // namespace xpuperf::trace
