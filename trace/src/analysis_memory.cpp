// The memory analysis, a report view (analysis_registry.h): the allocator ([memory] events) per
// device. SummariseRank computes it for the findings; here are its JSON (fixed schema, report.h)
// and its table for the text and the HTML. Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report_view_util.h"
#include "xpuperf/core/json.h"

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

nlohmann::json MemoryJson(const MemoryEventsSummary& m) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : m.devices) {
    devices.push_back({{"device_type", d.device_type},
                       {"device_id", d.device_id},
                       {"peak_allocated_bytes", d.peak_allocated},
                       {"peak_reserved_bytes", d.peak_reserved},
                       {"peak_ts_ns", d.peak_ts_ns},
                       {"allocations", d.allocations},
                       {"frees", d.frees},
                       {"total_memory_bytes", d.total_memory}});
  }
  nlohmann::json sites = nlohmann::json::array();
  for (const auto& s : m.top_sites) {
    sites.push_back({{"op", s.op}, {"allocations", s.allocations}, {"bytes", s.bytes}});
  }
  return {{"events", m.events}, {"devices", devices}, {"top_sites", sites}};
}

nlohmann::json MemoryJsonOfRank(const RankReport& rank) { return MemoryJson(rank.evidence.memory); }

}  // namespace

extern const AnalysisDescriptor kMemoryAnalysis = {.name = "memory",
                                                   .title = "Allocator",
                                                   .json_key = "memory",
                                                   .view = MemoryView,
                                                   .rank_json = MemoryJsonOfRank};

}  // namespace xpuperf::trace
