#include "html_report.h"

#include <fmt/format.h>

#include <functional>
#include <utility>

#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/render/chart.h"
#include "xpuperf/render/html.h"

namespace xpuperf::record {
namespace {

using nlohmann::json;

constexpr size_t kColumns = 900;  // min/max per column keeps peaks visible at any length

std::string Escape(std::string_view text) { return render::HtmlEscape(text); }

struct Line {
  std::string name;
  std::vector<Point> points;
};

std::vector<Point> Thin(const std::vector<Point>& points, double t_end) {
  if (points.size() <= 2 * kColumns || t_end <= 0) return points;
  std::vector<Point> out;
  size_t i = 0;
  for (size_t c = 0; c < kColumns && i < points.size(); ++c) {
    const double edge = t_end * static_cast<double>(c + 1) / kColumns;
    const Point* low = nullptr;
    const Point* high = nullptr;
    for (; i < points.size() && points[i].t_s <= edge; ++i) {
      if (!low || points[i].value < low->value) low = &points[i];
      if (!high || points[i].value > high->value) high = &points[i];
    }
    if (!low) continue;
    if (low->t_s <= high->t_s) {
      out.push_back(*low);
      if (high != low) out.push_back(*high);
    } else {
      out.push_back(*high);
      out.push_back(*low);
    }
  }
  return out;
}

std::string Chart(const std::string& title, const std::string& unit, const std::vector<Line>& lines,
                  double t_end, double scale) {
  if (lines.empty()) {
    return fmt::format("<h2>{}</h2><p class=\"na\">Not measured in this recording.</p>\n",
                       Escape(title));
  }
  render::Chart chart;
  chart.title = title;
  chart.x.title = "seconds since start";
  chart.x.max = t_end > 0 ? t_end : 1;
  chart.y.title = unit;
  for (const Line& line : lines) {
    render::ChartSeries series;
    series.name = line.name;
    for (const Point& p : Thin(line.points, t_end))
      series.points.push_back({p.t_s, p.value * scale});
    chart.series.push_back(std::move(series));
  }
  return fmt::format("<h2>{}</h2>\n", Escape(title)) + render::RenderChartSvg(chart);
}

std::vector<Line> LinesOf(const SeriesTable& table, const TimelineAccumulator& stats,
                          const std::function<bool(const Series&)>& wanted) {
  std::vector<Line> lines;
  for (uint32_t i = 0; i < table.size() && i < stats.series_count(); ++i) {
    const Series& s = table[i];
    if (!wanted(s) || stats.points(i).empty()) continue;
    std::string name = s.device;
    if (s.metric == kJobMemory) name += " job";
    if (!s.detail.empty()) name += " " + s.detail;
    lines.push_back({name, stats.points(i)});
  }
  return lines;
}

std::string Table(const json& rows, const std::vector<std::pair<std::string, std::string>>& cols) {
  if (!rows.is_array() || rows.empty()) return "<p class=\"na\">None.</p>\n";
  std::string html = "<table><tr>";
  for (const auto& [key, header] : cols) html += "<th>" + Escape(header) + "</th>";
  html += "</tr>\n";
  for (const json& row : rows) {
    html += "<tr>";
    for (const auto& [key, header] : cols) {
      const json& v = row.contains(key) ? row[key] : json();
      std::string text = v.is_string()         ? v.get<std::string>()
                         : v.is_number_float() ? fmt::format("{:.4g}", v.get<double>())
                         : v.is_null()         ? "-"
                                               : v.dump();
      html += "<td>" + Escape(text) + "</td>";
    }
    html += "</tr>\n";
  }
  return html + "</table>\n";
}

}  // namespace

std::string RenderRecordHtml(const SeriesTable& table, const TimelineAccumulator& stats,
                             const json& summary) {
  namespace m = metrics;
  const double t_end = stats.duration_s();
  std::string command;
  for (const json& a : summary.value("command", json::array())) {
    command += (command.empty() ? "" : " ") + a.get<std::string>();
  }
  std::string html = render::HtmlPageStart("xpuperf record");
  html += fmt::format("<h1>xpuperf record</h1>\n<p>{}{:.2f} s, {} samples at {:g} Hz</p>\n",
                      command.empty() ? "" : "<code>" + Escape(command) + "</code>: ", t_end,
                      summary.value("ticks", 0), summary.value("rate_hz", 0.0));
  html +=
      Chart("Power", "watts",
            LinesOf(table, stats, [](const Series& s) { return s.metric == m::kPower; }), t_end, 1);
  html +=
      Chart("Duty cycle", "percent",
            LinesOf(table, stats,
                    [](const Series& s) { return s.metric == m::kDutyCycle && s.labels.empty(); }),
            t_end, 1);
  html += Chart("Memory", "GiB",
                LinesOf(table, stats,
                        [](const Series& s) {
                          return (s.metric == m::kMemoryUsed && s.labels.empty()) ||
                                 s.metric == kJobMemory;
                        }),
                t_end, 1.0 / (1024.0 * 1024.0 * 1024.0));
  html += Chart("Temperature", "°C",
                LinesOf(table, stats, [](const Series& s) { return s.metric == m::kTemperature; }),
                t_end, 1);
  html += "<h2>Energy</h2>\n" +
          Table(summary.value("energy", json::array()), {{"device", "device"},
                                                         {"domain", "domain"},
                                                         {"joules", "joules"},
                                                         {"average_watts", "average W"},
                                                         {"method", "method"}});
  html += "<h2>Findings</h2>\n";
  const json findings = summary.value("findings", json::array());
  if (findings.empty()) html += "<p class=\"na\">No pattern found.</p>\n";
  for (const json& f : findings) {
    html += fmt::format("<div class=\"finding {}\"><b>{}</b><br>Evidence: {}<br>Advice: {}</div>\n",
                        Escape(f.value("severity", "")), Escape(f.value("title", "")),
                        Escape(f.value("evidence", "")), Escape(f.value("advice", "")));
  }
  html += "<h2>Not measured here</h2>\n" +
          Table(summary.value("unavailable", json::array()),
                {{"metric", "metric"}, {"device", "device"}, {"reason", "reason"}});
  return html + render::HtmlPageEnd();
}

}  // namespace xpuperf::record
