#include "html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/render/html.h"

namespace xpuperf::record {
namespace {

using nlohmann::json;

constexpr double kWidth = 960, kHeight = 280;
constexpr double kLeft = 70, kRight = 20, kTop = 20, kBottom = 40;
constexpr size_t kColumns = 900;  // min/max per column keeps peaks visible at any length
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                   "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

std::string Escape(std::string_view text) { return render::HtmlEscape(text); }

double NiceStep(double span, int ticks) {
  if (span <= 0) return 1;
  const double raw = span / ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (raw <= m * magnitude) return m * magnitude;
  }
  return 10 * magnitude;
}

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

std::string Chart(const std::string& title, const std::string& unit, std::vector<Line> lines,
                  double t_end, double scale) {
  if (lines.empty()) {
    return fmt::format("<h2>{}</h2><p class=\"na\">Not measured in this recording.</p>\n",
                       Escape(title));
  }
  double y_max = 0;
  for (Line& line : lines) {
    line.points = Thin(line.points, t_end);
    for (Point& p : line.points) {
      p.value *= scale;
      y_max = std::max(y_max, p.value);
    }
  }
  if (y_max <= 0) y_max = 1;
  const double y_step = NiceStep(y_max, 5);
  y_max = std::ceil(y_max / y_step) * y_step;
  const double x_end = t_end > 0 ? t_end : 1;
  const double x_step = NiceStep(x_end, 8);
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  auto x = [&](double t) { return kLeft + t / x_end * pw; };
  auto y = [&](double v) { return kTop + ph - v / y_max * ph; };
  std::string svg = fmt::format(
      "<h2>{}</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
      Escape(title), kWidth, kHeight, kWidth, kHeight, Escape(title));
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff\" "
      "stroke=\"#999\"/>\n",
      kLeft, kTop, pw, ph);
  for (double v = 0; v <= y_max + y_step / 2; v += y_step) {
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#eee\"/><text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" "
        "text-anchor=\"end\">{:g}</text>\n",
        kLeft, y(v), kLeft + pw, y(v), kLeft - 6, y(v) + 4, v);
  }
  for (double t = 0; t <= x_end + x_step / 2; t += x_step) {
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" "
        "text-anchor=\"middle\">{:g}</text>\n",
        x(t), kTop + ph + 16, t);
  }
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" "
      "text-anchor=\"middle\">seconds since start</text>\n",
      kLeft + pw / 2, kHeight - 4);
  svg += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {:.1f})\">{}</text>\n",
      kTop + ph / 2, kTop + ph / 2, Escape(unit));
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string path;
    for (const Point& p : lines[i].points) {
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", x(p.t_s), y(p.value));
    }
    const char* color = kColors[i % std::size(kColors)];
    svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>\n", path,
                       color);
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}</text>\n",
        kLeft + 8, kTop + 6 + 14.0 * static_cast<double>(i), color, kLeft + 22,
        kTop + 15 + 14.0 * static_cast<double>(i), Escape(lines[i].name));
  }
  return svg + "</svg>\n";
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
