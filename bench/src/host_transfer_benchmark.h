// host_transfer on the CPU: the generic benchmark (xpuperf/bench/host_transfer.h) with the CPU's
// engine (NUMA-placed buffers, mlock, memcpy).
#pragma once

#include <memory>
#include <string>

#include "xpuperf/bench/benchmark.h"

namespace xpuperf::bench {

std::unique_ptr<Benchmark> MakeCpuHostTransferBenchmark(std::string root);

}  // namespace xpuperf::bench
