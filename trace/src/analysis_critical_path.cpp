// The critical_path analysis, a report view (analysis_registry.h): the critical path: time by
// category and its longest items, per rank. SummariseRank computes it for the findings; here are
// its JSON (fixed schema, report.h) and its table for the text and the HTML. Registered in
// registered_analyses.inc.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report_view_util.h"
#include "xpuperf/core/json.h"
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

nlohmann::json CriticalPathJson(const CriticalPath& p) {
  auto share = [&](int64_t ns) {
    return p.length_ns > 0 ? static_cast<double>(ns) / static_cast<double>(p.length_ns) : 0.0;
  };
  nlohmann::json categories = nlohmann::json::object();
  for (int c = 0; c < kPathCategories; ++c) {
    categories[std::string(PathCategoryName(static_cast<PathCategory>(c)))] = {
        {"ns", p.category_ns[c]}, {"share", share(p.category_ns[c])}};
  }
  nlohmann::json top = nlohmann::json::array();
  for (const auto& item : p.top) {
    top.push_back({{"name", item.name},
                   {"category", PathCategoryName(item.category)},
                   {"ns", item.ns},
                   {"share", share(item.ns)}});
  }
  return {{"window", p.window},
          {"start_ns", p.start_ns},
          {"end_ns", p.end_ns},
          {"length_ns", p.length_ns},
          {"segments", p.steps},
          {"gpu_ops", p.gpu_ops},
          {"host_ns", p.host_ns},
          {"host_share", share(p.host_ns)},
          {"verdict", p.verdict},
          {"categories", categories},
          {"top", top}};
}

nlohmann::json CriticalPathJsonOfRank(const RankReport& rank) {
  return CriticalPathJson(rank.evidence.critical_path);
}

}  // namespace

extern const AnalysisDescriptor kCriticalPathAnalysis = {.name = "critical_path",
                                                         .title = "Critical path",
                                                         .json_key = "critical_path",
                                                         .view = CriticalPathView,
                                                         .rank_json = CriticalPathJsonOfRank};

}  // namespace xpuperf::trace
