// Plain-text rendering for terminals: tables of ceilings and verdicts, the summary, the advice
// and a coarse ASCII roofline.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "report.h"

namespace xpuperf::roofline {
namespace {

// Left-aligned columns separated by two spaces, a dashed rule under the header.
std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t i = 0; i < rows[r].size(); ++i) {
      line += i + 1 < rows[r].size() ? fmt::format("{:<{}}  ", rows[r][i], widths[i]) : rows[r][i];
    }
    out += line + "\n";
    if (r == 0) {
      size_t total = 0;
      for (size_t w : widths) total += w + 2;
      out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
    }
  }
  return out;
}

std::string OrDash(const std::optional<double>& value, std::string (*format)(double)) {
  return value ? format(*value) : "-";
}

std::string Intensity(double value) { return fmt::format("{:.3g}", value); }
std::string Percent(double value) { return fmt::format("{:.1f}%", 100 * value); }

std::string RunLine(const Report& report) {
  if (!report.source_note.empty()) {
    return fmt::format("Roofline of {}: {}\n", report.results.device_model, report.source_note);
  }
  return fmt::format("Roofline of {} ({}), run {}, results {}\n", report.results.device_model,
                     report.results.backend, report.results.run_id, report.results.directory);
}

std::string CeilingsSection(const Report& report) {
  std::vector<std::vector<std::string>> rows = {
      {"kind", "ceiling", "value", "recorded value", "source"}};
  for (const Ceiling& c : report.ceilings.all) {
    rows.push_back(
        {std::string(CeilingKindName(c.kind)), c.Label(), FormatCeilingValue(c),
         c.source == CeilingSource::kSpec
             ? fmt::format("{:.6g} {}", c.recorded_value, c.recorded_unit)
             : fmt::format("{} {}", c.recorded_value, c.recorded_unit),
         c.source == CeilingSource::kSpec ? "spec sheet" : c.benchmark + " " + c.metric});
  }
  std::string out = "Ceilings (measured unless marked spec)\n" + Table(rows);
  if (const Ceiling* main = report.ceilings.MainMemory()) {
    out += main->Label() + ": " + main->basis + "\n";
  }
  const std::vector<RidgePoint> ridges = RidgePoints(report.ceilings);
  if (!ridges.empty()) {
    out += "Ridge points (FLOP/byte):";
    for (const RidgePoint& r : ridges) {
      out += fmt::format(" {} / {} = {:.3g};", r.compute, r.memory, r.intensity);
    }
    out.back() = '\n';
  }
  if (!report.spec && !report.spec_note.empty()) out += "Spec: " + report.spec_note + "\n";
  return out;
}

std::string VerdictSection(const Report& report) {
  if (!report.analysis) return "";
  const Analysis& a = *report.analysis;
  std::vector<std::vector<std::string>> rows = {{"#", "point", "dtype", "FLOPs", "bytes", "FLOP/B",
                                                 "time", "achieved", "attainable", "bound",
                                                 "of roof", "headroom"}};
  for (size_t i = 0; i < a.verdicts.size(); ++i) {
    const PointVerdict& v = a.verdicts[i];
    std::string bound = std::string(BoundName(v.bound));
    if (!v.bound_scope.empty() && v.bound != Bound::kCompute) bound += " " + v.bound_scope;
    if (!v.tied.empty()) bound += " (= " + fmt::format("{}", fmt::join(v.tied, ", ")) + ")";
    if (v.unstable) bound = fmt::format("unstable ({}?)", bound);
    rows.push_back({std::to_string(i + 1), v.point.name, v.point.dtype,
                    fmt::format("{:.4g}", v.point.flops), fmt::format("{:.4g}", v.point.bytes),
                    OrDash(v.intensity, Intensity), OrDash(v.point.time_seconds, FormatSeconds),
                    OrDash(v.achieved_flops, FormatFlops), OrDash(v.attainable_flops, FormatFlops),
                    bound, OrDash(v.fraction_of_roof, Percent),
                    OrDash(v.headroom_seconds, FormatSeconds)});
  }
  std::string out = "Verdicts: t >= max(F/P, B/BW_mem, H/BW_host, C/BW_net)\n" + Table(rows);
  for (size_t i = 0; i < a.verdicts.size(); ++i) {
    for (const std::string& note : a.verdicts[i].notes) {
      out += fmt::format("  note {}: {}\n", i + 1, note);
    }
    if (a.verdicts[i].unstable)
      out += fmt::format("  unstable {}: {}\n", i + 1, *a.verdicts[i].unstable);
  }
  out += fmt::format("Summary: {} measured", FormatSeconds(a.measured_seconds));
  if (a.untimed_points > 0) out += fmt::format(" ({} points without a time)", a.untimed_points);
  out += fmt::format(
      ", headroom {} ({} if every point reached its roof)\n", FormatSeconds(a.headroom_seconds),
      a.measured_seconds > 0 ? Percent(a.headroom_seconds / a.measured_seconds) : std::string("-"));
  for (const BoundSummary& s : a.by_bound) {
    out += fmt::format("  {:<9}  {} point(s)  {} measured ({})  headroom {}\n", BoundName(s.bound),
                       s.points, FormatSeconds(s.measured_seconds),
                       a.measured_seconds > 0 ? Percent(s.measured_seconds / a.measured_seconds)
                                              : std::string("-"),
                       FormatSeconds(s.headroom_seconds));
  }
  return out;
}

