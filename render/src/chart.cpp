#include "xpuperf/render/chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "xpuperf/render/html.h"

namespace xpuperf::render {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
constexpr double kLeft = 70, kRight = 20, kTop = 12, kAxisBelow = 40;
constexpr double kLegendFont = 11, kLegendRow = 16, kSwatch = 10;

// A generous width of `text` at `font_size` px in the sans-serif face (wide glyphs included), so
// that labels laid out by it never touch.
double TextWidth(std::string_view text, double font_size) {
  size_t glyphs = 0;
  for (unsigned char c : text) glyphs += (c & 0xC0) != 0x80 ? 1 : 0;  // UTF-8 lead bytes
  return static_cast<double>(glyphs) * font_size * 0.62;
}

struct LegendItem {
  std::string label;
  std::string color;
};

// Items left to right from x0, wrapped at `width`; each row kLegendRow high from y0. Returns the
// SVG and sets `rows`.
std::string Legend(const std::vector<LegendItem>& items, double x0, double y0, double width,
                   int* rows) {
  std::string svg;
  double x = x0, y = y0;
  *rows = items.empty() ? 0 : 1;
  for (const LegendItem& item : items) {
    const double item_width = kSwatch + 4 + TextWidth(item.label, kLegendFont) + 16;
    if (x > x0 && x + item_width > x0 + width) {
      x = x0;
      y += kLegendRow;
      ++*rows;
    }
    svg += fmt::format(R"svg(<rect x="{:.1f}" y="{:.1f}" width="{}" height="{}" fill="{}"/>)svg"
                       R"svg(<text x="{:.1f}" y="{:.1f}" font-size="{}">{}</text>)svg",
                       x, y + 2, kSwatch, kSwatch, HtmlEscape(item.color), x + kSwatch + 4, y + 11,
                       kLegendFont, HtmlEscape(item.label));
    svg += "\n";
    x += item_width;
  }
  return svg;
}

int LegendRows(const std::vector<LegendItem>& items, double width) {
  int rows = 0;
  Legend(items, 0, 0, width, &rows);
  return rows;
}

std::string ColorOf(const std::string& chosen, size_t index) {
  return chosen.empty() ? std::string(ChartColor(index)) : chosen;
}

// The axis end: the chosen one, else the data's largest value rounded up to a whole tick.
double AxisEnd(double chosen, double data_max, int ticks, double* step) {
  double end = chosen > 0 ? chosen : (data_max > 0 ? data_max : 1);
  *step = NiceStep(end, ticks);
  if (chosen <= 0) end = std::ceil(end / *step - 1e-9) * *step;
  return end;
}

std::string Tick(double value) { return fmt::format("{:g}", std::abs(value) < 1e-12 ? 0 : value); }

}  // namespace

double NiceStep(double span, int ticks) {
  if (!(span > 0) || ticks <= 0) return 1;
  const double raw = span / ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (raw <= m * magnitude * (1 + 1e-9)) return m * magnitude;
  }
  return 10 * magnitude;
}

const char* ChartColor(size_t index) { return kPalette[index % std::size(kPalette)]; }

