// The one place benchmarks are registered: adding one is a new file and a line here.
#include "cache_sweep_benchmark.h"
#include "gemm_benchmark.h"
#include "peak_fma_benchmark.h"
#include "stream_benchmark.h"
#include "xpuperf/bench/registry.h"

namespace xpuperf::bench {

BenchmarkRegistry MakeBuiltinRegistry() {
  BenchmarkRegistry registry;
  registry.Add(MakePeakFmaBenchmark("/"));
  registry.Add(MakeGemmBenchmark("/"));
  registry.Add(MakeStreamBenchmark());
  registry.Add(MakeCacheSweepBenchmark("/"));
  return registry;
}

}  // namespace xpuperf::bench
