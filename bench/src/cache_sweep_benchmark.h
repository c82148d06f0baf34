// cache_sweep: read bandwidth over working sets from a few KiB to >= 4x the last-level cache, with
// the plateaus found and named L1/L2/L3/DRAM from the topology's cache sizes.
#pragma once

#include <memory>
#include <string>

#include "xpuperf/bench/benchmark.h"

namespace xpuperf::bench {

std::unique_ptr<Benchmark> MakeCacheSweepBenchmark(std::string root);

}  // namespace xpuperf::bench
