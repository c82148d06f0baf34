// The roofline picture. Label placement is deliberate: every label is tried at a series of
// positions along its line and the first one that overlaps nothing already drawn is kept.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report.h"
#include "svg_layout.h"
#include "xpuperf/render/html.h"

namespace xpuperf::roofline {
namespace {

using svg::Box;
using svg::LogAxes;
using svg::Occupancy;

constexpr double kWidth = 960, kHeight = 640;
constexpr double kFont = 12;       // ceiling labels
constexpr double kSmallFont = 11;  // ticks, legend

const char* BoundColor(Bound bound) {
  switch (bound) {
    case Bound::kCompute:
      return "#1f77b4";
    case Bound::kMemory:
      return "#e6550d";
    case Bound::kHostLink:
      return "#2ca02c";
    case Bound::kNetwork:
      return "#9467bd";
  }
  return "#000000";
}

struct LineStyle {
  const char* color;
  const char* dash;  // stroke-dasharray, "" for solid
  double width;
};

LineStyle StyleOf(const Ceiling& c) {
  if (c.source == CeilingSource::kSpec) return {"#8c8c8c", "2,3", 1.5};
  switch (c.kind) {
    case CeilingKind::kCompute:
      return c.variant == "gemm" ? LineStyle{"#1f4e79", "7,4", 1.8} : LineStyle{"#1f4e79", "", 2.2};
    case CeilingKind::kMemory:
      return {"#a63603", "", 2.2};
    case CeilingKind::kHostLink:
      return {"#2ca02c", "9,3,2,3", 1.8};
    case CeilingKind::kNetwork:
      return {"#9467bd", "9,3,2,3", 1.8};
  }
  return {"#000000", "", 1};
}

int FloorDecade(double v) { return static_cast<int>(std::floor(std::log10(v) + 1e-9)); }
int CeilDecade(double v) { return static_cast<int>(std::ceil(std::log10(v) - 1e-9)); }

std::string DecadeLabelX(int k) {
  if (k >= 0 && k <= 4) return fmt::format("{}", static_cast<long long>(std::pow(10, k)));
  if (k < 0 && k >= -3) return fmt::format("{:.{}f}", std::pow(10, k), -k);
  return fmt::format("1e{}", k);
}

std::string DecadeLabelY(int k) { return FormatFlops(std::pow(10.0, k)); }

struct Drawn {
  std::string lines;   // ceilings
  std::string marks;   // ridges and points
  std::string labels;  // text
};

// Chooses the decades so every ceiling crossing, ridge and point is inside.
LogAxes ChooseAxes(const Report& report, const std::vector<PlotPosition>& positions,
                   const std::vector<RidgePoint>& ridges) {
  double top = 0, min_bandwidth = 0;
  std::vector<double> xs, ys;
  for (const Ceiling& c : report.ceilings.all) {
    if (c.kind == CeilingKind::kCompute) {
      top = std::max(top, c.value);
    } else if (min_bandwidth == 0 || c.value < min_bandwidth) {
      min_bandwidth = c.value;
    }
  }
  for (const RidgePoint& r : ridges) xs.push_back(r.intensity);
  for (const Ceiling& c : report.ceilings.all) {
    if (c.kind != CeilingKind::kCompute && top > 0) xs.push_back(top / c.value);
  }
  for (const PlotPosition& p : positions) ys.push_back(p.flops_per_second);
  LogAxes axes;
  if (top <= 0) top = ys.empty() ? 1e12 : *std::max_element(ys.begin(), ys.end());
  if (xs.empty()) xs = {1.0};
  // A decade of margin around the ridges (the diagonals need room for their labels); points
  // only need to be inside.
  axes.x_lo = FloorDecade(*std::min_element(xs.begin(), xs.end())) - 1;
  axes.x_hi = CeilDecade(*std::max_element(xs.begin(), xs.end())) + 1;
  for (const PlotPosition& p : positions) {
    axes.x_lo = std::min(axes.x_lo, FloorDecade(p.intensity / 1.5));
    axes.x_hi = std::max(axes.x_hi, CeilDecade(p.intensity * 1.5));
  }
  if (axes.x_hi - axes.x_lo < 4) axes.x_hi = axes.x_lo + 4;
  if (axes.x_hi - axes.x_lo > 9) axes.x_lo = axes.x_hi - 9;
  axes.y_hi = CeilDecade(top * 1.5);
  for (double y : ys) axes.y_hi = std::max(axes.y_hi, CeilDecade(y * 1.5));
  double y_min = top / 1e3;
  if (min_bandwidth > 0) y_min = std::min(y_min, min_bandwidth * std::pow(10.0, axes.x_lo + 1));
  for (double y : ys) y_min = std::min(y_min, y);
  axes.y_lo = std::max(FloorDecade(y_min), axes.y_hi - 8);
  if (axes.y_hi - axes.y_lo < 3) axes.y_lo = axes.y_hi - 3;
  axes.plot = Box{96, 44, kWidth - 24, kHeight - 150};
  return axes;
}

std::string Line(double x0, double y0, double x1, double y1, const LineStyle& style,
                 const std::string& title) {
  return fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
      "stroke-width=\"{}\"{}><title>{}</title></line>\n",
      x0, y0, x1, y1, style.color, style.width,
      *style.dash ? fmt::format(" stroke-dasharray=\"{}\"", style.dash) : std::string(),
      render::HtmlEscape(title));
}

std::string Text(double x, double y, const std::string& text, double font, const char* color,
                 const char* anchor = "start", double rotate = 0, const char* weight = "normal") {
  const std::string transform =
      rotate != 0 ? fmt::format(" transform=\"rotate({:.2f} {:.1f} {:.1f})\"", rotate, x, y) : "";
  // Bold labels sit on lines: a white halo keeps them readable where a line crosses them.
  const std::string halo = std::string_view(weight) == "bold"
                               ? " stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\""
                               : "";
  return fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{}\" fill=\"{}\" text-anchor=\"{}\" "
      "font-weight=\"{}\"{}{}>{}</text>\n",
      x, y, font, color, anchor, weight, halo, transform, render::HtmlEscape(text));
}

