// The CPU backend: the host's processors and memory, from procfs/sysfs, powercap, hwmon,
// perf_event_open and hwloc. Works everywhere; each missing source is reported with its reason.
#pragma once

#include <memory>

#include "xpuperf/core/backend.h"

namespace xpuperf::cpu {

Result<std::unique_ptr<Backend>> CreateCpuBackend(const BackendOptions& options);
void RegisterCpuBackend(BackendRegistry& registry);

}  // namespace xpuperf::cpu
