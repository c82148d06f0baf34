// Geometry for the roofline picture: log-log axes mapped to pixels and a greedy label placer that
// keeps text boxes (rotated or not) apart and inside the plot.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <vector>

namespace xpuperf::roofline::svg {

struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// Decades [10^x_lo, 10^x_hi] x [10^y_lo, 10^y_hi] drawn into `plot` (pixels, y down).
struct LogAxes {
  int x_lo = -2, x_hi = 2, y_lo = 8, y_hi = 12;
  Box plot;
  double X(double value) const {
    return plot.x0 + (std::log10(value) - x_lo) / (x_hi - x_lo) * (plot.x1 - plot.x0);
  }
  double Y(double value) const {
    return plot.y1 - (std::log10(value) - y_lo) / (y_hi - y_lo) * (plot.y1 - plot.y0);
  }
};

// Approximate width of `text` at `font_px` in a sans-serif face (generous, so boxes that do not
// overlap here do not overlap on screen).
inline double TextWidth(std::string_view text, double font_px) {
  return 0.64 * font_px * static_cast<double>(text.size());
}

// A rectangle rotated about its first corner: the box of a text of width w and height h whose
// baseline starts at (x, y), turned by `degrees` (SVG convention: positive turns clockwise).
struct OrientedBox {
  std::array<double, 4> xs{}, ys{};  // corners in order around the box

  static OrientedBox Text(double x, double y, double w, double h, double degrees) {
    const double a = degrees * M_PI / 180, c = std::cos(a), s = std::sin(a);
    // Local corners from the descent below the baseline (a quarter of the height) up to the
    // ascent, rotated by a.
    OrientedBox b;
    const double lx[4] = {0, w, w, 0}, ly[4] = {0.25 * h, 0.25 * h, -h, -h};
    for (int i = 0; i < 4; ++i) {
      b.xs[i] = x + lx[i] * c - ly[i] * s;
      b.ys[i] = y + lx[i] * s + ly[i] * c;
    }
    return b;
  }
  static OrientedBox Axis(const Box& box) {
    return OrientedBox{{box.x0, box.x1, box.x1, box.x0}, {box.y0, box.y0, box.y1, box.y1}};
  }
  bool Inside(const Box& outer) const {
    for (int i = 0; i < 4; ++i) {
      if (xs[i] < outer.x0 || xs[i] > outer.x1 || ys[i] < outer.y0 || ys[i] > outer.y1) {
        return false;
      }
    }
    return true;
  }
};

// Separating-axis test of two convex quadrilaterals, with `gap` pixels of clearance.
inline bool Overlap(const OrientedBox& a, const OrientedBox& b, double gap = 2) {
  for (const OrientedBox* box : {&a, &b}) {
    for (int i = 0; i < 2; ++i) {
      const double ex = box->xs[i + 1] - box->xs[i], ey = box->ys[i + 1] - box->ys[i];
      const double length = std::hypot(ex, ey);
      if (length == 0) continue;
      const double nx = -ey / length, ny = ex / length;  // unit normal of this edge
      double a_lo = 1e300, a_hi = -1e300, b_lo = 1e300, b_hi = -1e300;
      for (int k = 0; k < 4; ++k) {
        const double pa = a.xs[k] * nx + a.ys[k] * ny, pb = b.xs[k] * nx + b.ys[k] * ny;
        a_lo = std::min(a_lo, pa), a_hi = std::max(a_hi, pa);
        b_lo = std::min(b_lo, pb), b_hi = std::max(b_hi, pb);
      }
      if (a_hi + gap <= b_lo || b_hi + gap <= a_lo) return false;
    }
  }
  return true;
}

// A straight line of the picture as a thin box, an obstacle that labels of other lines avoid.
inline OrientedBox Segment(double x0, double y0, double x1, double y1, double half_width = 1) {
  const double length = std::hypot(x1 - x0, y1 - y0);
  const double nx = length > 0 ? -(y1 - y0) / length * half_width : 0;
  const double ny = length > 0 ? (x1 - x0) / length * half_width : 0;
  return OrientedBox{{x0 + nx, x1 + nx, x1 - nx, x0 - nx}, {y0 + ny, y1 + ny, y1 - ny, y0 - ny}};
}

// Boxes already taken: text and markers always block; lines block only in strict mode and never
// the label of the line itself. Fits tells whether a new box is free and inside the bounds.
class Occupancy {
 public:
  explicit Occupancy(Box bounds) : bounds_(bounds) {}
  bool Fits(const OrientedBox& box, bool avoid_lines = false, int own_line = -1) const {
    if (!box.Inside(bounds_)) return false;
    for (const OrientedBox& taken : taken_) {
      if (Overlap(box, taken)) return false;
    }
    if (avoid_lines) {
      for (size_t i = 0; i < lines_.size(); ++i) {
        if (static_cast<int>(i) != own_line && Overlap(box, lines_[i], 0)) return false;
      }
    }
    return true;
  }
  void Take(const OrientedBox& box) { taken_.push_back(box); }
  void Take(const Box& box) { taken_.push_back(OrientedBox::Axis(box)); }
  // Returns the line's index for Fits(..., own_line).
  int AddLine(const OrientedBox& line) {
    lines_.push_back(line);
    return static_cast<int>(lines_.size()) - 1;
  }

 private:
  Box bounds_;
  std::vector<OrientedBox> taken_;
  std::vector<OrientedBox> lines_;
};

}  // namespace xpuperf::roofline::svg
