#include "xpuperf/tracer/detail/ticks.h"

#include <ctime>
#include <mutex>
#include <thread>

namespace xpuperf::tracer::detail {
namespace {

int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct Pair {
  uint64_t ticks;
  int64_t ns;
};

// A tick reading and the CLOCK_MONOTONIC time it was taken at: the middle of the tightest of a
// few bracketing clock reads, so a preemption during one attempt does not skew the pair.
Pair ReadPair() {
  Pair best{};
  int64_t best_gap = INT64_MAX;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int64_t before = MonotonicNs();
    const uint64_t ticks = NowTicks();
    const int64_t after = MonotonicNs();
    if (after - before < best_gap) {
      best_gap = after - before;
      best = {ticks, before + (after - before) / 2};
    }
  }
  return best;
}

constexpr int64_t kMinCalibrationNs = 10'000'000;

}  // namespace

double MeasureNsPerTick() {
#if !defined(__x86_64__) && !defined(__i386__) && !defined(__aarch64__)
  return 1.0;  // NowTicks() is CLOCK_MONOTONIC in ns
#else
  static std::mutex mutex;
  static Pair first{};
  static bool have_first = false;
  std::lock_guard lock(mutex);
  if (!have_first) {
    first = ReadPair();
    have_first = true;
  }
  Pair now = ReadPair();
  if (now.ns - first.ns < kMinCalibrationNs) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(kMinCalibrationNs - (now.ns - first.ns)));
    now = ReadPair();
  }
  return static_cast<double>(now.ns - first.ns) / static_cast<double>(now.ticks - first.ticks);
#endif
}

const char* TickSourceName() {
#if defined(__x86_64__) || defined(__i386__)
  return "tsc";
#elif defined(__aarch64__)
  return "cntvct";
#else
  return "CLOCK_MONOTONIC";
#endif
}

}  // namespace xpuperf::tracer::detail
