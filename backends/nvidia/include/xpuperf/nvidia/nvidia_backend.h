// The NVIDIA backend: GPUs and their telemetry through NVML (libnvidia-ml.so.1, opened with
// dlopen; see docs/METRICS.md, NVIDIA section, for what each metric reads).
#pragma once

#include <memory>
#include <string>

#include "xpuperf/core/backend.h"

namespace xpuperf::nvidia {

struct NvidiaBackendConfig {
  // The NVML library to open; empty means $XPUPERF_NVML_LIBRARY, else "libnvidia-ml.so.1".
  std::string library;
};

// Opens the backend, or kUnavailable with the reason: "libnvidia-ml.so.1 not found (<dlerror>)",
// "nvmlInit_v2 failed: ...", or "NVML reports no NVIDIA GPU". GPM metrics need two samples 100 ms
// apart on options.clock: the first is taken here, the second by a Collect at least 100 ms later.
Result<std::unique_ptr<Backend>> CreateNvidiaBackend(const BackendOptions& options);
Result<std::unique_ptr<Backend>> CreateNvidiaBackend(const BackendOptions& options,
                                                     const NvidiaBackendConfig& config);

void RegisterNvidiaBackend(BackendRegistry& registry);

}  // namespace xpuperf::nvidia
