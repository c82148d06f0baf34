// `xpuperf diag -r 1|2|3`: active diagnostics, as `dcgmi diag -r` runs them (docs/HEALTH.md,
// "Diagnostics"). Level 1 (seconds): deployment — backends, device nodes and their permissions,
// driver versions, the expected device count, and every health verdict. Level 2 (about a
// minute): level 1, a memory pattern test and a short performance gate (the quick suite's compute
// and memory benchmarks against the spec sheet, as `bench check` judges them). Level 3
// (--duration): level 2, then sustained memory and compute stress while the backends are watched
// every second, failing on new error counts, thermal slowdown or the power brake.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "xpuperf/telemetry/commands.h"

namespace xpuperf::diag {

struct DiagOptions {
  telemetry::CommonOptions common;
  int level = 1;                 // -r 1, 2 or 3
  double duration_seconds = 60;  // level 3's stress, [1, 86400]
  std::optional<int> expect;     // accelerators this node must have, [0, 4096]
  bool json = false;
  std::string out;            // result directory (diag.json, bench/); empty: results/diag-<run id>
  uint64_t memory_mib = 256;  // host memory tested per pattern pass, [1, 1048576]
  // --resume: the post-repair gate: once every test passes (and the run was not interrupted),
  // resume the Slurm node if xpuperf drained it (health --drain); never a node drained by others.
  bool resume = false;
  std::string node;  // Slurm's NodeName (default: the short host name)
  std::string scontrol = "scontrol";
};

// Exit 0 when no test fails, 1 when one does, 2 for a usage error; 128+signal when interrupted.
int RunDiag(const DiagOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::diag
