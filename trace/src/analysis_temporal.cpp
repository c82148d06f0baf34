// The temporal analysis, a report view (analysis_registry.h): the GPU window per rank: compute,
// non-compute and idle time. SummariseRank computes it for the findings; here are its JSON (fixed
// schema, report.h) and its table for the text and the HTML. Registered in registered_analyses.inc.
#include <string>
#include <vector>

#include "report_view_util.h"
#include "xpuperf/core/json.h"

namespace xpuperf::trace {
namespace {

using internal::Rank;
using internal::Wide;

Table TemporalTable(const RunReport& report) {
  Table t{"Temporal breakdown (GPU window = first to last GPU op)",
          "temporal",
          {{"rank", "rank"},
           {"window", "window_ns"},
           {"compute", "compute_ns"},
           {"non-compute", "non_compute_ns"},
           {"idle", "idle_ns"},
           {"GPU ops", "gpu_ops"}},
          {}};
  for (const RankReport& r : report.ranks) {
    const auto& b = r.evidence.temporal;
    t.rows.push_back({Rank(r.evidence.rank), Cell::Ns(b.window_ns),
                      Cell::NsShare(b.compute_ns, b.window_ns),
                      Cell::NsShare(b.non_compute_ns, b.window_ns),
                      Cell::NsShare(b.idle_ns, b.window_ns), Cell::Count(b.gpu_ops)});
  }
  return t;
}

std::vector<Table> TemporalView(const RunReport& report, size_t) {
  return Wide(TemporalTable(report));
}

nlohmann::json TemporalJson(const TemporalBreakdown& t) {
  auto pct = [&](int64_t v) {
    return t.window_ns > 0 ? 100.0 * static_cast<double>(v) / static_cast<double>(t.window_ns)
                           : 0.0;
  };
  return {{"window_ns", t.window_ns},
          {"busy_ns", t.busy_ns},
          {"compute_ns", t.compute_ns},
          {"non_compute_ns", t.non_compute_ns},
          {"idle_ns", t.idle_ns},
          {"gpu_ops", t.gpu_ops},
          {"compute_percent", pct(t.compute_ns)},
          {"non_compute_percent", pct(t.non_compute_ns)},
          {"idle_percent", pct(t.idle_ns)}};
}

nlohmann::json TemporalJsonOfRank(const RankReport& rank) {
  return TemporalJson(rank.evidence.temporal);
}

}  // namespace

extern const AnalysisDescriptor kTemporalAnalysis = {.name = "temporal",
                                                     .title = "Temporal breakdown",
                                                     .json_key = "temporal_breakdown",
                                                     .view = TemporalView,
                                                     .rank_json = TemporalJsonOfRank};

}  // namespace xpuperf::trace
