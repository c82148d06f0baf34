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
  // --deadline: the longest the backends may take to answer beyond the window (1..600 s). A device
  // call that hangs (a GPU that stopped answering hangs its driver's calls) ends health with that
  // message instead of a caller's kill: exit 1, or 2 ("unknown") with --npd.
  double deadline_seconds = 20;
  // Acting (docs/HEALTH.md, "Acting on a verdict"): nothing changes on the node without these.
  bool drain = false;   // --drain: drain the Slurm node on a failing verdict
  bool resume = false;  // --resume: resume a node xpuperf drained once all pass
  std::string node;     // --node: Slurm's NodeName (default: the short host name)
  std::string scontrol = "scontrol";
  bool npd = false;  // --npd: node-problem-detector's custom-plugin protocol
};

// Exit 0 when no verdict fails (warnings and unknowns included), 1 when one does, 2 for a usage
// error; an error reading the backends is 1 with its message. With --npd: one line of at most 80
// bytes on stdout and exit 0 (OK), 1 (a verdict fails) or 2 (unknown: health could not run), as
// node-problem-detector's custom plugins answer.
int RunHealth(const HealthCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::health
