// Internal: the PJRT benchmarks (one file each) and the checks they share.
#pragma once

#include <memory>
#include <string>

#include "pjrt_benchmark.h"
#include "pjrt_target.h"
#include "xpuperf/bench/benchmark.h"
#include "xpuperf/bench/parameters.h"

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

// The keys every PJRT point may carry besides its own, for each benchmark's parameter_schema():
// the plugin (a path or a kind; absent: the run's) and the device's position (checked against
// the plugin's devices when it is loaded, DevicePosition).
std::vector<bench::ParameterSpec> TargetParameters(bool device = true);

// The values of a point parameter_schema() resolved (every default filled in): the runner and
// ValidateSuite check each point against the schema before anything runs, so these only read.
int64_t IntegerOf(const nlohmann::json& point, const char* key, int64_t absent = 0);
std::string TextOf(const nlohmann::json& point, const char* key);
bool FlagOf(const nlohmann::json& point, const char* key);

// The point's `device` (default 0), checked against the target's devices.
Result<int> DevicePosition(const std::string& benchmark, const nlohmann::json& point,
                           const PjrtTarget& target);

}  // namespace xpuperf::pjrt_bench
