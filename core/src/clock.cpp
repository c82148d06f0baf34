#include "xpuperf/core/clock.h"

#include <ctime>

namespace xpuperf {
namespace {
int64_t Read(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

int64_t SystemClock::MonotonicNs() const { return Read(CLOCK_MONOTONIC); }
int64_t SystemClock::WallNs() const { return Read(CLOCK_REALTIME); }

const SystemClock& SystemClock::Instance() {
  static const SystemClock clock;
  return clock;
}

}  // namespace xpuperf