std::string AdviceSection(const Report& report) {
  if (!report.analysis) return "";
  if (report.advice.empty()) return "Advice: no rule applies.\n";
  std::string out = "Advice\n";
  for (size_t i = 0; i < report.advice.size(); ++i) {
    const Advice& a = report.advice[i];
    out += fmt::format("{}. [{}] {}: {}\n   why:  {}\n   gain: {}\n", i + 1, a.rule, a.point,
                       a.advice, a.reason, a.expected_gain);
  }
  return out;
}

// A coarse roofline: '-' compute roofs, '/' bandwidth roofs, points as their number (or the
// bound's letter past 9).
std::string AsciiRoofline(const Report& report) {
  constexpr int kCols = 64, kRows = 16;
  double top = 0;
  for (const Ceiling& c : report.ceilings.all) {
    if (c.kind == CeilingKind::kCompute && c.source == CeilingSource::kMeasured) {
      top = std::max(top, c.value);
    }
  }
  const std::vector<RidgePoint> ridges = RidgePoints(report.ceilings);
  if (top <= 0 || ridges.empty()) return "";
  double x_lo = std::floor(std::log10(ridges.front().intensity)) - 1;
  for (const RidgePoint& r : ridges) x_lo = std::min(x_lo, std::floor(std::log10(r.intensity)) - 1);
  const double x_hi = x_lo + 5;
  const double y_hi = std::ceil(std::log10(top * 1.5));
  const double y_lo = y_hi - 4;
  std::vector<std::string> grid(kRows, std::string(kCols, ' '));
  auto row_of = [&](double flops) {
    return static_cast<int>(std::lround((y_hi - std::log10(flops)) / (y_hi - y_lo) * (kRows - 1)));
  };
  auto x_of = [&](int col) { return std::pow(10.0, x_lo + (x_hi - x_lo) * col / (kCols - 1)); };
  for (int col = 0; col < kCols; ++col) {
    const double x = x_of(col);
    for (const Ceiling& c : report.ceilings.all) {
      if (c.source != CeilingSource::kMeasured) continue;
      const double y = c.kind == CeilingKind::kCompute ? c.value : std::min(top, c.value * x);
      const int row = row_of(y);
      if (row < 0 || row >= kRows) continue;
      char& cell = grid[row][col];
      if (cell == ' ') cell = c.kind == CeilingKind::kCompute || y >= top ? '-' : '/';
    }
  }
  if (report.analysis) {
    for (size_t i = 0; i < report.analysis->verdicts.size(); ++i) {
      const auto p = PlotPositionOf(report.analysis->verdicts[i]);
      if (!p) continue;
      const int col = static_cast<int>(
          std::lround((std::log10(p->intensity) - x_lo) / (x_hi - x_lo) * (kCols - 1)));
      const int row = row_of(p->flops_per_second);
      if (col < 0 || col >= kCols || row < 0 || row >= kRows) continue;
      grid[row][col] = i < 9 ? static_cast<char>('1' + i)
                             : "CMHN"[static_cast<int>(report.analysis->verdicts[i].bound)];
    }
  }
  std::string out = "ASCII roofline (log-log; '-' compute, '/' bandwidth, digits = points)\n";
  for (int row = 0; row < kRows; ++row) {
    std::string label;
    if (row == 0) label = FormatFlops(std::pow(10.0, y_hi));
    if (row == kRows - 1) label = FormatFlops(std::pow(10.0, y_lo));
    out += fmt::format("{:>15} |{}\n", label, grid[row]);
  }
  out += fmt::format("{:>15} +{}\n", "", std::string(kCols, '-'));
  out += fmt::format("{:>15}  {:<{}}{:>}  FLOP/B\n", "", fmt::format("{:g}", std::pow(10.0, x_lo)),
                     kCols - 8, fmt::format("{:g}", std::pow(10.0, x_hi)));
  return out;
}

}  // namespace

std::string RenderText(const Report& report) {
  std::string out = RunLine(report) + "\n" + CeilingsSection(report);
  if (report.analysis && !report.analysis->verdicts.empty()) {
    out += "\n" + VerdictSection(report) + "\n" + AdviceSection(report);
  } else {
    out += "\nNo points: " + NoPointsReason(report) + "\n";
  }
  const std::string ascii = AsciiRoofline(report);
  if (!ascii.empty()) out += "\n" + ascii;
  return out;
}

std::string RenderDiagnoseText(const Report& report) {
  return RunLine(report) + "\n" + VerdictSection(report) + "\n" + AdviceSection(report);
}

}  // namespace xpuperf::roofline
