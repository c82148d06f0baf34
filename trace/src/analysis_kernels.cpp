// The kernels analysis, a report view (analysis_registry.h): kernel classes and the top GPU ops by
// time, per rank. SummariseRank computes it for the findings; here are its JSON (fixed schema,
// report.h) and its table for the text and the HTML. Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report_view_util.h"
#include "xpuperf/core/json.h"

namespace xpuperf::trace {
namespace {

using internal::Share;

std::vector<Table> KernelTables(const RankReport& rank, size_t top_k) {
  const auto& k = rank.evidence.kernels;
  if (k.total_ns == 0 && k.class_count[0] + k.class_count[1] + k.class_count[2] == 0) return {};
  Table classes{fmt::format("Kernel classes, rank {}", rank.evidence.rank),
                "classes",
                {{"class", "class"}, {"count", "count"}, {"time", "total_ns"}, {"share", "share"}},
                {}};
  for (int c = 0; c < 3; ++c) {
    classes.rows.push_back({Cell::Text(std::string(KernelClassName(static_cast<KernelClass>(c)))),
                            Cell::Count(k.class_count[c]), Cell::Ns(k.class_total_ns[c]),
                            Share(k.class_total_ns[c], k.total_ns)});
  }
  classes.columns[3].align = Column::Align::kRight;
  Table top{fmt::format("Top {} GPU ops by time, rank {} ({} distinct)", top_k, rank.evidence.rank,
                        k.distinct_kernels),
            "top",
            {{"kernel", "name"},
             {"class", "class"},
             {"count", "count"},
             {"total", "total_ns"},
             {"mean", "mean_ns"},
             {"min", "min_ns"},
             {"max", "max_ns"},
             {"std", "std_ns"}},
            {}};
  for (const auto& s : k.top) {
    top.rows.push_back(
        {Cell::Text(s.name), Cell::Text(std::string(KernelClassName(s.kernel_class))),
         Cell::Count(s.duration.count), Cell::Ns(s.duration.total_ns),
         Cell::Ns(static_cast<int64_t>(s.duration.mean_ns)), Cell::Ns(s.duration.min_ns),
         Cell::Ns(s.duration.max_ns), Cell::Ns(static_cast<int64_t>(s.duration.std_ns))});
  }
  return {std::move(classes), std::move(top)};
}

std::vector<Table> KernelsView(const RunReport& report, size_t top_k) {
  std::vector<Table> tables;
  for (const RankReport& r : report.ranks) {
    std::vector<Table> rank = KernelTables(r, top_k);
    if (!rank.empty()) rank[0].max_cell_width = 80;  // the classes
    for (Table& t : rank) tables.push_back(std::move(t));
  }
  return tables;
}

nlohmann::json KernelsJson(const KernelBreakdown& k) {
  nlohmann::json classes = nlohmann::json::object();
  for (int c = 0; c < 3; ++c) {
    classes[std::string(KernelClassName(static_cast<KernelClass>(c)))] = {
        {"count", k.class_count[c]}, {"total_ns", k.class_total_ns[c]}};
  }
  nlohmann::json top = nlohmann::json::array();
  for (const auto& s : k.top) {
    nlohmann::json entry = internal::StatsJson(s.duration);
    entry["name"] = s.name;
    entry["class"] = KernelClassName(s.kernel_class);
    top.push_back(entry);
  }
  return {{"classes", classes},
          {"total_ns", k.total_ns},
          {"distinct_kernels", k.distinct_kernels},
          {"top", top}};
}

nlohmann::json KernelsJsonOfRank(const RankReport& rank) {
  return KernelsJson(rank.evidence.kernels);
}

}  // namespace

extern const AnalysisDescriptor kKernelsAnalysis = {.name = "kernels",
                                                    .title = "Kernels",
                                                    .json_key = "kernel_breakdown",
                                                    .view = KernelsView,
                                                    .rank_json = KernelsJsonOfRank};

}  // namespace xpuperf::trace