void DrawAxes(const LogAxes& axes, std::string& out) {
  const Box& p = axes.plot;
  out += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#ffffff\" "
      "stroke=\"#444444\"/>\n",
      p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0);
  for (int k = axes.x_lo; k <= axes.x_hi; ++k) {
    const double x = axes.X(std::pow(10.0, k));
    if (k > axes.x_lo && k < axes.x_hi) {
      out += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
          "stroke=\"#d9d9d9\"/>\n",
          x, p.y0, p.y1);
    }
    for (int m = 2; m <= 9 && k < axes.x_hi; ++m) {
      const double xm = axes.X(m * std::pow(10.0, k));
      out += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
          "stroke=\"#444444\"/>\n",
          xm, p.y1, p.y1 - 4);
    }
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#444444\"/>\n",
        x, p.y1, p.y1 - 8);
    out += Text(x, p.y1 + 18, DecadeLabelX(k), kSmallFont, "#222222", "middle");
  }
  for (int k = axes.y_lo; k <= axes.y_hi; ++k) {
    const double y = axes.Y(std::pow(10.0, k));
    if (k > axes.y_lo && k < axes.y_hi) {
      out += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
          "stroke=\"#d9d9d9\"/>\n",
          p.x0, y, p.x1);
    }
    for (int m = 2; m <= 9 && k < axes.y_hi; ++m) {
      const double ym = axes.Y(m * std::pow(10.0, k));
      out += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
          "stroke=\"#444444\"/>\n",
          p.x0, ym, p.x0 + 4);
    }
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#444444\"/>\n",
        p.x0, y, p.x0 + 8);
    out += Text(p.x0 - 6, y + 4, DecadeLabelY(k), kSmallFont, "#222222", "end");
  }
  out += Text((p.x0 + p.x1) / 2, p.y1 + 40,
              "Arithmetic intensity (FLOP per byte of the traffic that bounds the point)", 13,
              "#222222", "middle");
  out += Text(18, (p.y0 + p.y1) / 2, "Performance (FLOP/s)", 13, "#222222", "middle", -90);
}

