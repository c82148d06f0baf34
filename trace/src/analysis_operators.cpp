// The operators analysis, a report view (analysis_registry.h): CPU operators by exclusive time and
// by module, per rank. SummariseRank computes it for the findings; here are its JSON (fixed schema,
// report.h) and its table for the text and the HTML. Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report_view_util.h"
#include "xpuperf/core/json.h"

namespace xpuperf::trace {
namespace {

std::vector<Table> OperatorTables(const RankReport& rank, size_t top_k) {
  const auto& o = rank.evidence.operators;
  if (o.by_name.empty()) return {};
  std::vector<Table> tables;
  Table by_name{fmt::format("Top {} CPU ops by exclusive time, rank {}", top_k, rank.evidence.rank),
                "by_name",
                {{"op", "name"},
                 {"count", "count"},
                 {"inclusive", "inclusive_ns"},
                 {"exclusive", "exclusive_ns"}},
                {}};
  for (const auto& s : o.by_name) {
    by_name.rows.push_back({Cell::Text(s.name), Cell::Count(s.count), Cell::Ns(s.inclusive_ns),
                            Cell::Ns(s.exclusive_ns)});
  }
  tables.push_back(std::move(by_name));
  if (!o.by_module.empty()) {
    Table by_module{fmt::format("CPU time by module, rank {}", rank.evidence.rank),
                    "by_module",
                    {{"module", "name"},
                     {"ops", "count"},
                     {"inclusive", "inclusive_ns"},
                     {"exclusive", "exclusive_ns"}},
                    {}};
    for (const auto& s : o.by_module) {
      by_module.rows.push_back({Cell::Text(s.name), Cell::Count(s.count), Cell::Ns(s.inclusive_ns),
                                Cell::Ns(s.exclusive_ns)});
    }
    tables.push_back(std::move(by_module));
  }
  return tables;
}

std::vector<Table> OperatorsView(const RunReport& report, size_t top_k) {
  std::vector<Table> tables;
  for (const RankReport& r : report.ranks) {
    for (Table& t : OperatorTables(r, top_k)) tables.push_back(std::move(t));
  }
  return tables;
}

nlohmann::json OperatorsJson(const OperatorBreakdown& o) {
  auto list = [](const std::vector<OperatorStat>& ops) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : ops) {
      out.push_back({{"name", s.name},
                     {"count", s.count},
                     {"inclusive_ns", s.inclusive_ns},
                     {"exclusive_ns", s.exclusive_ns}});
    }
    return out;
  };
  return {
      {"total_ops", o.total_ops}, {"by_name", list(o.by_name)}, {"by_module", list(o.by_module)}};
}

nlohmann::json OperatorsJsonOfRank(const RankReport& rank) {
  return OperatorsJson(rank.evidence.operators);
}

}  // namespace

extern const AnalysisDescriptor kOperatorsAnalysis = {.name = "operators",
                                                      .title = "CPU operators",
                                                      .json_key = "operators",
                                                      .view = OperatorsView,
                                                      .rank_json = OperatorsJsonOfRank};

}  // namespace xpuperf::trace
