// Name, component, description and default sweep of each gpu_* benchmark: shared by the CUDA
// implementations and by the placeholders a build without CUDA registers under the same names.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/bench/parameters.h"

namespace xpuperf::cuda_bench {

struct GpuBenchmarkInfo {
  std::string name;
  bench::Component component;
  std::string description;
  std::vector<nlohmann::json> default_sweep;
  // Its point parameters: the runner and the suite check resolve every point against them before
  // anything runs, with CUDA or without (a typo in a GPU suite fails on any machine).
  bench::ParameterSchema schema;
};

// Every gpu_* benchmark, in registration order.
const std::vector<GpuBenchmarkInfo>& GpuBenchmarkInfos();
// The entry of `name`; aborts for a name not in the table (a programming error).
const GpuBenchmarkInfo& GpuBenchmarkInfoFor(const std::string& name);

// A benchmark that cannot run anywhere: CanRun is kUnsupported with `reason`.
std::unique_ptr<bench::Benchmark> MakeUnavailableBenchmark(const GpuBenchmarkInfo& info,
                                                           std::string reason);

}  // namespace xpuperf::cuda_bench
