// The clock the cores run at: base and maximum as the system states them, and the clock measured
// under load by a dependent chain of integer adds (one cycle each on every x86-64 core) timed
// against the TSC and the steady clock. Reading functions take the sysfs/procfs root.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "xpuperf/core/cpuinfo.h"

namespace xpuperf::bench {

struct ClockFigure {
  double hertz = 0;  // 0 when unknown
  std::string source;
};

struct CoreClocks {
  ClockFigure base;      // cpufreq base_frequency, else the "@ 2.60GHz" of the model name
  ClockFigure maximum;   // cpufreq cpuinfo_max_freq, else the highest "cpu MHz" of cpuinfo
  ClockFigure measured;  // ProbeCoreClock under the benchmark's load; hertz 0 when not measured
                         // (source then says why, or is empty when no probe ran)
  // The figure a nominal peak uses: measured, else maximum, else base (hertz 0 when none).
  const ClockFigure& Best() const;
};

CoreClocks ReadCoreClocks(const CpuInfo& info, const std::string& root);

struct ClockProbe {
  // adds / seconds of the thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the core clock while the
  // chain ran, not lowered when other processes preempt the thread. 0 when `problem` says why.
  double core_hertz = 0;
  double tsc_hertz = 0;  // TSC ticks / wall seconds over the same interval
  int64_t adds = 0;
  double seconds = 0;       // thread CPU time
  double wall_seconds = 0;  // steady clock
  std::string problem;      // why core_hertz is 0; empty when it was measured
};

// More adds per TSC tick than this (a core clock above this multiple of the TSC's rate) are not
// believed (see ClockProbeFromCounts).
inline constexpr double kMaxClockToTscRatio = 2.5;

// The probe's figures from its raw counts: core_hertz = adds / cpu_seconds, unless an interval is
// empty or adds / tsc_ticks exceeds kMaxClockToTscRatio (then `problem` says which). The ratio
// uses the TSC's ticks, not its rate over the wall interval, so a preemption outside the chain
// cannot make a real clock look impossible.
ClockProbe ClockProbeFromCounts(int64_t adds, double cpu_seconds, uint64_t tsc_ticks,
                                double wall_seconds);

// Runs `adds` (rounded up to a multiple of 64) dependent register-to-register adds on the calling
// thread. Thread-safe.
ClockProbe ProbeCoreClock(int64_t adds);

// The clock of the cores a benchmark just loaded: `probes` probes of `adds` on each of `threads`
// OpenMP threads, run right after the benchmark's last sample; the median, with a source naming
// `after` ("a GEMM sample"). hertz 0 with the first probe's problem when none measured.
ClockFigure MeasureClockAfter(int threads, const std::string& after, int probes = 5,
                              int64_t adds = 2'000'000);

}  // namespace xpuperf::bench
