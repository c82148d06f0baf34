// The memcpy analysis, a report view (analysis_registry.h): memory copies and sets by kind.
// SummariseRank computes it for the findings and the report writes its JSON (report_json.cpp);
// this is its table for the text and the HTML. Registered in registered_analyses.inc.
#include <string>
#include <vector>

#include "report_view_util.h"

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

}  // namespace

extern const AnalysisDescriptor kMemcpyAnalysis = {
    .name = "memcpy", .title = "Memory copies and sets", .json_key = "", .view = MemcpyView};

}  // namespace xpuperf::trace