// Places a text along a straight pixel segment (x0,y0)-(x1,y1): tries anchors from the
// preferred end, above then below the line. Returns the SVG text, or "" when nothing fits.
std::string PlaceAlong(Occupancy& occupancy, const std::string& text, double x0, double y0,
                       double x1, double y1, bool from_end, const char* color, int own_line) {
  const double w = svg::TextWidth(text, kFont), h = kFont;
  const double length = std::hypot(x1 - x0, y1 - y0);
  if (length < 1) return "";
  const double ux = (x1 - x0) / length, uy = (y1 - y0) / length;
  const double degrees = std::atan2(uy, ux) * 180 / M_PI;
  const double a = degrees * M_PI / 180;
  const double up_x = std::sin(a), up_y = -std::cos(a);
  // First a place that crosses no other line, else one that at least overlaps no text.
  for (bool avoid_lines : {true, false}) {
    for (double offset = 6; offset + w <= length - 2; offset += 8) {
      const double along = from_end ? length - offset - w : offset;
      for (double lift : {5.0, -(h + 1)}) {
        const double ax = x0 + ux * along + up_x * lift;
        const double ay = y0 + uy * along + up_y * lift;
        const svg::OrientedBox box = svg::OrientedBox::Text(ax, ay, w, h, degrees);
        if (occupancy.Fits(box, avoid_lines, own_line)) {
          occupancy.Take(box);
          return Text(ax, ay, text, kFont, color, "start", degrees, "bold");
        }
      }
    }
  }
  return "";
}

struct Segment {
  double x0, y0, x1, y1;  // pixels
};

// The visible part of y = slope * x (log-log: a diagonal) up to x_end, inside the plot.
std::optional<Segment> DiagonalSegment(const LogAxes& axes, double bandwidth, double x_end) {
  double xa = std::pow(10.0, axes.x_lo);
  if (bandwidth * xa < std::pow(10.0, axes.y_lo)) xa = std::pow(10.0, axes.y_lo) / bandwidth;
  double xb = std::min(x_end, std::pow(10.0, axes.x_hi));
  if (bandwidth * xb > std::pow(10.0, axes.y_hi)) xb = std::pow(10.0, axes.y_hi) / bandwidth;
  if (!(xb > xa)) return std::nullopt;
  return Segment{axes.X(xa), axes.Y(bandwidth * xa), axes.X(xb), axes.Y(bandwidth * xb)};
}

std::string PointTitle(size_t index, const PointVerdict& v) {
  std::string title = fmt::format("{}. {}: {}-bound{}", index + 1, v.point.name, BoundName(v.bound),
                                  v.bound_scope.empty() ? "" : " (" + v.bound_scope + ")");
  title += fmt::format("\nFLOPs {:.4g}, memory bytes {:.4g}", v.point.flops, v.point.bytes);
  if (v.intensity) title += fmt::format("\nintensity {:.4g} FLOP/B", *v.intensity);
  if (v.achieved_flops) title += "\nachieved " + FormatFlops(*v.achieved_flops);
  if (v.attainable_flops) title += "\nattainable " + FormatFlops(*v.attainable_flops);
  if (v.point.time_seconds) title += "\nmeasured " + FormatSeconds(*v.point.time_seconds);
  title += "\nroof time " + FormatSeconds(v.roof_seconds);
  if (v.fraction_of_roof) title += fmt::format("\n{:.1f}% of the roof", 100 * *v.fraction_of_roof);
  return title;
}

