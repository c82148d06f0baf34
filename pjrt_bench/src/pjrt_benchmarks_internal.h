// Internal: the PJRT benchmarks (one file each) and the checks they share.
#pragma once

#include <memory>
#include <string>

#include "pjrt_benchmark.h"
#include "pjrt_target.h"
#include "point_reader.h"
#include "xpuperf/bench/benchmark.h"

namespace xpuperf::pjrt_bench {

std::unique_ptr<bench::Benchmark> MakePjrtGemmBenchmark();
std::unique_ptr<bench::Benchmark> MakePjrtStreamBenchmark();
std::unique_ptr<bench::Benchmark> MakePjrtHostTransferBenchmark();
std::unique_ptr<bench::Benchmark> MakePjrtCollectivesBenchmark();
std::unique_ptr<bench::Benchmark> MakePjrtAttentionBenchmark();
std::unique_ptr<bench::Benchmark> MakePjrtDispatchBenchmark();

// kInvalidArgument when a point's host-side arrays would take more than half of this machine's
// memory (checked before anything is allocated).
Status CheckHostBytes(const std::string& benchmark, double bytes);

// The point's `device` (default 0), checked against the target's devices.
Result<int> DevicePosition(const PointReader& point, const PjrtTarget& target);

}  // namespace xpuperf::pjrt_bench
