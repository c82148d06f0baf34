// The idle analysis, a report view (analysis_registry.h): idle time per stream, by cause.
// SummariseRank computes it for the findings; here are its JSON (fixed schema, report.h) and its
// table for the text and the HTML. Registered in registered_analyses.inc.
#include <string>
#include <vector>

#include "report_view_util.h"
#include "xpuperf/core/json.h"

namespace xpuperf::trace {
namespace {

using internal::Rank;
using internal::Wide;

Table IdleTable(const RunReport& report) {
  Table t{"Idle time by stream (gaps between consecutive GPU ops)",
          "idle",
          {{"rank", "rank"},
           {"device", "device"},
           {"stream", "stream"},
           {"idle", "idle_ns"},
           {"host wait", "host_wait_ns"},
           {"kernel wait", "kernel_wait_ns"},
           {"other", "other_ns"},
           {"gaps", "gaps"}},
          {}};
  for (const RankReport& r : report.ranks) {
    for (const auto& s : r.evidence.idle.streams) {
      t.rows.push_back({Rank(r.evidence.rank), Cell::Text(std::to_string(s.device)),
                        Cell::Text(std::to_string(s.stream)), Cell::Ns(s.idle_ns),
                        Cell::Ns(s.host_wait_ns), Cell::Ns(s.kernel_wait_ns), Cell::Ns(s.other_ns),
                        Cell::Count(s.gaps)});
    }
  }
  return t;
}

std::vector<Table> IdleView(const RunReport& report, size_t) { return Wide(IdleTable(report)); }

nlohmann::json IdleJson(const IdleBreakdown& idle) {
  nlohmann::json streams = nlohmann::json::array();
  for (const auto& s : idle.streams) {
    streams.push_back({{"device", s.device},
                       {"stream", s.stream},
                       {"window_ns", s.window_ns},
                       {"busy_ns", s.busy_ns},
                       {"idle_ns", s.idle_ns},
                       {"host_wait_ns", s.host_wait_ns},
                       {"kernel_wait_ns", s.kernel_wait_ns},
                       {"other_ns", s.other_ns},
                       {"gaps", s.gaps}});
  }
  return {{"kernel_wait_threshold_ns", idle.kernel_wait_threshold_ns}, {"streams", streams}};
}

nlohmann::json IdleJsonOfRank(const RankReport& rank) { return IdleJson(rank.evidence.idle); }

}  // namespace

extern const AnalysisDescriptor kIdleAnalysis = {.name = "idle",
                                                 .title = "Idle time by stream",
                                                 .json_key = "idle_breakdown",
                                                 .view = IdleView,
                                                 .rank_json = IdleJsonOfRank};

}  // namespace xpuperf::trace