bool HasCeiling(const Report& report, CeilingSource source, CeilingKind kind,
                std::string_view variant = "") {
  return std::any_of(report.ceilings.all.begin(), report.ceilings.all.end(), [&](const Ceiling& c) {
    return c.source == source && c.kind == kind && (variant.empty() || c.variant == variant);
  });
}

// The legend names only what the picture shows: the bounds of its points (or why there are none)
// and the kinds of ceilings it draws.
void DrawLegend(const Report& report, std::string& out) {
  double x = 96;
  const double y1 = kHeight - 82, y2 = kHeight - 56;
  const bool has_points = report.analysis && !report.analysis->verdicts.empty();
  if (!has_points) {
    out += Text(x, y1, "No points: " + NoPointsReason(report), kSmallFont, "#222222");
  } else {
    out += Text(x, y1, "Points (by bound):", kSmallFont, "#222222", "start", 0, "bold");
    x += 134;
  }
  std::vector<Bound> bounds;
  if (has_points) {
    for (const PointVerdict& v : report.analysis->verdicts) {
      if (std::find(bounds.begin(), bounds.end(), v.bound) == bounds.end()) {
        bounds.push_back(v.bound);
      }
    }
    std::sort(bounds.begin(), bounds.end());
  }
  for (Bound bound : bounds) {
    out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"/>\n", x, y1 - 4,
                       BoundColor(bound));
    const std::string name = std::string(BoundName(bound)) + "-bound";
    out += Text(x + 9, y1, name, kSmallFont, "#222222");
    x += 24 + svg::TextWidth(name, kSmallFont);
  }
  const bool untimed =
      has_points && std::any_of(report.analysis->verdicts.begin(), report.analysis->verdicts.end(),
                                [](const PointVerdict& v) { return !v.point.time_seconds; });
  if (untimed) {
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"#ffffff\" stroke=\"#444444\" "
        "stroke-width=\"2\"/>\n",
        x, y1 - 4);
    out += Text(x + 9, y1, "hollow: no measured time (at its roof)", kSmallFont, "#222222");
  }
  x = 96;
  out += Text(x, y2, "Ceilings:", kSmallFont, "#222222", "start", 0, "bold");
  x += 70;
  struct Item {
    LineStyle style;
    const char* text;
  };
  const auto measured = [&](CeilingKind kind, std::string_view variant = "") {
    return HasCeiling(report, CeilingSource::kMeasured, kind, variant);
  };
  const bool spec = std::any_of(report.ceilings.all.begin(), report.ceilings.all.end(),
                                [](const Ceiling& c) { return c.source == CeilingSource::kSpec; });
  std::vector<Item> items;
  if (measured(CeilingKind::kCompute, "peak"))
    items.push_back({{"#1f4e79", "", 2.2}, "measured peak"});
  if (measured(CeilingKind::kCompute, "gemm"))
    items.push_back({{"#1f4e79", "7,4", 1.8}, "best GEMM"});
  if (measured(CeilingKind::kMemory)) items.push_back({{"#a63603", "", 2.2}, "memory level"});
  if (measured(CeilingKind::kHostLink)) items.push_back({{"#2ca02c", "9,3,2,3", 1.8}, "host link"});
  if (measured(CeilingKind::kNetwork)) {
    items.push_back({{"#9467bd", "9,3,2,3", 1.8}, "network busbw"});
  }
  if (spec) items.push_back({{"#8c8c8c", "2,3", 1.5}, "spec sheet"});
  for (const Item& item : items) {
    out += Line(x, y2 - 4, x + 26, y2 - 4, item.style, item.text);
    out += Text(x + 31, y2, item.text, kSmallFont, "#222222");
    x += 36 + svg::TextWidth(item.text, kSmallFont);
  }
  if (!RidgePoints(report.ceilings).empty()) {
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#ffffff\" stroke=\"#222222\" "
        "stroke-width=\"1.5\"/>\n",
        x, y2 - 4);
    out += Text(x + 8, y2, "ridge point", kSmallFont, "#222222");
  }
  std::string note;
  if (const Ceiling* main = report.ceilings.MainMemory();
      main != nullptr && main->variant == "STREAM triad") {
    note += "DRAM/HBM from STREAM triad (STREAM byte counting, no write-allocate); ";
  }
  if (measured(CeilingKind::kMemory, "read plateau")) {
    note += "cache levels from cache_sweep read plateaus (1 thread); ";
  }
  if (!note.empty()) {
    note = "Memory ceilings: " + note.substr(0, note.size() - 2) + ".";
    out += Text(96, kHeight - 30, note, kSmallFont - 1, "#555555");
  }
}

}  // namespace

