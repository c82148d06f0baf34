#include "xpuperf/collectives/network_report.h"

#include <fmt/format.h>

#include <map>

#include "xpuperf/bench/statistics.h"
#include "xpuperf/collectives/size_sweep.h"

namespace xpuperf::collectives {
namespace {

bench::Measurement BaseMeasurement(const CollectivePoint& point, const std::string& metric) {
  bench::Measurement m;
  m.benchmark = point.benchmark;
  m.metric = std::string(CollectiveName(point.op)) + "_" + metric;
  m.sample_seconds = point.seconds_per_operation;
  m.statistics = bench::ComputeStatistics(point.seconds_per_operation);
  m.repetitions_per_sample = point.iterations;
  m.timing_source = point.timing_source;
  // size: the bytes in binary units, as the summary table shows them.
  m.parameters = {{"op", CollectiveName(point.op)},
                  {"bytes", point.shape.bytes},
                  {"size", FormatByteSize(point.shape.bytes)},
                  {"count", point.shape.count},
                  {"ranks", point.ranks},
                  {"hosts", point.hosts},
                  {"dtype", DataTypeName(point.variant.dtype)},
                  {"in_place", point.variant.in_place},
                  {"wrong", point.wrong},
                  {"backend", point.backend}};
  if (Reduces(point.op)) m.parameters["redop"] = ReduceOpName(point.variant.redop);
  return m;
}

}  // namespace

PointFigures FiguresOf(const CollectivePoint& point) {
  PointFigures figures;
  figures.seconds = bench::ComputeStatistics(point.seconds_per_operation).median;
  figures.algbw = AlgorithmBandwidth(static_cast<double>(point.shape.bytes), figures.seconds);
  figures.busbw = figures.algbw * BusBandwidthFactor(point.op, point.ranks);
  return figures;
}

std::vector<bench::Measurement> MakeMeasurements(const CollectivePoint& point) {
  const PointFigures figures = FiguresOf(point);
  const double bytes = static_cast<double>(point.shape.bytes);
  const double factor = BusBandwidthFactor(point.op, point.ranks);
  const std::string op(CollectiveName(point.op));
  std::vector<bench::Measurement> out;
  if (point.shape.bytes < kBandwidthMinBytes) {
    bench::Measurement m = BaseMeasurement(point, "latency");
    m.value = figures.seconds * 1e6;
    m.unit = "us";
    m.bytes_per_repetition = bytes;
    m.formula = fmt::format(
        "latency = median over samples of (max over {} ranks of the time of "
        "{} back-to-back {} of {} bytes) / {} x 1e6 us",
        point.ranks, point.iterations, op, point.shape.bytes, point.iterations);
    out.push_back(std::move(m));
    return out;
  }
  bench::Measurement alg = BaseMeasurement(point, "algbw");
  alg.value = figures.algbw / 1e9;
  alg.unit = "GB/s";
  alg.bytes_per_repetition = bytes;
  alg.formula = fmt::format(
      "algbw = S / t = {} bytes / median {:.6g} s per operation / 1e9 "
      "(S as nccl-tests counts it for {})",
      point.shape.bytes, figures.seconds, op);
  out.push_back(std::move(alg));
  bench::Measurement bus = BaseMeasurement(point, "busbw");
  bus.value = figures.busbw / 1e9;
  bus.unit = "GB/s";
  bus.bytes_per_repetition = bytes * factor;
  bus.formula = fmt::format(
      "busbw = algbw x {:.6g} ({} factor for n = {} ranks) = {} bytes x "
      "{:.6g} / median {:.6g} s per operation / 1e9",
      factor,
      point.op == CollectiveOp::kAllReduce ? "2(n-1)/n"
      : factor == 1                        ? "1"
                                           : "(n-1)/n",
      point.ranks, point.shape.bytes, factor, figures.seconds);
  out.push_back(std::move(bus));
  return out;
}

std::string TableHeader() {
  // The group names centred over their four columns (2 + 11 + 1 + 12 + 1 + 12 + 1 + 8 = 48
  // characters each, after the 58 of size .. redop).
  std::string groups = fmt::format("#{:57}{:^48}{:^48}", "", "out-of-place", "in-place");
  groups.erase(groups.find_last_not_of(' ') + 1);
  return groups + fmt::format(
                      "\n#{:>12} {:>12} {:>8} {:>15} {:>6}  {:>11} {:>12} {:>12} {:>8}  {:>11} "
                      "{:>12} {:>12} "
                      "{:>8}\n",
                      "size", "count", "type", "op", "redop", "time(us)", "algbw(GB/s)",
                      "busbw(GB/s)", "#wrong", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong");
}

namespace {

std::string Placement(const CollectivePoint* point) {
  if (point == nullptr) {
    return fmt::format("  {:>11} {:>12} {:>12} {:>8}", "n/a", "n/a", "n/a", "n/a");
  }
  const PointFigures figures = FiguresOf(*point);
  return fmt::format("  {:>11.2f} {:>12.3f} {:>12.3f} {:>8}", figures.seconds * 1e6,
                     figures.algbw / 1e9, figures.busbw / 1e9, point->wrong);
}

}  // namespace

std::string TableRow(const CollectivePoint* out_of_place, const CollectivePoint* in_place) {
  const CollectivePoint& any = out_of_place != nullptr ? *out_of_place : *in_place;
  return fmt::format(" {:>12} {:>12} {:>8} {:>15} {:>6}{}{}\n", any.shape.bytes, any.shape.count,
                     DataTypeName(any.variant.dtype), CollectiveName(any.op),
                     Reduces(any.op) ? ReduceOpName(any.variant.redop) : "none",
                     Placement(out_of_place), Placement(in_place));
}

std::string TableFooter(const std::vector<CollectivePoint>& points) {
  std::map<CollectiveOp, std::pair<double, int>> sums;
  for (const CollectivePoint& point : points) {
    if (point.shape.bytes < kBandwidthMinBytes) continue;
    auto& [sum, n] = sums[point.op];
    sum += FiguresOf(point).busbw / 1e9;
    ++n;
  }
  std::string footer;
  for (const auto& [op, sum_n] : sums) {
    footer += fmt::format(
        "# Avg bus bandwidth {:<15}: {:.3f} GB/s (over {} figures >= 64 KiB, "
        "out of place and in place)\n",
        CollectiveName(op), sum_n.first / sum_n.second, sum_n.second);
  }
  return footer;
}

}  // namespace xpuperf::collectives
