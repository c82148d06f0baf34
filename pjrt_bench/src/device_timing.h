// Internal: device time of a benchmark's executions from the plugin's own profiler (its
// PJRT profiler extension, pjrt/profiler.h), next to the host's wall clock. The profiler runs
// across the whole sampling; the device plane of the measured device (`/device:TPU:N`,
// `/device:GPU:N`, N = the device's local hardware id, else its position) holds one `XLA Modules`
// event per execution, and the last `samples` of them are the kept samples (calibration and
// warm-up executions come first).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/pjrt/profiler.h"

namespace xpuperf::pjrt_bench {

struct DeviceTiming {
  std::vector<double> seconds_per_rep;  // one per kept sample; empty when not measured
  std::string note;                     // why not measured ("unsupported: ..."), else empty
};

// Parses a profiler's XSpace (trace/xplane.h), retrying without a trailing zero byte (see
// pjrt::PluginProfiler::CollectXSpace), and returns the durations in seconds of the `XLA
// Modules` events of device plane `device_ordinal`, in start order.
Result<std::vector<double>> ModuleSecondsFromXSpace(std::string_view xspace, int device_ordinal);

// The last `samples` module durations divided by `repetitions`; a note when there are fewer
// executions than samples in the profile.
DeviceTiming DeviceTimingFromModules(const std::vector<double>& module_seconds, size_t samples,
                                     int64_t repetitions);

}  // namespace xpuperf::pjrt_bench
