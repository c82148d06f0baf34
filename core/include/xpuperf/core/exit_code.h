// The exit codes of every command's entry point (the components that own a command return them),
// and the checks of the options the long-running commands share.
#pragma once

#include <optional>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
// A gate (bench check, compare --fail-on-regression) had nothing to judge: no record, no metric in
// common. Distinct from 1 (a regression or a failed check) so CI can tell "nothing ran" apart.
inline constexpr int kExitNothingToJudge = 3;

// Maps an SDK error to an exit code: unknown names and bad arguments are usage errors; after a
// SIGINT/SIGTERM, whatever the error, 128 + the signal (core/cancellation.h).
int ExitCodeFor(const Error& error);

// Checks --count: unset, or within [1, 1e9] ("stop after N": 0 would never stop).
Status ValidateCount(const std::optional<int>& count);
// Checks a refresh period in seconds: finite and within [0.05, 3600].
Status ValidateRate(double seconds, std::string_view option);

}  // namespace xpuperf
