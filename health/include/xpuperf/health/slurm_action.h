// Acting through Slurm. `xpuperf health --drain [--resume]`, as a node's HealthCheckProgram
// (LBNL NHC's convention): a failing verdict whose action needs the node out of service drains it
// with xpuperf's reason; with --resume, a node xpuperf drained is resumed once every verdict
// passes again. `xpuperf diag -r N --resume`: the post-repair gate, resuming such a node once the
// diagnostic passes. Nodes drained by anyone else are never touched.
#pragma once

#include <iosfwd>
#include <string>

#include "xpuperf/core/status.h"
#include "xpuperf/health/verdict.h"

namespace xpuperf::health {

struct SlurmActionOptions {
  std::string node;                   // Slurm's NodeName; empty: this host's short name
  std::string scontrol = "scontrol";  // looked up in PATH
  bool resume = false;
  double timeout_seconds = 30;  // per scontrol call
};

// The node's state and reason as `scontrol show node -o` prints them.
struct SlurmNodeState {
  std::string state;   // "IDLE+DRAIN", "MIXED+DRAIN", "IDLE"
  std::string reason;  // without Slurm's " [user@time]" suffix; empty when none
  bool drained() const { return state.find("DRAIN") != std::string::npos; }
};
Result<SlurmNodeState> ParseSlurmNode(const std::string& show_node_output);

// The reason xpuperf drains with: "xpuperf: nvidia0 MEM_ROW_REMAP_FAILURE (replace_device); …",
// at most 200 characters; empty when no verdict asks for the node out of service (a fail whose
// action is reset_device, drain_node or replace_device).
std::string DrainReason(const HealthReport& report);

// Drains or resumes NODE as the verdicts say; each change, or why none, one line on `err`. A
// failed scontrol call is an error with its exit status and output.
// Resumes NODE when xpuperf drained it (its reason starts with "xpuperf:"); a node that is not
// drained, or drained by someone else, is left as it is. Says what it did, or why not, on `err`.
xpuperf::Status ResumeIfDrainedByXpuperf(const SlurmActionOptions& options, std::ostream& err);

xpuperf::Status ActOnSlurm(const HealthReport& report, const SlurmActionOptions& options,
                           std::ostream& err);

}  // namespace xpuperf::health
