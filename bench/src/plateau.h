// Cache-level plateaus in a working-set sweep of read bandwidth, named from the topology's cache
// sizes rather than by order (order naming mislabels levels, as ERT's does).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "xpuperf/core/device.h"

namespace xpuperf::bench {

struct SweepPoint {
  uint64_t working_set_bytes = 0;
  double bandwidth = 0;  // any unit; plateaus keep it
};

struct Plateau {
  size_t first = 0;  // index of the first and last sweep point in the plateau
  size_t last = 0;
  uint64_t min_bytes = 0;  // working sets spanned
  uint64_t max_bytes = 0;
  double median_bandwidth = 0;
  std::string level;  // "L1", "L2", "L3", "DRAM" once named
};

struct PlateauOptions {
  double tolerance = 0.05;  // a point within +-5% of the running median joins the plateau
  int min_points = 3;       // shorter runs are transitions between levels
};

// Splits a sweep sorted by working set into runs whose points stay within tolerance of the run's
// median; runs of at least min_points points are plateaus, in sweep order.
std::vector<Plateau> FindPlateaus(std::span<const SweepPoint> sweep, const PlateauOptions& options);

// The memory level that holds a working set: the smallest data or unified cache (per instance)
// of at least `bytes`, as "L<level>", or "DRAM" beyond the last level.
std::string LevelHolding(uint64_t bytes, const Topology& topology);

// Names each plateau by the level holding the geometric middle of its working-set span, so a
// plateau's edge points, which straddle a cache boundary, do not decide its name.
void NamePlateaus(std::vector<Plateau>& plateaus, const Topology& topology);

}  // namespace xpuperf::bench
