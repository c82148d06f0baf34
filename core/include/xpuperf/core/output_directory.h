// The policy for a directory xpuperf creates to hold a run's files (bench result directories,
// and any other "--out DIR" that must not exist yet), next to the file policy of output_file.h.
// docs/POLICIES.md states it for users:
//   - The directory must not exist yet (a run never mixes its files with another's).
//   - Missing parents are allowed (the writer creates them, as `mkdir -p` does), relative to the
//     working directory for a relative path: "results/run-1" works where "results/" is missing.
//   - The nearest existing ancestor ("." for a relative path with none) must be a directory in
//     which xpuperf may create entries, probed by creating one (access(2) says yes to root on
//     read-only places).
// Every refusal names the real reason: it exists, an ancestor is not a directory, an ancestor is
// not writable, or the path cannot be examined (permission, a loop of links, a name too long).
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf {

// Checks, without creating anything that stays, that `path` can be created as a new directory.
// kInvalidArgument "cannot create PATH: REASON" on refusal ("it already exists" for anything
// there: a directory, a file, a link, dangling or not).
Status PrepareNewDirectory(const std::string& path);

}  // namespace xpuperf
