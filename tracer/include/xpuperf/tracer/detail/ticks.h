// The tracer's time source: the CPU's invariant time-stamp counter where there is one (x86-64
// RDTSC, AArch64 CNTVCT_EL0), else CLOCK_MONOTONIC in ns. Ticks become ns in the flusher with a
// rate measured against CLOCK_MONOTONIC (ticks.cpp), so the hot path only reads the counter.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <ctime>
#endif

namespace xpuperf::tracer::detail {

[[gnu::always_inline]] inline uint64_t NowTicks() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#elif defined(__aarch64__)
  uint64_t ticks;
  asm volatile("mrs %0, cntvct_el0" : "=r"(ticks));
  return ticks;
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
#endif
}

// Nanoseconds per tick, measured over at least 10 ms against CLOCK_MONOTONIC the first time it is
// called in a process (which then blocks up to 10 ms) and refined on every later call over the
// whole time since the first. Thread-safe.
double MeasureNsPerTick();
// What NowTicks() reads, for the trace metadata: "tsc", "cntvct" or "CLOCK_MONOTONIC".
const char* TickSourceName();

}  // namespace xpuperf::tracer::detail
