// The CPU benchmarks of this library, added in one place: adding one is a new file and a line here.
// The registry of every benchmark (GPU and network too) is assembled outside, in
// builtin_benchmarks/.
#include "attention.h"
#include "cache_sweep_benchmark.h"
#include "gemm_benchmark.h"
#include "host_transfer_benchmark.h"
#include "peak_fma_benchmark.h"
#include "stream_benchmark.h"
#include "xpuperf/bench/registry.h"

namespace xpuperf::bench {

void AddCpuBenchmarks(BenchmarkRegistry& registry) {
  registry.Add(MakePeakFmaBenchmark("/"));
  registry.Add(MakeGemmBenchmark("/"));
  registry.Add(MakeStreamBenchmark());
  registry.Add(MakeCacheSweepBenchmark("/"));
  registry.Add(MakeCpuHostTransferBenchmark("/"));
  registry.Add(MakeAttentionBenchmark());
}

}  // namespace xpuperf::bench
