// stream: STREAM copy/scale/add/triad on pinned OpenMP threads with first-touch placement.
#pragma once

#include <memory>

#include "xpuperf/bench/benchmark.h"

namespace xpuperf::bench {

std::unique_ptr<Benchmark> MakeStreamBenchmark();

// STREAM's rule: each array at least 4x the sum of all caches (every level, every instance),
// and at least 16 MiB. Bytes.
uint64_t StreamArrayBytesFor(const Topology& topology);

}  // namespace xpuperf::bench
