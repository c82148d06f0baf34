// The memory analysis, a report view (analysis_registry.h): the allocator ([memory] events) per
// device. SummariseRank computes it for the findings and the report writes its JSON
// (report_json.cpp); this is its table for the text and the HTML. Registered in
// registered_analyses.inc.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report_view_util.h"

namespace xpuperf::trace {
namespace {

using internal::Rank;
using internal::Wide;

Table AllocatorTable(const RunReport& report) {
  Table t{"Allocator ([memory] events)",
          "allocator",
          {{"rank", "rank"},
           {"device", "device"},
           {"peak allocated", "peak_allocated"},
           {"peak reserved", "peak_reserved"},
           {"device memory", "total_memory", Column::Align::kRight},
           {"allocs", "allocations"},
           {"frees", "frees"}},
          {}};
  for (const RankReport& r : report.ranks) {
    for (const auto& d : r.evidence.memory.devices) {
      const std::string type = d.device_type == 1   ? "cuda"
                               : d.device_type == 0 ? "cpu"
                                                    : std::to_string(d.device_type);
      t.rows.push_back({Rank(r.evidence.rank), Cell::Text(fmt::format("{}:{}", type, d.device_id)),
                        Cell::Bytes(d.peak_allocated), Cell::Bytes(d.peak_reserved),
                        d.total_memory > 0 ? Cell::Bytes(d.total_memory) : Cell::Text("-"),
                        Cell::Count(d.allocations), Cell::Count(d.frees)});
    }
  }
  return t;
}

std::vector<Table> MemoryView(const RunReport& report, size_t) {
  return Wide(AllocatorTable(report));
}

}  // namespace

extern const AnalysisDescriptor kMemoryAnalysis = {
    .name = "memory", .title = "Allocator", .json_key = "", .view = MemoryView};

}  // namespace xpuperf::trace
