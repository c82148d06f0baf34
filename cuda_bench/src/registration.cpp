// Registers the gpu_* benchmarks: the CUDA implementations, or placeholders with the same names
// when the CUDA code was not compiled in.
#include "gpu_benchmark_info.h"
#include "xpuperf/cuda_bench/cuda_benchmarks.h"

#if XPUPERF_HAVE_CUDA
#include "cuda/gpu_benchmarks.h"
#endif

namespace xpuperf::cuda_bench {

bool BuiltWithCuda() { return XPUPERF_HAVE_CUDA != 0; }

void AddCudaBenchmarks(bench::BenchmarkRegistry& registry) {
#if XPUPERF_HAVE_CUDA
  registry.Add(MakeGpuPeakFmaBenchmark());
  registry.Add(MakeGpuGemmBenchmark());
  registry.Add(MakeGpuStreamBenchmark());
  registry.Add(MakeGpuL2SweepBenchmark());
  registry.Add(MakeGpuHostTransferBenchmark());
  registry.Add(MakeGpuCollectivesBenchmark());
  registry.Add(MakeGpuAttentionBenchmark());
#else
  for (const GpuBenchmarkInfo& info : GpuBenchmarkInfos()) {
    registry.Add(MakeUnavailableBenchmark(info, "unsupported: built without CUDA"));
  }
#endif
}

#if !XPUPERF_HAVE_CUDA
Status CudaAvailability() {
  return MakeError(ErrorCode::kUnsupported, "unsupported: built without CUDA");
}

std::vector<Device> ListCudaDevices() { return {}; }
#endif

}  // namespace xpuperf::cuda_bench
