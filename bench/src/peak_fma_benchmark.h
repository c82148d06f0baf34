// peak_fma: the FMA-chain kernels on every pinned thread, verified, against the nominal peak.
#pragma once

#include <memory>
#include <string>

#include "xpuperf/bench/benchmark.h"

namespace xpuperf::bench {

// root: the system root for /proc/cpuinfo and cpufreq ("/" on a live system).
std::unique_ptr<Benchmark> MakePeakFmaBenchmark(std::string root);

}  // namespace xpuperf::bench
