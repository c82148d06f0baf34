// Internal to the NVIDIA backend: GPM (GPU performance monitoring, Hopper and newer) metrics from
// two samples at least 100 ms apart, NVIDIA's documented procedure.
#pragma once

#include <cstdint>
#include <vector>

#include "nvidia_gpu.h"
#include "nvml_library.h"

namespace xpuperf::nvidia {

inline constexpr int64_t kGpmMinimumIntervalNs = 100'000'000;

// The GPM metric ids xpuperf asks for.
const std::vector<unsigned>& GpmMetricIds();

// At open: decides whether the GPU supports GPM (with the reason when not), allocates its two
// samples and takes the first at `now_ns` (monotonic).
void StartGpm(const NvmlLibrary& library, Gpu& gpu, int64_t now_ns);

// Once per Collect: when at least kGpmMinimumIntervalNs passed since the newer sample, takes a new
// one and fills gpu.gpm_values from the pair (the new sample becomes the newer); otherwise leaves
// gpu.gpm_values empty and says why in gpu.gpm_no_data.
void RefreshGpm(const NvmlLibrary& library, Gpu& gpu, int64_t now_ns);

// Frees the samples.
void StopGpm(const NvmlLibrary& library, Gpu& gpu);

}  // namespace xpuperf::nvidia
