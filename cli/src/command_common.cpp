#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "xpuperf/cli/commands.h"

namespace xpuperf::cli {

int ExitCodeFor(const Error& error) {
  switch (error.code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kNotFound:
      return kExitUsage;
    default:
      return kExitFailure;
  }
}

std::atomic<bool>& StopRequested() {
  static std::atomic<bool> stop{false};
  return stop;
}

bool SleepUnlessStopped(double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(seconds));
  while (!StopRequested().load()) {
    const auto now = Clock::now();
    if (now >= deadline) return true;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(deadline - now, std::chrono::milliseconds(50)));
  }
  return false;
}

Status ValidateRate(double seconds, std::string_view option) {
  if (!std::isfinite(seconds) || seconds < 0.05 || seconds > 3600) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{} must be between 0.05 and 3600 seconds (got {})", option, seconds));
  }
  return Status::Ok();
}

}  // namespace xpuperf::cli
