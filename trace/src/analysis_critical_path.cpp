// The critical_path analysis, a report view (analysis_registry.h): the critical path: time by
// category and its longest items, per rank. SummariseRank computes it for the findings and the
// report writes its JSON (report_json.cpp); this is its table for the text and the HTML. Registered
// in registered_analyses.inc.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report_view_util.h"
#include "xpuperf/core/units_text.h"

namespace xpuperf::trace {
namespace {

std::vector<Table> CriticalPathTables(const RankReport& rank) {
  const CriticalPath& p = rank.evidence.critical_path;
  if (p.length_ns <= 0) return {};
  auto share = [&](int64_t ns) { return Cell::Fraction(static_cast<double>(ns) / p.length_ns); };
  Table categories{
      fmt::format("Critical path over {}, rank {}: {} ({}), {:.1f}% of it host work, {} GPU ops",
                  p.window, rank.evidence.rank,
                  FormatSeconds(static_cast<double>(p.length_ns) / 1e9), p.verdict,
                  100.0 * static_cast<double>(p.host_ns) / p.length_ns, p.gpu_ops),
      "categories",
      {{"category", "category"}, {"time", "ns"}, {"share", "share"}},
      {}};
  for (int k = 0; k < kPathCategories; ++k) {
    if (p.category_ns[k] == 0) continue;
    categories.rows.push_back(
        {Cell::Text(std::string(PathCategoryName(static_cast<PathCategory>(k)))),
         Cell::Ns(p.category_ns[k]), share(p.category_ns[k])});
  }
  Table items{fmt::format("Longest items on the critical path, rank {}", rank.evidence.rank),
              "top",
              {{"name", "name"}, {"category", "category"}, {"time", "ns"}, {"share", "share"}},
              {}};
  for (const CriticalPathItem& item : p.top) {
    items.rows.push_back({Cell::Text(item.name),
                          Cell::Text(std::string(PathCategoryName(item.category))),
                          Cell::Ns(item.ns), share(item.ns)});
  }
  return {std::move(categories), std::move(items)};
}

std::vector<Table> CriticalPathView(const RunReport& report, size_t) {
  std::vector<Table> tables;
  for (const RankReport& r : report.ranks) {
    for (Table& t : CriticalPathTables(r)) {
      t.show_empty = true;  // "no item" is worth its header
      tables.push_back(std::move(t));
    }
  }
  return tables;
}

}  // namespace

extern const AnalysisDescriptor kCriticalPathAnalysis = {
    .name = "critical_path", .title = "Critical path", .json_key = "", .view = CriticalPathView};

}  // namespace xpuperf::trace
