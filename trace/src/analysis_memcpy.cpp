// The memcpy analysis, a report view (analysis_registry.h): memory copies and sets by kind.
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

Table MemcpyTable(const RunReport& report) {
  Table t{"Memory copies and sets (GB = 1e9 bytes)",
          "memcpy",
          {{"rank", "rank"},
           {"kind", "kind"},
           {"count", "count"},
           {"bytes", "bytes"},
           {"time", "busy_ns"},
           {"GB/s", "gbps"},
           {"peak GB/s", "peak_concurrent_gbps"},
           {"pageable", "pageable"}},
          {}};
  for (const RankReport& r : report.ranks) {
    for (const auto& k : r.evidence.memcpy.kinds) {
      t.rows.push_back({Rank(r.evidence.rank), Cell::Text(k.kind), Cell::Count(k.count),
                        Cell::Bytes(k.bytes), Cell::Ns(k.busy_ns), Cell::Number(k.gbps),
                        Cell::Number(k.peak_concurrent_gbps), Cell::Count(k.pageable)});
    }
  }
  return t;
}

std::vector<Table> MemcpyView(const RunReport& report, size_t) { return Wide(MemcpyTable(report)); }

nlohmann::json MemcpyJson(const MemcpyBandwidth& m) {
  nlohmann::json kinds = nlohmann::json::array();
  for (const auto& k : m.kinds) {
    kinds.push_back({{"kind", k.kind},
                     {"count", k.count},
                     {"bytes", k.bytes},
                     {"busy_ns", k.busy_ns},
                     {"gbps", k.gbps},
                     {"peak_concurrent_gbps", k.peak_concurrent_gbps},
                     {"pageable", k.pageable}});
  }
  return kinds;
}

nlohmann::json MemcpyJsonOfRank(const RankReport& rank) { return MemcpyJson(rank.evidence.memcpy); }

}  // namespace

extern const AnalysisDescriptor kMemcpyAnalysis = {.name = "memcpy",
                                                   .title = "Memory copies and sets",
                                                   .json_key = "memcpy_bandwidth",
                                                   .view = MemcpyView,
                                                   .rank_json = MemcpyJsonOfRank};

}  // namespace xpuperf::trace
