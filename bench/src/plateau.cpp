#include "plateau.h"

#include <algorithm>
#include <cmath>

#include "xpuperf/bench/statistics.h"

namespace xpuperf::bench {
namespace {

double MedianOf(std::span<const SweepPoint> points) {
  std::vector<double> values;
  for (const SweepPoint& p : points) values.push_back(p.bandwidth);
  std::sort(values.begin(), values.end());
  return PercentileOfSorted(values, 50);
}

}  // namespace

std::vector<Plateau> FindPlateaus(std::span<const SweepPoint> sweep,
                                  const PlateauOptions& options) {
  std::vector<Plateau> plateaus;
  size_t start = 0;
  const auto close_run = [&](size_t end) {  // [start, end)
    if (end - start >= static_cast<size_t>(std::max(options.min_points, 1))) {
      const auto run = sweep.subspan(start, end - start);
      plateaus.push_back({start, end - 1, run.front().working_set_bytes,
                          run.back().working_set_bytes, MedianOf(run), ""});
    }
    start = end;
  };
  for (size_t i = 1; i < sweep.size(); ++i) {
    const double median = MedianOf(sweep.subspan(start, i - start));
    if (std::abs(sweep[i].bandwidth - median) > options.tolerance * median) close_run(i);
  }
  if (!sweep.empty()) close_run(sweep.size());
  return plateaus;
}

std::string LevelHolding(uint64_t bytes, const Topology& topology) {
  std::vector<CacheLevel> caches;
  for (const CacheLevel& cache : topology.caches) {
    if (cache.type != "instruction" && cache.size_bytes > 0) caches.push_back(cache);
  }
  std::sort(caches.begin(), caches.end(),
            [](const CacheLevel& a, const CacheLevel& b) { return a.size_bytes < b.size_bytes; });
  for (const CacheLevel& cache : caches) {
    if (bytes <= cache.size_bytes) return "L" + std::to_string(cache.level);
  }
  return "DRAM";
}

void NamePlateaus(std::vector<Plateau>& plateaus, const Topology& topology) {
  for (Plateau& plateau : plateaus) {
    const double middle =
        std::sqrt(static_cast<double>(plateau.min_bytes) * static_cast<double>(plateau.max_bytes));
    plateau.level = LevelHolding(static_cast<uint64_t>(middle), topology);
  }
}

}  // namespace xpuperf::bench
