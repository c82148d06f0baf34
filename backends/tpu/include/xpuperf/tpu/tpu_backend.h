// The TPU backend: chips from PCI sysfs, metrics from the libtpu runtime metric service (gRPC).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "xpuperf/core/backend.h"

namespace xpuperf::tpu {

struct TpuBackendConfig {
  // Ports of the runtime metric services to read; empty means TPU_RUNTIME_METRICS_PORTS, or 8431
  // when that is unset.
  std::vector<int> ports;
  std::string host = "localhost";
  // Per RPC. Short, so a hung runtime cannot stall `xpuperf top`.
  std::chrono::milliseconds deadline{1000};
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
