// The iterations analysis, a report view (analysis_registry.h): ProfilerStep#N per rank.
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

Table IterationsTable(const RunReport& report) {
  Table t{"Iterations (ProfilerStep#N)",
          "iterations",
          {{"rank", "rank"},
           {"step", "step"},
           {"duration", "duration_ns"},
           {"GPU busy", "gpu_busy_ns"},
           {"compute", "compute_ns"},
           {"comm", "comm_ns"},
           {"memory", "memory_ns"},
           {"GPU ops", "kernels"},
           {"DataLoader", "dataloader_ns"}},
          {}};
  for (const RankReport& r : report.ranks) {
    for (const auto& s : r.evidence.iterations.steps) {
      t.rows.push_back({Rank(r.evidence.rank), Cell::Count(s.step), Cell::Ns(s.duration_ns),
                        Cell::Ns(s.gpu_busy_ns), Cell::Ns(s.compute_ns), Cell::Ns(s.comm_ns),
                        Cell::Ns(s.memory_ns), Cell::Count(s.kernels), Cell::Ns(s.dataloader_ns)});
    }
  }
  return t;
}

std::vector<Table> IterationsView(const RunReport& report, size_t) {
  return Wide(IterationsTable(report));
}

nlohmann::json IterationsJson(const IterationBreakdown& it) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : it.steps) {
    steps.push_back({{"step", s.step},
                     {"start_ns", s.start_ns},
                     {"duration_ns", s.duration_ns},
                     {"gpu_busy_ns", s.gpu_busy_ns},
                     {"compute_ns", s.compute_ns},
                     {"comm_ns", s.comm_ns},
                     {"memory_ns", s.memory_ns},
                     {"kernels", s.kernels},
                     {"dataloader_ns", s.dataloader_ns}});
  }
  return steps;
}

nlohmann::json IterationsJsonOfRank(const RankReport& rank) {
  return IterationsJson(rank.evidence.iterations);
}

}  // namespace

extern const AnalysisDescriptor kIterationsAnalysis = {.name = "iterations",
                                                       .title = "Iterations",
                                                       .json_key = "iterations",
                                                       .view = IterationsView,
                                                       .rank_json = IterationsJsonOfRank};

}  // namespace xpuperf::trace
