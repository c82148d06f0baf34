// The annotations analysis: per user_annotation name (record_function ranges; ProfilerStep#N is
// left to the iterations), the host time of its ranges and the GPU ops launched inside them. A GPU
// op counts for every range (of distinct names) open on the launching thread when its launch call
// started; a range nested in one of the same name is not counted again. Registered in
// registered_analyses.inc; its whole definition is this file.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "xpuperf/trace/analysis_registry.h"

namespace xpuperf::trace {
namespace {

struct AnnotationStat {
  uint32_t name = 0;
  int64_t count = 0;   // ranges
  int64_t cpu_ns = 0;  // their durations
  int64_t gpu_ns = 0;  // durations of the GPU ops launched inside them
  int64_t gpu_ops = 0;
};

AnalysisOutput ComputeAnnotations(const Trace& trace, const AnalysisContext& context) {
  int64_t gpu_total_ns = 0;  // every GPU op of the trace, for shares
  // GPU time and op count per correlation id (the launch call's).
  struct Launched {
    int64_t ns = 0;
    int64_t ops = 0;
  };
  std::unordered_map<int64_t, Launched> launched;
  for (const TraceEvent& e : trace.events) {
    if (!IsGpuOp(e.kind)) continue;
    gpu_total_ns += e.dur_ns;
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
      s.name = e.name;
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
  std::vector<AnnotationStat> by_name;
  by_name.reserve(stats.size());
  for (const auto& [id, s] : stats) by_name.push_back(s);
  // By GPU time, then host time, then name.
  std::sort(by_name.begin(), by_name.end(), [&](const auto& a, const auto& b) {
    if (a.gpu_ns != b.gpu_ns) return a.gpu_ns > b.gpu_ns;
    if (a.cpu_ns != b.cpu_ns) return a.cpu_ns > b.cpu_ns;
    return trace.strings.Get(a.name) < trace.strings.Get(b.name);
  });
  const size_t names = by_name.size();
  if (by_name.size() > context.top_k) by_name.resize(context.top_k);

  AnalysisOutput out;
  out.fields = {{"gpu_total_ns", Cell::Ns(gpu_total_ns)},
                {"names", Cell::Count(static_cast<int64_t>(names))}};
  Table table{fmt::format("Annotations (record_function ranges), rank {}: top {} of {} by GPU "
                          "time launched inside",
                          trace.rank, by_name.size(), names),
              "by_name",
              {{"annotation", "name"},
               {"count", "count"},
               {"host", "cpu_ns"},
               {"GPU", "gpu_ns"},
               {"GPU ops", "gpu_ops"},
               {"GPU share", "gpu_share"}},
              {}};
  for (const AnnotationStat& s : by_name) {
    const double share =
        gpu_total_ns > 0 ? static_cast<double>(s.gpu_ns) / static_cast<double>(gpu_total_ns) : 0.0;
    table.rows.push_back({Cell::Text(std::string(trace.strings.Get(s.name))), Cell::Count(s.count),
                          Cell::Ns(s.cpu_ns), Cell::Ns(s.gpu_ns), Cell::Count(s.gpu_ops),
                          Cell::Fraction(share)});
  }
  out.tables.push_back(std::move(table));
  return out;
}

}  // namespace

extern const AnalysisDescriptor kAnnotationsAnalysis = {
    .name = "annotations",
    .title = "Annotations (record_function ranges)",
    .json_key = "annotations",
    .compute = ComputeAnnotations,
};

}  // namespace xpuperf::trace
