// The overlap analysis, a report view (analysis_registry.h): communication overlapped by
// computation, per rank. SummariseRank computes it for the findings; here are its JSON (fixed
// schema, report.h) and its table for the text and the HTML. Registered in registered_analyses.inc.
#include <string>
#include <vector>

#include "report_view_util.h"

namespace xpuperf::trace {
namespace {

using internal::Rank;
using internal::Share;
using internal::Wide;

Table OverlapTable(const RunReport& report) {
  Table t{"Communication / computation overlap",
          "overlap",
          {{"rank", "rank"},
           {"comm", "comm_ns"},
           {"overlapped", "overlap_ns"},
           {"ratio", "ratio", Column::Align::kRight}},
          {}};
  for (const RankReport& r : report.ranks) {
    const auto& o = r.evidence.overlap;
    if (o.comm_ns == 0) continue;
    t.rows.push_back({Rank(r.evidence.rank), Cell::Ns(o.comm_ns), Cell::Ns(o.overlap_ns),
                      Share(o.overlap_ns, o.comm_ns)});
  }
  return t;
}

std::vector<Table> OverlapView(const RunReport& report, size_t) {
  return Wide(OverlapTable(report));
}

nlohmann::json OverlapJsonOfRank(const RankReport& rank) {
  const auto& overlap = rank.evidence.overlap;
  return {{"comm_ns", overlap.comm_ns},
          {"compute_ns", overlap.compute_ns},
          {"overlap_ns", overlap.overlap_ns},
          {"overlap_ratio", overlap.overlap_ratio}};
}

}  // namespace

extern const AnalysisDescriptor kOverlapAnalysis = {.name = "overlap",
                                                    .title = "Communication / computation overlap",
                                                    .json_key = "comm_compute_overlap",
                                                    .view = OverlapView,
                                                    .rank_json = OverlapJsonOfRank};

}  // namespace xpuperf::trace
