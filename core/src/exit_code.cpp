#include "xpuperf/core/exit_code.h"

#include <fmt/format.h>

#include <cmath>

#include "xpuperf/core/cancellation.h"

namespace xpuperf {

int ExitCodeFor(const Error& error) {
  // Whatever error a stopped loop returned, a cancellation exits 128 + signal.
  if (CancellationRequested()) return CancellationExitCode();
  switch (error.code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kNotFound:
      return kExitUsage;
    default:
      return kExitFailure;
  }
}

Status ValidateCount(const std::optional<int>& count) {
  if (count && (*count < 1 || *count > 1000000000)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("--count must be between 1 and 1000000000 (got {}; omit it to run "
                                 "until interrupted)",
                                 *count));
  }
  return Status::Ok();
}

Status ValidateRate(double seconds, std::string_view option) {
  if (!std::isfinite(seconds) || seconds < 0.05 || seconds > 3600) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{} must be between 0.05 and 3600 seconds (got {})", option, seconds));
  }
  return Status::Ok();
}

}  // namespace xpuperf
