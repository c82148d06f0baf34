// The gemm analysis, a report view (analysis_registry.h): GEMM shapes as roofline points.
// SummariseRank computes it for the findings; here are its JSON (fixed schema, report.h) and its
// table for the text and the HTML. Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report_view_util.h"
#include "xpuperf/core/json.h"

namespace xpuperf::trace {
namespace {

using internal::Rank;
using internal::Wide;

Table GemmTable(const RunReport& report, size_t top_k) {
  Table t{"GEMM shapes (roofline points: FLOPs = 2*M*N*K*batch per call; time of all calls)",
          "gemm",
          {{"rank", "rank"},
           {"op", "op"},
           {"M x N x K (batch)", "shape"},
           {"dtype", "dtype"},
           {"calls", "calls"},
           {"time", "time_ns"},
           {"TFLOP/s", "tflops_per_second", Column::Align::kAuto, 3},
           {"FLOP/byte", "flops_per_byte", Column::Align::kAuto, 1}},
          {}};
  for (const RankReport& r : report.ranks) {
    size_t shown = 0;
    for (const GemmPoint& p : r.gemm) {
      if (shown++ >= top_k) break;
      t.rows.push_back({Rank(r.evidence.rank), Cell::Text(p.op),
                        Cell::Text(fmt::format("{} x {} x {} ({})", p.m, p.n, p.k, p.batch)),
                        Cell::Text(p.dtype.empty() ? "?" : p.dtype), Cell::Count(p.calls),
                        Cell::Ns(p.time_ns), Cell::Number(p.FlopsPerSecond() / 1e12),
                        Cell::Number(p.flops / p.bytes)});
    }
  }
  return t;
}

std::vector<Table> GemmView(const RunReport& report, size_t top_k) {
  return Wide(GemmTable(report, top_k));
}

nlohmann::json GemmJson(const std::vector<GemmPoint>& points) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : points) {
    out.push_back({{"op", p.op},
                   {"kernel", p.kernel},
                   {"m", p.m},
                   {"n", p.n},
                   {"k", p.k},
                   {"batch", p.batch},
                   {"dtype", p.dtype},
                   {"flops", p.flops},
                   {"bytes", p.bytes},
                   {"calls", p.calls},
                   {"time_ns", p.time_ns},
                   {"flops_per_second", p.FlopsPerSecond()}});
  }
  return out;
}

nlohmann::json GemmJsonOfRank(const RankReport& rank) { return GemmJson(rank.gemm); }

}  // namespace

extern const AnalysisDescriptor kGemmAnalysis = {.name = "gemm",
                                                 .title = "GEMM shapes",
                                                 .json_key = "gemm_points",
                                                 .view = GemmView,
                                                 .rank_json = GemmJsonOfRank};

}  // namespace xpuperf::trace
