// From what the backends read to verdicts: the rules of docs/HEALTH.md over one snapshot of
// readings (error counters, clock-event reasons, temperatures), the PCIe links in sysfs and the
// XID records of the kernel log.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "xpuperf/core/device.h"
#include "xpuperf/core/sample.h"
#include "xpuperf/core/session.h"
#include "xpuperf/health/kernel_log.h"
#include "xpuperf/health/verdict.h"

namespace xpuperf::health {

struct HealthInput {
  std::vector<Device> devices;
  std::vector<BackendStatus> backends;
  std::vector<Reading> readings;  // every metric of every device (one Collect)
  // The kernel log's driver records (XIDs), or why it could not be read.
  Result<std::vector<KernelEvent>> kernel_events = std::vector<KernelEvent>{};
};

struct HealthOptions {
  std::string root = "/";     // sysfs is read under it (recorded trees in tests)
  std::optional<int> expect;  // accelerators the node must have (GPUs, TPUs); unset: not judged
};

// One verdict per device and subsystem that applies to it (PCIe only for PCI devices, the
// interconnect only for accelerators), plus "node" verdicts (a device missing against --expect).
HealthReport EvaluateHealth(const HealthInput& input, const HealthOptions& options);

}  // namespace xpuperf::health
