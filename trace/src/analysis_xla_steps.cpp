// The XLA steps analysis: step times (the "Steps" timeline of each device of an .xplane.pb, and
// on the host the ranges with a step_num stat: jax.profiler.StepTraceAnnotation) and the
// executions of each HLO module (the "XLA Modules" timeline of a device; XLA:CPU records none, its
// ops name their module in xla_ops). Distributions as in xla_ops (nearest-rank percentiles).
// Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <map>
#include <utility>

#include "xla_analysis_util.h"
#include "xpuperf/trace/analysis_registry.h"

namespace xpuperf::trace {
namespace {

std::vector<Cell> DistributionCells(internal::DurationSummary s) {
  return {Cell::Count(s.count), Cell::Ns(s.total_ns), Cell::Number(s.mean_ns / 1e3),
          Cell::Ns(s.p50_ns),   Cell::Ns(s.p90_ns),   Cell::Ns(s.p99_ns),
          Cell::Ns(s.max_ns)};
}

std::vector<Column> DistributionColumns(Column first) {
  return {std::move(first),  {"count", "count"}, {"total", "total_ns"}, {"mean us", "mean_us"},
          {"p50", "p50_ns"}, {"p90", "p90_ns"},  {"p99", "p99_ns"},     {"max", "max_ns"}};
}

AnalysisOutput ComputeXlaSteps(const Trace& trace, const AnalysisContext& context) {
  AnalysisOutput out;
  const int64_t steps_id = internal::CategoryId(trace, kXlaStepsCategory);
  const int64_t modules_id = internal::CategoryId(trace, kXlaModulesCategory);
  std::map<int, std::vector<int64_t>> steps;                         // by device
  std::map<std::pair<int, uint32_t>, std::vector<int64_t>> modules;  // by (device, name)
  for (const TraceEvent& e : trace.events) {
    if (steps_id >= 0 && e.category == static_cast<uint32_t>(steps_id)) {
      steps[e.device].push_back(e.dur_ns);
    } else if (modules_id >= 0 && e.category == static_cast<uint32_t>(modules_id)) {
      modules[{e.device, e.name}].push_back(e.dur_ns);
    }
  }
  int64_t step_count = 0;
  Table step_table{fmt::format("XLA steps, rank {}: step time per device", trace.rank),
                   "steps",
                   DistributionColumns({"device", "device"}),
                   {}};
  for (auto& [device, durations] : steps) {
    std::vector<Cell> row{Cell::Text(internal::XlaDeviceName(device))};
    auto cells = DistributionCells(internal::SummariseDurations(durations));
    row.insert(row.end(), cells.begin(), cells.end());
    step_table.rows.push_back(std::move(row));
    step_count += static_cast<int64_t>(durations.size());
  }
  struct ModuleRow {
    int device;
    uint32_t name;
    internal::DurationSummary summary;
  };
  std::vector<ModuleRow> rows;
  rows.reserve(modules.size());
  for (auto& [key, durations] : modules) {
    rows.push_back({key.first, key.second, internal::SummariseDurations(durations)});
  }
  std::sort(rows.begin(), rows.end(), [&](const ModuleRow& a, const ModuleRow& b) {
    if (a.summary.total_ns != b.summary.total_ns) return a.summary.total_ns > b.summary.total_ns;
    return std::tie(a.device, a.name) < std::tie(b.device, b.name);
  });
  const size_t distinct = rows.size();
  if (rows.size() > context.top_k) rows.resize(context.top_k);
  Table module_table{fmt::format("XLA modules, rank {}: top {} of {} (module, device) by total "
                                 "time",
                                 trace.rank, rows.size(), distinct),
                     "modules",
                     DistributionColumns({"module", "name"}),
                     {}};
  module_table.columns.insert(module_table.columns.begin() + 1, {"device", "device"});
  for (const ModuleRow& r : rows) {
    std::vector<Cell> row{Cell::Text(std::string(trace.strings.Get(r.name))),
                          Cell::Text(internal::XlaDeviceName(r.device))};
    auto cells = DistributionCells(r.summary);
    row.insert(row.end(), cells.begin(), cells.end());
    module_table.rows.push_back(std::move(row));
  }
  out.fields = {{"steps", Cell::Count(step_count)},
                {"modules", Cell::Count(static_cast<int64_t>(distinct))}};
  out.tables.push_back(std::move(step_table));
  out.tables.push_back(std::move(module_table));
  return out;
}

}  // namespace

extern const AnalysisDescriptor kXlaStepsAnalysis = {
    .name = "xla_steps",
    .title = "XLA steps and modules",
    .json_key = "xla_steps",
    .compute = ComputeXlaSteps,
};

}  // namespace xpuperf::trace