std::string RenderChartSvg(const Chart& chart) {
  double x_data = 0, y_data = 0;
  for (const ChartSeries& s : chart.series) {
    for (const ChartPoint& p : s.points) {
      x_data =
          std::max(x_data, p.x + (chart.style == ChartStyle::kColumns ? chart.column_width : 0));
      y_data = std::max(y_data, p.y);
    }
  }
  double x_step = 1, y_step = 1;
  const double x_end = AxisEnd(chart.x.max, x_data, 8, &x_step);
  const double y_end = AxisEnd(chart.y.max, y_data, 5, &y_step);
  const double pw = chart.width - kLeft - kRight, ph = chart.plot_height;
  auto x = [&](double v) { return kLeft + v / x_end * pw; };
  auto y = [&](double v) { return kTop + ph - std::clamp(v / y_end, 0.0, 1.0) * ph; };

  std::vector<LegendItem> legend;
  if (chart.series.size() > 1 || (chart.series.size() == 1 && !chart.series[0].name.empty())) {
    for (size_t i = 0; i < chart.series.size(); ++i)
      legend.push_back({chart.series[i].name, ColorOf(chart.series[i].color, i)});
  }
  const int rows = LegendRows(legend, pw);
  const double height = kTop + ph + kAxisBelow + rows * kLegendRow + (rows > 0 ? 6 : 0);

  std::string svg = fmt::format(
      R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{:.0f}" viewBox="0 0 {} {:.0f}" role="img" aria-label="{}">)svg",
      chart.width, height, chart.width, height, HtmlEscape(chart.title));
  svg += "\n";
  svg +=
      fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="#fff" stroke="#999"/>)svg",
                  kLeft, kTop, pw, ph);
  svg += "\n";
  const int y_ticks = static_cast<int>(std::floor(y_end / y_step + 1e-9));
  for (int i = 0; i <= y_ticks; ++i) {
    const double v = i * y_step;
    svg += fmt::format(
        R"svg(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#eee"/>)svg"
        R"svg(<text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="end">{}</text>)svg",
        kLeft, y(v), kLeft + pw, y(v), kLeft - 6, y(v) + 4, Tick(v));
    svg += "\n";
  }
  const int x_ticks = static_cast<int>(std::floor(x_end / x_step + 1e-9));
  for (int i = 0; i <= x_ticks; ++i) {
    const double v = i * x_step;
    svg += fmt::format(
        R"svg(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#999"/>)svg"
        R"svg(<text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="middle">{}</text>)svg",
        x(v), kTop + ph, x(v), kTop + ph + 4, x(v), kTop + ph + 16, Tick(v));
    svg += "\n";
  }
  svg += fmt::format(
      R"svg(<text x="{:.1f}" y="{:.1f}" font-size="12" text-anchor="middle">{}</text>)svg",
      kLeft + pw / 2, kTop + ph + 34, HtmlEscape(chart.x.title));
  svg += fmt::format(
      R"svg(<text x="14" y="{:.1f}" font-size="12" text-anchor="middle" transform="rotate(-90 14 {:.1f})">{}</text>)svg",
      kTop + ph / 2, kTop + ph / 2, HtmlEscape(chart.y.title));
  svg += "\n";
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    const std::string color = HtmlEscape(ColorOf(s.color, i));
    if (chart.style == ChartStyle::kColumns) {
      const double w = std::max(chart.column_width / x_end * pw - 1, 1.0);
      for (const ChartPoint& p : s.points) {
        svg += fmt::format(
            R"svg(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"><title>{:.3g} {}: {:.3g}{}</title></rect>)svg",
            x(p.x), y(p.y), w, kTop + ph - y(p.y), color, p.x, HtmlEscape(chart.x.title), p.y,
            HtmlEscape(chart.y_unit));
      }
      svg += "\n";
      continue;
    }
    std::string path;
    for (const ChartPoint& p : s.points)
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", x(p.x), y(p.y));
    if (path.empty()) continue;
    svg += fmt::format(R"svg(<path d="{}" fill="none" stroke="{}" stroke-width="1.5"/>)svg", path,
                       color);
    svg += "\n";
  }
  int drawn_rows = 0;
  svg += Legend(legend, kLeft, kTop + ph + kAxisBelow + 2, pw, &drawn_rows);
  return svg + "</svg>\n";
}

std::string RenderStackedBarSvg(std::string_view title, const std::vector<BarSegment>& segments) {
  constexpr double kBarWidth = 480, kWidth = 680;
  double total = 0;
  for (const BarSegment& s : segments) total += std::max(s.value, 0.0);
  std::vector<LegendItem> legend;
  for (size_t i = 0; i < segments.size(); ++i) {
    const double share = total > 0 ? 100 * std::max(segments[i].value, 0.0) / total : 0;
    legend.push_back(
        {fmt::format("{} {:.0f}%", segments[i].label, share), ColorOf(segments[i].color, i)});
  }
  const int rows = LegendRows(legend, kWidth);
  const double height = 24 + rows * kLegendRow + 4;
  std::string svg = fmt::format(
      R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" role="img" aria-label="{}">)svg",
      kWidth, height, HtmlEscape(title));
  double x = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    const double value = std::max(segments[i].value, 0.0);
    const double w = total > 0 ? value / total * kBarWidth : 0;
    svg += fmt::format(
        R"svg(<rect x="{:.1f}" y="2" width="{:.1f}" height="20" fill="{}"><title>{} {:.1f}%</title></rect>)svg",
        x, w, HtmlEscape(legend[i].color), HtmlEscape(segments[i].label),
        total > 0 ? 100 * value / total : 0);
    x += w;
  }
  svg += "\n";
  int drawn_rows = 0;
  svg += Legend(legend, 0, 26, kWidth, &drawn_rows);
  return svg + "</svg>\n";
}

}  // namespace xpuperf::render
