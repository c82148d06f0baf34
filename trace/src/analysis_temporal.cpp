// The temporal analysis, a report view (analysis_registry.h): the GPU window per rank: compute,
// non-compute and idle time. SummariseRank computes it for the findings and the report writes its
// JSON (report_json.cpp); this is its table for the text and the HTML. Registered in
// registered_analyses.inc.
#include <string>
#include <vector>

#include "report_view_util.h"

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

}  // namespace

extern const AnalysisDescriptor kTemporalAnalysis = {
    .name = "temporal", .title = "Temporal breakdown", .json_key = "", .view = TemporalView};

}  // namespace xpuperf::trace
