// Charts: axes with ticks from 0 to a round end, a legend below the plot whose labels never share
// a row position, text escaped, columns with their value in a tooltip.
#include "xpuperf/render/chart.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace xpuperf::render {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ChartTest, NiceStepsAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(NiceStep(100, 5), 20);
  EXPECT_DOUBLE_EQ(NiceStep(7, 8), 1);
  EXPECT_DOUBLE_EQ(NiceStep(0.3, 5), 0.1);
  EXPECT_DOUBLE_EQ(NiceStep(1234, 5), 250);
  EXPECT_DOUBLE_EQ(NiceStep(0, 5), 1);   // no span: a step that draws one tick
  EXPECT_DOUBLE_EQ(NiceStep(-3, 5), 1);  // never a negative or NaN step
}

TEST(ChartTest, AxesEndOnATickAboveTheData) {
  Chart chart;
  chart.title = "Power";
  chart.x.title = "seconds since start";
  chart.y.title = "W";
  chart.series.push_back({"gpu0", {{0, 10}, {1, 230}, {2, 180}}, ""});
  const std::string svg = RenderChartSvg(chart);
  // 230 W rounds up to 250 in steps of 50; 2 s in steps of 0.25.
  for (const char* tick : {">0</text>", ">50</text>", ">250</text>", ">2</text>", ">0.25</text>"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(svg.find(">300</text>"), std::string::npos);
  EXPECT_NE(svg.find(">seconds since start</text>"), std::string::npos);
  EXPECT_NE(svg.find(">W</text>"), std::string::npos);
  EXPECT_NE(svg.find(">gpu0</text>"), std::string::npos);  // a named series has a legend
  EXPECT_EQ(Count(svg, "<path "), 1);
}

TEST(ChartTest, LegendLabelsWrapIntoRowsWithoutOverlapping) {
  Chart chart;
  chart.width = 960;
  for (int i = 0; i < 12; ++i)
    chart.series.push_back({"a rather long series name " + std::to_string(i),
                            {{0, 1}, {1, static_cast<double>(i)}},
                            ""});
  const std::string svg = RenderChartSvg(chart);
  // Each legend swatch: 10×10 rects; read their (x, y) and check no two share a row and overlap
  // within the width a label of that length needs (11 px font, 0.62 em per glyph + gaps).
  const std::regex swatch(R"re(<rect x="([0-9.]+)" y="([0-9.]+)" width="10" height="10")re");
  std::vector<std::pair<double, double>> at;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), swatch); it != std::sregex_iterator();
       ++it)
    at.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
  ASSERT_EQ(at.size(), 12u);
  const double label_width = 10 + 4 + 28 * 11 * 0.62;
  int rows = 1;
  for (size_t i = 1; i < at.size(); ++i) {
    if (at[i].second != at[i - 1].second) {
      ++rows;
      continue;
    }
    EXPECT_GE(at[i].first - at[i - 1].first, label_width) << i;
  }
  EXPECT_GE(rows, 4);  // three labels of ~210 px fit in an 870 px row at most
  // The SVG grows to hold them all: its height covers the last row.
  const std::smatch height = [&] {
    std::smatch m;
    std::regex_search(svg, m, std::regex(R"re(height="([0-9]+)" viewBox)re"));
    return m;
  }();
  ASSERT_FALSE(height.empty());
  EXPECT_GT(std::stod(height[1]), at.back().second + 10);
}

TEST(ChartTest, TextIsEscaped) {
  Chart chart;
  chart.title = "<script>";
  chart.x.title = "a&b";
  chart.series.push_back({"</svg><b>", {{0, 1}}, ""});
  const std::string svg = RenderChartSvg(chart);
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_EQ(svg.find("</svg><b>"), std::string::npos);
  EXPECT_NE(svg.find("a&amp;b"), std::string::npos);
  EXPECT_EQ(Count(svg, "</svg>"), 1);
}

TEST(ChartTest, ColumnsCarryTheirValueAndAFixedAxisEnd) {
  Chart chart;
  chart.style = ChartStyle::kColumns;
  chart.x.title = "s";
  chart.y.max = 100;
  chart.y_unit = "% busy";
  chart.column_width = 0.5;
  chart.series.push_back({"", {{0, 40}, {0.5, 100}, {1.0, 0}}, "#2b7bb9"});
  const std::string svg = RenderChartSvg(chart);
  EXPECT_EQ(Count(svg, "<title>"), 3);
  EXPECT_NE(svg.find(": 40% busy</title>"), std::string::npos);
  EXPECT_NE(svg.find(">100</text>"), std::string::npos);
  // The x axis ends on the first tick at or past the last column's end (1.5): 1.6 in steps of 0.2.
  EXPECT_NE(svg.find(">1.6</text>"), std::string::npos);
  EXPECT_EQ(svg.find(R"(width="10" height="10")"), std::string::npos);  // no legend
}

TEST(ChartTest, StackedBarSharesAddUpAndTheLegendWraps) {
  std::vector<BarSegment> parts;
  for (const char* label : {"cpu ops", "runtime", "untraced", "launch", "wake-up", "compute",
                            "comm", "memory", "gap", "stream wait"})
    parts.push_back({label, 10, ""});
  const std::string svg = RenderStackedBarSvg("Critical path", parts);
  EXPECT_EQ(Count(svg, "<title>"), 10);
  EXPECT_EQ(Count(svg, " 10.0%</title>"), 10);
  EXPECT_NE(svg.find(">stream wait 10%</text>"), std::string::npos);
  // Nothing to share: every segment 0%, and no NaN anywhere.
  const std::string empty = RenderStackedBarSvg("none", {{"a", 0, ""}, {"b", 0, ""}});
  EXPECT_EQ(empty.find("nan"), std::string::npos);
  EXPECT_NE(empty.find(">a 0%</text>"), std::string::npos);
}

}  // namespace
}  // namespace xpuperf::render
