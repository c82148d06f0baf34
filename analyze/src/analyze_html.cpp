// The single-file HTML report of `xpuperf analyze --html`: inline CSS and SVG, no external
// references. A utilisation timeline per rank (GPU busy share in 120 slices of the GPU window),
// the temporal and kernel-class breakdowns as stacked bars, findings and the top tables.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "xpuperf/analyze/analyze.h"
#include "xpuperf/render/chart.h"
#include "xpuperf/render/format.h"
#include "xpuperf/render/html.h"

namespace xpuperf::analyze {
namespace {

std::string Escape(std::string_view text) { return render::HtmlEscape(text); }

std::string Sec(int64_t ns) { return FormatSeconds(static_cast<double>(ns) / 1e9); }

constexpr int kSlices = 120;

// Busy fraction of each slice of the GPU window.
std::vector<double> Utilisation(const trace::Trace& t, int64_t* begin, int64_t* end) {
  std::vector<trace::Interval> busy;
  for (const auto& e : t.events) {
    if (trace::IsGpuOp(e.kind)) busy.push_back({e.ts_ns, e.end_ns()});
  }
  std::vector<double> slices(kSlices, 0);
  trace::MergeIntervals(busy);
  if (busy.empty()) return slices;
  *begin = busy.front().begin;
  *end = busy.back().end;
  double width = static_cast<double>(*end - *begin) / kSlices;
  if (width <= 0) return slices;
  for (const auto& iv : busy) {
    int first = std::clamp(static_cast<int>((iv.begin - *begin) / width), 0, kSlices - 1);
    int last = std::clamp(static_cast<int>((iv.end - *begin) / width), 0, kSlices - 1);
    for (int s = first; s <= last; ++s) {
      double lo = *begin + s * width, hi = lo + width;
      double covered = std::min<double>(hi, iv.end) - std::max<double>(lo, iv.begin);
      if (covered > 0) slices[s] += covered / width;
    }
  }
  for (double& v : slices) v = std::min(v, 1.0);
  return slices;
}

// The slices as columns: x in seconds since the first GPU op, y the busy share in percent.
std::string TimelineSvg(const std::vector<double>& slices, int64_t slice_ns) {
  render::Chart chart;
  chart.title = "GPU utilisation over time";
  chart.style = render::ChartStyle::kColumns;
  chart.x.title = "seconds since the first GPU op";
  chart.y.title = "% busy";
  chart.y.max = 100;
  chart.y_unit = "% busy";
  chart.width = 720;
  chart.plot_height = 120;
  const double slice_s = static_cast<double>(slice_ns) / 1e9;
  chart.column_width = slice_s;
  chart.x.max = slice_s * kSlices;
  render::ChartSeries busy;
  busy.color = "#2b7bb9";
  for (int s = 0; s < kSlices; ++s) busy.points.push_back({s * slice_s, slices[s] * 100});
  chart.series.push_back(std::move(busy));
  return render::RenderChartSvg(chart);
}

// A registered analysis's section: its title, then each table with rows, then its notes.
std::string OutputHtml(std::string_view title, const trace::AnalysisOutput& output) {
  if (!output.HasRows()) return {};
  std::string html = fmt::format("<h2>{}</h2>", Escape(title));
  for (const trace::Table& table : output.tables) html += render::RenderTableHtml(table, false);
  if (!output.notes.empty()) {
    html += "<ul class=\"small\">";
    for (const std::string& note : output.notes) html += "<li>" + Escape(note) + "</li>";
    html += "</ul>";
  }
  return html;
}

}  // namespace

std::string RenderAnalyzeHtml(const trace::TraceRun& run, const trace::RunReport& report, int top) {
  std::ostringstream html;
  // Numbers right-aligned in every column but the first (the names).
  html << render::HtmlPageStart("xpuperf analyze",
                                "td,th{text-align:right}td:first-child,th:first-child{text-align:"
                                "left}")
       << "<h1>xpuperf analyze</h1>";
  for (size_t i = 0; i < report.ranks.size(); ++i) {
    const auto& r = report.ranks[i];
    const auto& t = r.evidence.temporal;
    html << fmt::format("<h2>Rank {} &mdash; {}</h2><p class=\"small\">{} events, format {}</p>",
                        r.evidence.rank, Escape(r.source), r.events, Escape(r.format));
    if (t.gpu_ops > 0) {
      int64_t begin = 0, end = 0;
      auto slices = Utilisation(run.ranks[i], &begin, &end);
      html << fmt::format("<p>GPU utilisation over the {} GPU window ({} slices of {})</p>",
                          Sec(t.window_ns), kSlices, Sec((end - begin) / kSlices));
      html << TimelineSvg(slices, (end - begin) / kSlices);
      html << "<p>Temporal breakdown</p>"
           << render::RenderStackedBarSvg(
                  "Temporal breakdown",
                  {{"compute", static_cast<double>(t.compute_ns), "#2b7bb9"},
                   {"non-compute", static_cast<double>(t.non_compute_ns), "#f0a030"},
                   {"idle", static_cast<double>(t.idle_ns), "#cccccc"}});
      const auto& k = r.evidence.kernels;
      html << "<p>GPU time by kernel class</p>"
           << render::RenderStackedBarSvg(
                  "GPU time by kernel class",
                  {{"compute", static_cast<double>(k.class_total_ns[0]), "#2b7bb9"},
                   {"comm", static_cast<double>(k.class_total_ns[1]), "#b03a8a"},
                   {"memory", static_cast<double>(k.class_total_ns[2]), "#48a868"}});
    } else {
      html << "<p>No GPU work in this trace.</p>";
    }
    html << "<h2>Findings</h2>";
    if (r.findings.empty()) html << "<p>None of the rules fired.</p>";
    for (const auto& f : r.findings) {
      html << fmt::format("<div class=\"finding {}\"><b>[{}] {}</b><br>{}<br><i>{}</i></div>",
                          f.severity == trace::Severity::kCritical ? "critical" : "",
                          trace::SeverityName(f.severity), Escape(f.title), Escape(f.evidence),
                          Escape(f.advice));
    }
    if (const trace::CriticalPath& p = r.evidence.critical_path; p.length_ns > 0) {
      html << fmt::format("<h2>Critical path</h2><p>Over {}: {} ({}), {} GPU ops on it</p>",
                          Escape(p.window), Sec(p.length_ns), p.verdict, p.gpu_ops);
      // Short labels, in PathCategory order, for the bar's legend.
      static constexpr const char* kLabels[trace::kPathCategories] = {
          "cpu ops", "runtime", "untraced", "launch", "wake-up",
          "compute", "comm",    "memory",   "gap",    "stream wait"};
      static constexpr const char* kColours[trace::kPathCategories] = {
          "#f0a030", "#e07020", "#cccccc", "#d0c060", "#a08060",
          "#2b7bb9", "#b03a8a", "#48a868", "#9999bb", "#7a6fb0"};
      std::vector<render::BarSegment> parts;
      for (int c = 0; c < trace::kPathCategories; ++c) {
        if (p.category_ns[c] > 0) {
          parts.push_back({kLabels[c], static_cast<double>(p.category_ns[c]), kColours[c]});
        }
      }
      html << render::RenderStackedBarSvg("Critical path by category", parts);
    }
  }
  // Every registered analysis, in the text's order: a report view's tables (across ranks, each
  // under its caption), a computed analysis's output rank by rank.
  const auto& registered = trace::RegisteredAnalyses();
  for (size_t a = 0; a < registered.size(); ++a) {
    if (registered[a]->view != nullptr) {
      for (const trace::Table& table : registered[a]->view(report, static_cast<size_t>(top))) {
        if (table.rows.empty()) continue;
        html << "<h2>" << Escape(table.caption) << "</h2>" << render::RenderTableHtml(table, false);
      }
      continue;
    }
    for (const auto& r : report.ranks) {
      if (a < r.outputs.size()) html << OutputHtml(registered[a]->title, r.outputs[a]);
    }
  }
  html << "<p class=\"small\">Times: compute = union of COMPUTE kernels, non-compute = other GPU "
          "busy time, "
          "idle = GPU window minus busy (docs/TRACES.md).</p>"
       << render::HtmlPageEnd();
  return html.str();
}

}  // namespace xpuperf::analyze
