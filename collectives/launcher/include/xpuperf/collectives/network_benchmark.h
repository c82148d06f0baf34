// The `collectives` entry of the benchmark registry. A suite runs in one process, so this
// benchmark starts `mpirun -np min(CPUs, 4) xpuperf bench network ...` on this host, lets the
// ranks write a result directory into a temporary folder and returns its measurements. It needs
// only the xpuperf executable and mpirun, not the MPI library, so the bench library stays free of
// MPI.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "xpuperf/bench/benchmark.h"

namespace xpuperf::collectives {

// Sweep point keys: ops ("all" or a comma-separated list), begin and end (bytes, K/M/G suffixes),
// factor, iters (operations per sample), warmup (operations). Samples come from the suite.
std::unique_ptr<bench::Benchmark> MakeCollectivesBenchmark();

}  // namespace xpuperf::collectives
