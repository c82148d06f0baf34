#include "xpuperf/builtin_benchmarks.h"

#include "xpuperf/collectives/network_benchmark.h"
#include "xpuperf/cuda_bench/cuda_benchmarks.h"
#include "xpuperf/pjrt_bench/pjrt_benchmarks.h"

namespace xpuperf {

bench::BenchmarkRegistry MakeBuiltinBenchmarkRegistry() {
  bench::BenchmarkRegistry registry;
  bench::AddCpuBenchmarks(registry);
  registry.Add(collectives::MakeCollectivesBenchmark());
  cuda_bench::AddCudaBenchmarks(registry);  // gpu_*: "built without CUDA" when CUDA is off
  pjrt_bench::AddPjrtBenchmarks(registry);  // pjrt_*: "no PJRT plugin found" without one
  return registry;
}

}  // namespace xpuperf
