// The one place benchmarks are registered: adding one is a new file and a line here.
#include "attention_benchmark.h"
#include "cache_sweep_benchmark.h"
#include "gemm_benchmark.h"
#include "host_transfer_benchmark.h"
#include "peak_fma_benchmark.h"
#include "stream_benchmark.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/collectives/network_benchmark.h"
#if XPUPERF_HAVE_GPU_BENCHMARKS
#include "xpuperf/cuda_bench/cuda_benchmarks.h"
#endif

namespace xpuperf::bench {

BenchmarkRegistry MakeBuiltinRegistry() {
  BenchmarkRegistry registry;
  registry.Add(MakePeakFmaBenchmark("/"));
  registry.Add(MakeGemmBenchmark("/"));
  registry.Add(MakeStreamBenchmark());
  registry.Add(MakeCacheSweepBenchmark("/"));
  registry.Add(MakeCpuHostTransferBenchmark("/"));
  registry.Add(MakeAttentionBenchmark());
  registry.Add(collectives::MakeCollectivesBenchmark());
#if XPUPERF_HAVE_GPU_BENCHMARKS
  cuda_bench::AddCudaBenchmarks(registry);  // gpu_*: "built without CUDA" when CUDA is off
#endif
  return registry;
}

}  // namespace xpuperf::bench
