// The single-file HTML report of `xpuperf analyze --html`: inline CSS and SVG, no external
// references. A utilisation timeline per rank (GPU busy share in 120 slices of the GPU window),
// the temporal and kernel-class breakdowns as stacked bars, findings and the top tables.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "xpuperf/analyze/analyze.h"
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

std::string TimelineSvg(const std::vector<double>& slices) {
  std::ostringstream svg;
  const int w = 4, h = 60;
  svg << fmt::format(
      R"(<svg width="{}" height="{}" role="img" aria-label="GPU utilisation over time">)",
      kSlices * w, h + 2);
  svg << fmt::format(R"(<rect x="0" y="0" width="{}" height="{}" fill="#f3f3f3"/>)", kSlices * w,
                     h);
  for (int s = 0; s < kSlices; ++s) {
    double bar = slices[s] * h;
    svg << fmt::format(
        R"(<rect x="{}" y="{:.1f}" width="{}" height="{:.1f}" fill="#2b7bb9"><title>{:.0f}% busy</title></rect>)",
        s * w, h - bar, w - 1, bar, slices[s] * 100);
  }
  svg << "</svg>";
  return svg.str();
}

struct Segment {
  std::string label;
  double value;
  const char* color;
};

std::string StackedBar(const std::vector<Segment>& segments) {
  double total = 0;
  for (const auto& s : segments) total += s.value;
  std::ostringstream svg;
  const double width = 480;
  svg << fmt::format(R"(<svg width="{:.0f}" height="24">)",
                     std::max(680.0, width + 8 + 66.0 * static_cast<double>(segments.size())));
  double x = 0;
  for (const auto& s : segments) {
    double w = total > 0 ? s.value / total * width : 0;
    svg << fmt::format(
        R"(<rect x="{:.1f}" y="2" width="{:.1f}" height="20" fill="{}"><title>{} {:.1f}%</title></rect>)",
        x, w, s.color, Escape(s.label), total > 0 ? 100 * s.value / total : 0);
    x += w;
  }
  double lx = width + 8;
  for (const auto& s : segments) {
    svg << fmt::format(
        R"(<rect x="{:.0f}" y="8" width="8" height="8" fill="{}"/><text x="{:.0f}" y="16" font-size="10">{} {:.0f}%</text>)",
        lx, s.color, lx + 10, Escape(s.label), total > 0 ? 100 * s.value / total : 0);
    lx += 66;
  }
  svg << "</svg>";
  return svg.str();
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
      html << TimelineSvg(slices);
      html << "<p>Temporal breakdown</p>"
           << StackedBar({{"compute", static_cast<double>(t.compute_ns), "#2b7bb9"},
                          {"non-compute", static_cast<double>(t.non_compute_ns), "#f0a030"},
                          {"idle", static_cast<double>(t.idle_ns), "#cccccc"}});
      const auto& k = r.evidence.kernels;
      html << "<p>GPU time by kernel class</p>"
           << StackedBar({{"compute", static_cast<double>(k.class_total_ns[0]), "#2b7bb9"},
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
      std::vector<Segment> parts;
      for (int c = 0; c < trace::kPathCategories; ++c) {
        if (p.category_ns[c] > 0) {
          parts.push_back({kLabels[c], static_cast<double>(p.category_ns[c]), kColours[c]});
        }
      }
      html << StackedBar(parts);
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
