// The charts of every HTML report (`analyze --html`, `record`'s report.html): inline SVG with
// axes, tick labels, axis titles and a legend laid out below the plot in as many rows as its
// labels need, so no two labels overlap and none covers the data.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace xpuperf::render {

struct ChartPoint {
  double x = 0;
  double y = 0;
};

struct ChartSeries {
  std::string name;  // legend label; a chart whose only series has no name has no legend
  std::vector<ChartPoint> points;
  std::string color;  // empty: the palette's colour for its index
};

struct ChartAxis {
  std::string title;  // "seconds since start", "W", "% busy"
  double max = 0;     // the axis ends here; 0: at the data's largest value, rounded up to a tick
};

enum class ChartStyle {
  kLines,    // each series a polyline through its points
  kColumns,  // each point a column of `column_width` (x units) starting at x, with a tooltip
};

struct Chart {
  std::string title;  // the SVG's accessible name
  ChartAxis x, y;
  std::vector<ChartSeries> series;
  ChartStyle style = ChartStyle::kLines;
  double column_width = 0;  // kColumns
  std::string y_unit;       // after a column's tooltip value ("% busy")
  int width = 960;
  int plot_height = 220;
};

// The chart as one <svg> element (axes from 0 to each axis's end, 4–8 ticks per axis).
std::string RenderChartSvg(const Chart& chart);

struct BarSegment {
  std::string label;
  double value = 0;
  std::string color;  // empty: the palette's colour for its index
};

// One horizontal bar of segments in proportion to their values, each with its share in a tooltip,
// and a legend ("label 42%") below it.
std::string RenderStackedBarSvg(std::string_view title, const std::vector<BarSegment>& segments);

// A tick step of 1, 2, 2.5 or 5 × 10^k that divides `span` into at most about `ticks` steps.
double NiceStep(double span, int ticks);

// The i-th colour of the palette every chart shares.
const char* ChartColor(size_t index);

}  // namespace xpuperf::render