std::string RenderSvgElement(const Report& report) {
  std::vector<PlotPosition> positions;
  std::vector<size_t> position_point;
  if (report.analysis) {
    for (size_t i = 0; i < report.analysis->verdicts.size(); ++i) {
      if (auto p = PlotPositionOf(report.analysis->verdicts[i])) {
        positions.push_back(*p);
        position_point.push_back(i);
      }
    }
  }
  const std::vector<RidgePoint> ridges = RidgePoints(report.ceilings);
  const LogAxes axes = ChooseAxes(report, positions, ridges);
  const Box& plot = axes.plot;
  Occupancy occupancy(Box{plot.x0 + 2, plot.y0 + 2, plot.x1 - 2, plot.y1 - 2});

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\" "
      "role=\"img\">\n",
      kWidth, kHeight);
  const std::string title = fmt::format("Roofline: {} ({}), run {}", report.results.device_model,
                                        report.results.backend, report.results.run_id);
  out += "<title>" + render::HtmlEscape(title) + "</title>\n";
  out += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"#fbfbfb\"/>\n", kWidth, kHeight);
  out += Text(plot.x0, 26, title, 15, "#111111", "start", 0, "bold");
  DrawAxes(axes, out);
  out += fmt::format(
      "<clipPath id=\"plot-area\"><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
      "height=\"{:.1f}\"/></clipPath>\n",
      plot.x0, plot.y0, plot.x1 - plot.x0, plot.y1 - plot.y0);

  Drawn drawn;
  // Points first: labels must not cover them.
  for (size_t j = 0; j < positions.size(); ++j) {
    const double px = axes.X(positions[j].intensity), py = axes.Y(positions[j].flops_per_second);
    occupancy.Take(Box{px - 7, py - 7, px + 7, py + 7});
  }
  for (const RidgePoint& r : ridges) {
    const double px = axes.X(r.intensity), py = axes.Y(r.flops_per_second);
    occupancy.Take(Box{px - 4, py - 4, px + 4, py + 4});
    drawn.marks += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#ffffff\" stroke=\"#222222\" "
        "stroke-width=\"1.5\"><title>{}</title></circle>\n",
        px, py,
        render::HtmlEscape(
            fmt::format("ridge point {} / {}: {:.3g} FLOP/B", r.compute, r.memory, r.intensity)));
  }
  // The fastest memory level and compute roof decide where lines start and end.
  double fastest_memory = 0, top_measured = 0, top_spec = 0;
  for (const Ceiling& c : report.ceilings.all) {
    if (c.kind == CeilingKind::kMemory) fastest_memory = std::max(fastest_memory, c.value);
    if (c.kind == CeilingKind::kCompute) {
      (c.source == CeilingSource::kMeasured ? top_measured : top_spec) =
          std::max(c.source == CeilingSource::kMeasured ? top_measured : top_spec, c.value);
    }
  }
  if (top_measured == 0) top_measured = top_spec;
  // Every ceiling's line first, so that labels can avoid the lines of other ceilings; compute
  // ceilings are horizontal and labelled at their right end, bandwidth ceilings diagonal up to the
  // compute roof and labelled near their lower end.
  struct Placed {
    Segment segment;
    std::string label;
    const Ceiling* ceiling;
    int line;
  };
  std::vector<Placed> placed;
  const Ceiling* network = report.ceilings.Network();
  for (const Ceiling& c : report.ceilings.all) {
    // One measured network roof (the one verdicts use); the other collectives are in the tables.
    if (c.kind == CeilingKind::kNetwork && c.source == CeilingSource::kMeasured && &c != network) {
      continue;
    }
    std::optional<Segment> segment;
    std::string label;
    if (c.kind == CeilingKind::kCompute) {
      const double y = axes.Y(c.value);
      if (y < plot.y0 || y > plot.y1) continue;
      const double x_start =
          fastest_memory > 0 ? std::max(plot.x0, axes.X(c.value / fastest_memory)) : plot.x0;
      segment = Segment{x_start, y, plot.x1, y};
      label = c.Label() + " " + FormatCeilingValue(c);
    } else {
      const double roof =
          c.source == CeilingSource::kSpec && top_spec > 0 ? top_spec : top_measured;
      segment =
          DiagonalSegment(axes, c.value, roof > 0 ? roof / c.value : std::pow(10.0, axes.x_hi));
      label = c.Label() + " " + FormatBandwidth(c.value);
    }
    if (!segment) continue;
    const int line =
        occupancy.AddLine(svg::Segment(segment->x0, segment->y0, segment->x1, segment->y1, 1.5));
    placed.push_back({*segment, label, &c, line});
    drawn.lines += Line(segment->x0, segment->y0, segment->x1, segment->y1, StyleOf(c),
                        label + "\n" + c.basis);
  }
  for (const Placed& p : placed) {
    const Segment& s = p.segment;
    drawn.labels += PlaceAlong(occupancy, p.label, s.x0, s.y0, s.x1, s.y1,
                               /*from_end=*/p.ceiling->kind == CeilingKind::kCompute,
                               StyleOf(*p.ceiling).color, p.line);
  }
  // Points and their numbers.
  for (size_t j = 0; j < positions.size(); ++j) {
    const PointVerdict& v = report.analysis->verdicts[position_point[j]];
    const double px = axes.X(positions[j].intensity), py = axes.Y(positions[j].flops_per_second);
    const char* color = BoundColor(v.bound);
    drawn.marks += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" fill=\"{}\" stroke=\"{}\" "
        "stroke-width=\"2\"><title>{}</title></circle>\n",
        px, py, positions[j].measured ? color : "#ffffff", color,
        render::HtmlEscape(PointTitle(position_point[j], v)));
    const std::string number = std::to_string(position_point[j] + 1);
    const double w = svg::TextWidth(number, kSmallFont + 1);
    const std::pair<double, double> anchors[] = {
        {px + 9, py + 4}, {px - 9 - w, py + 4}, {px - w / 2, py - 10}, {px - w / 2, py + 18},
        {px + 9, py - 8}, {px - 9 - w, py - 8}, {px + 9, py + 16},     {px - 9 - w, py + 16}};
    for (const auto& [ax, ay] : anchors) {
      const Box box{ax, ay - kSmallFont, ax + w, ay + 2};
      if (occupancy.Fits(svg::OrientedBox::Axis(box))) {
        occupancy.Take(box);
        drawn.labels += Text(ax, ay, number, kSmallFont + 1, color, "start", 0, "bold");
        break;
      }
    }
  }
  out += "<g clip-path=\"url(#plot-area)\">\n" + drawn.lines + drawn.marks + "</g>\n";
  out += drawn.labels;
  DrawLegend(report, out);
  out += "</svg>\n";
  return out;
}

std::string RenderSvg(const Report& report) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + RenderSvgElement(report);
}

}  // namespace xpuperf::roofline
