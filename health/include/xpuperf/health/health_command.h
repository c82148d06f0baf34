// `xpuperf health`: one verdict per device and subsystem from one snapshot of every backend, the
// PCIe links in sysfs and the kernel log's XIDs (docs/HEALTH.md). cli/app/health_command.cpp binds
// the command line into HealthCommandOptions.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/telemetry/commands.h"

namespace xpuperf::health {

struct HealthCommandOptions {
  telemetry::CommonOptions common;
  std::vector<std::string> devices;  // --device: only these (empty: every device)
  std::optional<int> expect;         // --expect N accelerators, [0, 4096]
  bool json = false;
  double window_seconds = 0.5;  // the span the snapshot's rates (duty cycle) are measured over
};

// Exit 0 when no verdict fails (warnings and unknowns included), 1 when one does, 2 for a usage
// error; an error reading the backends is 1 with its message.
int RunHealth(const HealthCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::health
