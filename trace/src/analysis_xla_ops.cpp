// The XLA ops analysis: per HLO op (events of the "XLA Ops" timelines of an .xplane.pb, on every
// device, and XLA:CPU's ops on host threads), its execution-time distribution (count, total,
// p50/p90/p99, max: the HLO execution-time distribution the TPU monitoring library reports live,
// here offline from a profile) and, where XLA's cost analysis gave them, its FLOP and byte rates
// (flops x count / total time; bytes_accessed likewise). Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <unordered_map>

#include "xla_analysis_util.h"
#include "xpuperf/trace/analysis_registry.h"

namespace xpuperf::trace {
namespace {

struct OpTimes {
  uint32_t name = 0;
  std::vector<int64_t> durations;
  internal::DurationSummary summary;
};

Cell RateOrUnknown(int64_t per_execution, const internal::DurationSummary& s) {
  if (per_execution < 0 || s.total_ns <= 0) return Cell::Text("-");
  // units per ns = G units per second
  return Cell::Number(static_cast<double>(per_execution) * static_cast<double>(s.count) /
                      static_cast<double>(s.total_ns));
}

AnalysisOutput ComputeXlaOps(const Trace& trace, const AnalysisContext& context) {
  AnalysisOutput out;
  const int64_t category = internal::CategoryId(trace, kXlaOpsCategory);
  if (category < 0) return out;
  std::unordered_map<uint32_t, OpTimes> by_name;
  int64_t total_ns = 0, executions = 0;
  for (const TraceEvent& e : trace.events) {
    if (e.category != static_cast<uint32_t>(category)) continue;
    OpTimes& op = by_name[e.name];
    op.name = e.name;
    op.durations.push_back(e.dur_ns);
    total_ns += e.dur_ns;
    ++executions;
  }
  std::vector<OpTimes*> ops;
  for (auto& [name, op] : by_name) {
    op.summary = internal::SummariseDurations(op.durations);
    ops.push_back(&op);
  }
  std::sort(ops.begin(), ops.end(), [&](const OpTimes* a, const OpTimes* b) {
    if (a->summary.total_ns != b->summary.total_ns)
      return a->summary.total_ns > b->summary.total_ns;
    return trace.strings.Get(a->name) < trace.strings.Get(b->name);
  });
  const size_t distinct = ops.size();
  if (ops.size() > context.top_k) ops.resize(context.top_k);

  out.fields = {{"executions", Cell::Count(executions)},
                {"total_ns", Cell::Ns(total_ns)},
                {"ops", Cell::Count(static_cast<int64_t>(distinct))}};
  Table table{fmt::format("XLA ops, rank {}: top {} of {} by total time (execution-time "
                          "distribution, nearest-rank percentiles)",
                          trace.rank, ops.size(), distinct),
              "by_op",
              {{"op", "name"},
               {"category", "category"},
               {"count", "count"},
               {"total", "total_ns"},
               {"p50", "p50_ns"},
               {"p90", "p90_ns"},
               {"p99", "p99_ns"},
               {"max", "max_ns"},
               {"share", "share"},
               {"GFLOP/s", "gflops_per_s"},
               {"GB/s", "gbytes_per_s"},
               {"module", "module"}},
              {}};
  for (const OpTimes* op : ops) {
    XlaOpInfo info;
    if (auto it = trace.xla_ops.find(op->name); it != trace.xla_ops.end()) info = it->second;
    const auto& s = op->summary;
    table.rows.push_back(
        {Cell::Text(std::string(trace.strings.Get(op->name))),
         Cell::Text(info.category ? std::string(trace.strings.Get(info.category)) : "-"),
         Cell::Count(s.count), Cell::Ns(s.total_ns), Cell::Ns(s.p50_ns), Cell::Ns(s.p90_ns),
         Cell::Ns(s.p99_ns), Cell::Ns(s.max_ns),
         Cell::Fraction(
             total_ns > 0 ? static_cast<double>(s.total_ns) / static_cast<double>(total_ns) : 0.0),
         RateOrUnknown(info.flops, s), RateOrUnknown(info.bytes_accessed, s),
         Cell::Text(info.module ? std::string(trace.strings.Get(info.module)) : "-")});
  }
  out.tables.push_back(std::move(table));
  return out;
}

}  // namespace

extern const AnalysisDescriptor kXlaOpsAnalysis = {
    .name = "xla_ops",
    .title = "XLA ops (execution-time distribution)",
    .json_key = "xla_ops",
    .compute = ComputeXlaOps,
};

}  // namespace xpuperf::trace
