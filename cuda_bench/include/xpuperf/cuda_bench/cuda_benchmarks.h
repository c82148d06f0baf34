// The GPU benchmarks (gpu_peak_fma, gpu_gemm, gpu_stream, gpu_l2_sweep, gpu_host_transfer,
// gpu_collectives, gpu_attention) and the CUDA devices they run on. Every function here exists in
// every build: without CUDA the benchmarks are registered under the same names and report
// "unsupported: built without CUDA", and ListCudaDevices is empty.
#pragma once

#include <vector>

#include "xpuperf/bench/registry.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"

namespace xpuperf::cuda_bench {

// True when the CUDA code was compiled in.
bool BuiltWithCuda();

// Ok when a CUDA driver and at least one device are present; otherwise kUnsupported with
// "unsupported: built without CUDA", "unsupported: no CUDA driver", "unsupported: no CUDA device"
// or "unsupported: <the CUDA runtime's message>". Queried once per process.
Status CudaAvailability();

// The CUDA devices in runtime order: backend "nvidia", id "nvidia<i>", index i, model, UUID, PCI
// bus id, memory, the L2 cache and features {"sm_90", "multiprocessors=132"}. Empty when
// CudaAvailability() is not ok.
std::vector<Device> ListCudaDevices();

// Adds every gpu_* benchmark to registry.
void AddCudaBenchmarks(bench::BenchmarkRegistry& registry);

}  // namespace xpuperf::cuda_bench
