// Physical consistency of one run's figures: checks that hold on every machine, so a figure that
// breaks one was measured wrong (a busy machine, cores shared underneath, a bad clock). A broken
// check marks the figures involved unstable with the reason; it never passes silently.
//
//   peak order   the fp32 peak is at least the fp64 peak of the same device and ISA (every CPU and
//                GPU runs fp32 at least as fast as fp64)
//   GEMM bound   a CPU GEMM is at most 105% of its precision's peak (the peak kernel runs the
//                widest instruction the GEMM can use; GPU GEMMs use tensor cores the FMA peak does
//                not, so they are not bound by it)
//   nominal      a bandwidth is at most 105%, a compute rate at most 110%, of its nominal (the
//                compute nominal's clock is a reported one, which turbo can exceed a little)
#pragma once

#include <string>
#include <vector>

#include "xpuperf/bench/benchmark.h"

namespace xpuperf::bench {

inline constexpr double kGemmAbovePeakTolerance = 1.05;
inline constexpr double kBandwidthAboveNominalTolerance = 1.05;
inline constexpr double kComputeAboveNominalTolerance = 1.10;

// Marks the measurements that break a check (MarkUnstable) and returns one sentence per broken
// check, for the run's warnings.
std::vector<std::string> CheckConsistency(std::vector<Measurement>& measurements);

}  // namespace xpuperf::bench
