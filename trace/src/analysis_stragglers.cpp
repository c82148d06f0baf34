// The stragglers analysis, a report view (analysis_registry.h): stragglers across the ranks of a
// directory. SummariseRank computes it for the findings; here are its JSON (fixed schema, report.h)
// and its table for the text and the HTML. Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report_view_util.h"

namespace xpuperf::trace {
namespace {

using internal::Rank;
using internal::Wide;

Table StragglersTable(const RunReport& report) {
  Table t{fmt::format("Stragglers ({} collectives matched on every rank)",
                      report.stragglers.collectives),
          "stragglers",
          {{"rank", "rank"},
           {"started last", "last_count"},
           {"mean lateness", "mean_lateness_ns"},
           {"comm time", "comm_ns"}},
          {}};
  if (report.stragglers.collectives == 0) return t;
  for (const RankStraggle& s : report.stragglers.ranks) {
    t.rows.push_back({Rank(s.rank), Cell::Count(s.last_count),
                      Cell::Ns(static_cast<int64_t>(s.mean_lateness_ns)), Cell::Ns(s.comm_ns)});
  }
  return t;
}

std::vector<Table> StragglersView(const RunReport& report, size_t) {
  return Wide(StragglersTable(report));
}

nlohmann::json StragglersJson(const RunReport& report) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : report.stragglers.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"collectives", r.collectives},
                     {"last_count", r.last_count},
                     {"mean_lateness_ns", r.mean_lateness_ns},
                     {"comm_ns", r.comm_ns}});
  }
  return {{"collectives", report.stragglers.collectives}, {"ranks", ranks}};
}

}  // namespace

extern const AnalysisDescriptor kStragglersAnalysis = {.name = "stragglers",
                                                       .title = "Stragglers",
                                                       .json_key = "stragglers",
                                                       .view = StragglersView,
                                                       .run_json = StragglersJson};

}  // namespace xpuperf::trace
