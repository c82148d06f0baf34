// What a collectives run reports: engine measurements (benchmark "collectives") and an
// nccl-tests-like table. Pure functions of the timed results, no MPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/collectives/collective.h"
#include "xpuperf/collectives/element_type.h"

namespace xpuperf::collectives {

// Below this size a collective is latency-bound: `<op>_latency` (us) is recorded; from it up the
// bandwidths `<op>_algbw` and `<op>_busbw` (GB/s, 1e9) are.
inline constexpr int64_t kBandwidthMinBytes = int64_t{64} << 10;

inline constexpr const char* kTimingSource =
    "MPI_Wtime around back-to-back operations after a barrier; sample time = max over ranks";

// One size of one collective as measured on rank 0.
struct CollectivePoint {
  // Who moved the data: "collectives" over MPI, "gpu_collectives" over NCCL (one GPU per rank).
  std::string benchmark = "collectives";
  std::string backend = "mpi";  // "mpi" or "nccl"
  std::string timing_source = kTimingSource;
  CollectiveOp op = CollectiveOp::kAllReduce;
  CollectiveShape shape;
  int ranks = 0;
  int hosts = 1;
  int iterations = 1;                         // operations per sample
  std::vector<double> seconds_per_operation;  // one per sample
  int64_t wrong = 0;
  CollectiveVariant variant;  // datatype, reduction, placement
};

// The point's measurements, each with the formula and the counts behind it. Parameters: op,
// bytes, size ("1 MiB"), count, ranks, hosts, dtype ("float"), redop (all_reduce and
// reduce_scatter only), in_place, wrong, backend.
std::vector<bench::Measurement> MakeMeasurements(const CollectivePoint& point);

// Median time per operation in seconds, algbw and busbw in bytes per second.
struct PointFigures {
  double seconds = 0;
  double algbw = 0;
  double busbw = 0;
};
PointFigures FiguresOf(const CollectivePoint& point);

// nccl-tests' table: size, count, type, op, redop, then time(us), algbw(GB/s), busbw(GB/s) and
// #wrong out of place and in place. A row holds one size of one collective; a placement that was
// not measured (nullptr: broadcast out of place over MPI) shows "n/a".
std::string TableHeader();
std::string TableRow(const CollectivePoint* out_of_place, const CollectivePoint* in_place);
// "# Avg bus bandwidth <op>: x GB/s (sizes >= 64 KiB)" per collective, as nccl-tests' footer.
std::string TableFooter(const std::vector<CollectivePoint>& points);

}  // namespace xpuperf::collectives
