// Everything the roofline and diagnose commands show, and its renderings: JSON, plain text for
// terminals, a self-contained SVG roofline and a single-file HTML report.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/roofline/advice.h"
#include "xpuperf/roofline/bench_results.h"
#include "xpuperf/roofline/ceilings.h"
#include "xpuperf/roofline/verdict.h"
#include "xpuperf/spec/spec_sheet.h"

namespace xpuperf::roofline {

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json() noexcept has an unreachable throw
struct Report {
  BenchResults results;
  Ceilings ceilings;  // measured, then the spec sheet's (labelled spec)
  std::optional<spec::SpecSheet> spec;
  std::string spec_note;  // why there is no spec comparison, when there is none
  std::optional<Workload> workload;
  std::optional<Analysis> analysis;
  std::vector<Advice> advice;
  // Why the report has no point, when it has none and a caller knows better than "no workload
  // given" (a trace without GEMM points says what it lacks).
  std::string no_points_reason;
  // What the ceilings and points came from when there is no result directory ("trace
  // run.pt.trace.json, spec sheet h100-sxm"); shown instead of the run line.
  std::string source_note;
};

// Why a report has no point: no_points_reason, else "no workload given".
std::string NoPointsReason(const Report& report);

// Builds the report: ceilings from `results` (+ spec), verdicts and advice when a workload is
// given. Errors from Analyze.
Result<Report> BuildReport(BenchResults results, std::optional<spec::SpecSheet> spec,
                           std::optional<Workload> workload);

// {json_schema_version, run, ceilings[], ridge_points[], points[], summary, advice[], spec}.
nlohmann::json ReportJson(const Report& report);
// {json_schema_version, run, points[], summary, advice[]}: verdicts and advice only.
nlohmann::json DiagnoseJson(const Report& report);

// Tables of ceilings, verdicts, summary and advice, and an ASCII roofline.
std::string RenderText(const Report& report);
// Verdicts, summary and advice only.
std::string RenderDiagnoseText(const Report& report);

// The roofline picture: log-log axes, one labelled line per ceiling, ridge points, workload
// points coloured by bound, legend. Standalone SVG 1.1 document.
std::string RenderSvg(const Report& report);
// The same picture as an <svg> element without the XML declaration, for embedding in HTML.
std::string RenderSvgElement(const Report& report);
// One HTML file with inline CSS and SVG, no external references.
std::string RenderHtml(const Report& report);

// Where a point is drawn: x = FLOPs per byte of its binding traffic (main-memory bytes for
// compute-bound points), y = achieved FLOP/s (roof FLOP/s when untimed). nullopt when the point
// has no FLOPs or no traffic to divide by.
struct PlotPosition {
  double intensity = 0;
  double flops_per_second = 0;
  bool measured = false;
};
std::optional<PlotPosition> PlotPositionOf(const PointVerdict& verdict);

// Ridge points drawn and listed: each memory level against the fastest measured compute roof,
// and main memory against every measured compute roof.
struct RidgePoint {
  std::string compute;  // ceiling label
  std::string memory;
  double intensity = 0;  // FLOP/byte
  double flops_per_second = 0;
};
std::vector<RidgePoint> RidgePoints(const Ceilings& ceilings);

}  // namespace xpuperf::roofline
