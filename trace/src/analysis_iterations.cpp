// The iterations analysis, a report view (analysis_registry.h): ProfilerStep#N per rank.
// SummariseRank computes it for the findings and the report writes its JSON (report_json.cpp);
// this is its table for the text and the HTML. Registered in registered_analyses.inc.
#include <string>
#include <vector>

#include "report_view_util.h"

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

}  // namespace

extern const AnalysisDescriptor kIterationsAnalysis = {
    .name = "iterations", .title = "Iterations", .json_key = "", .view = IterationsView};

}  // namespace xpuperf::trace
