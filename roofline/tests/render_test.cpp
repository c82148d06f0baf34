#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "fixtures.h"
#include "report.h"

namespace xpuperf::roofline {
namespace {

Report MixedReport(bool with_spec = false) {
  Result<Workload> workload = LoadWorkload(testing::DataPath("workload-mixed.yaml"));
  EXPECT_TRUE(workload.ok()) << workload.error().message;
  std::optional<spec::SpecSheet> sheet;
  BenchResults results = testing::CpuResults();
  if (with_spec) {
    results = *ReadBenchResults(testing::DataPath("results-accelerator"));
    sheet = *spec::LoadSpecSheet(testing::DataPath("spec-accelerator.yaml"));
  }
  Result<Report> report = BuildReport(results, sheet, *workload);
  EXPECT_TRUE(report.ok()) << report.error().message;
  return *report;
}

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(Svg, LabelsEveryCeilingWithItsValueAndEveryPoint) {
  const Report report = MixedReport();
  const std::string svg = RenderSvg(report);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("fp64 peak 100 GFLOP/s</text>"), std::string::npos);
  EXPECT_NE(svg.find("fp32 GEMM 170 GFLOP/s</text>"), std::string::npos);
  EXPECT_NE(svg.find("DRAM 25 GB/s</text>"), std::string::npos);
  EXPECT_NE(svg.find("L1 400 GB/s</text>"), std::string::npos);
  EXPECT_NE(svg.find("host h2d 10 GB/s</text>"), std::string::npos);
  EXPECT_NE(svg.find("all_reduce busbw 4 GB/s</text>"), std::string::npos);
  // Decades on both axes.
  EXPECT_NE(svg.find(">100 GFLOP/s</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1</text>"), std::string::npos);
  EXPECT_NE(svg.find(">10</text>"), std::string::npos);
  // One circle per drawable point (r=6), each with a hover title.
  size_t drawable = 0;
  for (const PointVerdict& v : report.analysis->verdicts) drawable += PlotPositionOf(v) ? 1 : 0;
  EXPECT_EQ(Count(svg, "r=\"6\""), static_cast<int>(drawable));
  EXPECT_GE(drawable, 5u);
  EXPECT_NE(svg.find("ridge point fp32 peak / DRAM: 8 FLOP/B"), std::string::npos);
  EXPECT_NE(svg.find("network-bound"), std::string::npos);  // legend
}

// The ceiling labels as rotated rectangles (0.6 em per character, 12 px up and 3 down) from their
// x, y and rotation: no two intersect (separating-axis test).
struct Quad {
  double x[4], y[4];
};

bool Separated(const Quad& a, const Quad& b) {
  for (const Quad* q : {&a, &b}) {
    for (int i = 0; i < 2; ++i) {
      const double nx = -(q->y[i + 1] - q->y[i]), ny = q->x[i + 1] - q->x[i];
      double a_lo = 1e300, a_hi = -1e300, b_lo = 1e300, b_hi = -1e300;
      for (int k = 0; k < 4; ++k) {
        a_lo = std::min(a_lo, a.x[k] * nx + a.y[k] * ny);
        a_hi = std::max(a_hi, a.x[k] * nx + a.y[k] * ny);
        b_lo = std::min(b_lo, b.x[k] * nx + b.y[k] * ny);
        b_hi = std::max(b_hi, b.x[k] * nx + b.y[k] * ny);
      }
      if (a_hi <= b_lo || b_hi <= a_lo) return true;
    }
  }
  return false;
}

TEST(Svg, CeilingLabelsDoNotOverlap) {
  const std::string svg = RenderSvg(MixedReport());
  const std::regex label(
      "<text x=\"([-0-9.]+)\" y=\"([-0-9.]+)\" font-size=\"12\" [^>]*?(?:rotate\\(([-0-9.]+)"
      "[^>]*)?>([^<]+)</text>");
  std::vector<Quad> quads;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator();
       ++it) {
    const std::smatch& m = *it;
    const double x = std::stod(m[1].str()), y = std::stod(m[2].str());
    const double a = (m[3].matched ? std::stod(m[3].str()) : 0) * M_PI / 180;
    const double w = 0.6 * 12 * m[4].str().size(), h = 12;
    const double lx[4] = {0, w, w, 0}, ly[4] = {3, 3, -h, -h};  // with the descent
    Quad q;
    for (int i = 0; i < 4; ++i) {
      q.x[i] = x + lx[i] * std::cos(a) - ly[i] * std::sin(a);
      q.y[i] = y + lx[i] * std::sin(a) + ly[i] * std::cos(a);
    }
    quads.push_back(q);
  }
  ASSERT_GE(quads.size(), 10u);
  for (size_t i = 0; i < quads.size(); ++i) {
    for (size_t j = i + 1; j < quads.size(); ++j) {
      EXPECT_TRUE(Separated(quads[i], quads[j])) << "labels " << i << " and " << j;
    }
  }
}

TEST(Html, SelfContainedWithRooflineTablesAndAdvice) {
  const Report report = MixedReport(/*with_spec=*/true);
  const std::string html = RenderHtml(report);
  // The only URL is the SVG namespace, which is an identifier, not a fetch.
  std::string stripped = html;
  const std::string ns = "xmlns=\"http://www.w3.org/2000/svg\"";
  for (size_t at = stripped.find(ns); at != std::string::npos; at = stripped.find(ns)) {
    stripped.erase(at, ns.size());
  }
  for (const char* forbidden :
       {"http://", "https://", "src=", "@import", "url(http", "href=", "<link", "<script src"}) {
    EXPECT_EQ(stripped.find(forbidden), std::string::npos) << forbidden;
  }
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("Spec comparison"), std::string::npos);
  EXPECT_NE(html.find("fp8 peak (spec)"), std::string::npos);
  EXPECT_NE(html.find("Benchmark results"), std::string::npos);
  EXPECT_NE(html.find("Advice"), std::string::npos);
  EXPECT_NE(html.find("<title>"), std::string::npos);  // hover text on points
}

TEST(Text, CeilingsVerdictsAndAdvice) {
  const std::string text = RenderText(MixedReport());
  EXPECT_NE(text.find("fp64 peak"), std::string::npos);
  EXPECT_NE(text.find("100 GFLOP/s"), std::string::npos);
  EXPECT_NE(text.find("triad_bandwidth"), std::string::npos);
  EXPECT_NE(text.find("Verdicts"), std::string::npos);
  EXPECT_NE(text.find("Advice"), std::string::npos);
  EXPECT_NE(text.find("ASCII roofline"), std::string::npos);
}

TEST(Json, MeasuredCeilingsCarryTheRecordedValues) {
  const Report report = MixedReport();
  const nlohmann::json json = ReportJson(report);
  ASSERT_TRUE(json["ceilings"].is_array());
  bool saw_triad = false;
  for (const auto& c : json["ceilings"]) {
    if (c["metric"] == "triad_bandwidth") {
      saw_triad = true;
      EXPECT_EQ(c["recorded_value"].get<double>(), 25.0);
      EXPECT_EQ(c["value"].get<double>(), 25e9);
    }
  }
  EXPECT_TRUE(saw_triad);
  EXPECT_EQ(json["points"].size(), report.analysis->verdicts.size());
  EXPECT_TRUE(json["summary"].is_object());
  const nlohmann::json diagnose = DiagnoseJson(report);
  EXPECT_FALSE(diagnose.contains("ceilings"));
  EXPECT_TRUE(diagnose["advice"].is_array());
}

}  // namespace
}  // namespace xpuperf::roofline
