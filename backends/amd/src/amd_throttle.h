// Internal to the AMD backend: clock_event_active from gpu_metrics. Table 1.3 carries the
// ASIC-independent throttler bits (amdgpu_smu.h SMU_THROTTLER_*); 1.6 carries residency counters,
// a reason being active when its residency grew since the previous sample. Other revisions have
// only ASIC-specific bits, which are not decoded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "amd_gpu.h"
#include "xpuperf/core/sample.h"

namespace xpuperf::amd {

// Names of the ASIC-independent throttler bits set or known in `bits`: (reason, active).
std::vector<std::pair<std::string, bool>> DecodeIndependentThrottle(uint64_t bits);

Reading ThrottleReasons(AmdGpu& gpu, int64_t wall_ns);

}  // namespace xpuperf::amd
