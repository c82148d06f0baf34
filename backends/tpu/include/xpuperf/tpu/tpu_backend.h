// The TPU backend: chips from PCI sysfs, metrics from the libtpu runtime metric service (gRPC).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/core/backend.h"

namespace xpuperf::tpu {

// libtpu's monitoring SDK, read by a Python helper process (docs/METRICS.md, "libtpu's monitoring
// SDK").
struct TpuSdkOptions {
  // The interpreter that has libtpu; empty: $XPUPERF_TPU_SDK_PYTHON, else python3 from PATH.
  std::string python;
  double first_answer_seconds = 5;  // the longest any call waits for the helper
  double interval_seconds = 1;      // how often the helper reads every metric
  double restart_after_seconds = 60;
};

// The SDK options the environment asks for: nullopt when XPUPERF_TPU_SDK=off; the deadline from
// XPUPERF_TPU_SDK_DEADLINE (seconds) when set.
std::optional<TpuSdkOptions> SdkOptionsFromEnvironment();

struct TpuBackendConfig {
  // Ports of the runtime metric services to read; empty means TPU_RUNTIME_METRICS_PORTS, or 8431
  // when that is unset.
  std::vector<int> ports;
  std::string host = "localhost";
  // Per RPC. Short, so a hung runtime cannot stall `xpuperf top`.
  std::chrono::milliseconds deadline{1000};
  // nullopt: the SDK is not read (its metrics say so).
  std::optional<TpuSdkOptions> sdk;
};

// Opens the backend (see docs/METRICS.md, TPU section, for what it reports):
// - no chip in sysfs and no runtime serving -> kUnavailable "no TPU found: ..." (followed by the
//   ports no runtime answered on when options.explicitly_requested);
// - chips but no runtime -> kUnavailable when options.explicitly_requested, otherwise a backend
//   with the chips whose runtime metrics are kUnsupported with the reason (rechecked each Collect);
// - a runtime but no chip in sysfs (containers without /sys, the fake server in tests) -> devices
//   from the runtime's answers.
Result<std::unique_ptr<Backend>> CreateTpuBackend(const BackendOptions& options);
Result<std::unique_ptr<Backend>> CreateTpuBackend(const BackendOptions& options,
                                                  const TpuBackendConfig& config);

void RegisterTpuBackend(BackendRegistry& registry);

}  // namespace xpuperf::tpu
