// Energy counters checked against the integral of the power readings over the same window. Real
// counters freeze (NVML's total-energy counter stalls on some drivers), wrap (RAPL's 32-bit
// counter, AMD's) and reset (a driver reload); a counter that stalled, restarted or disagrees with
// ∫ power dt beyond the tolerance is reported as such and the integral is used in its place, with
// its source named (record's summary, the timeline's energy tracks, analyze --telemetry, serve's
// energy series).
#pragma once

#include <cstdint>
#include <string>

namespace xpuperf {

// Power readings are averages over the driver's own window and are held between samples: within
// 10% of each other a counter and the integral agree.
inline constexpr double kEnergyTolerance = 0.10;
// Below this many joules of integral the comparison is noise (an idle domain for a second).
inline constexpr double kEnergyMinJoules = 1.0;

struct EnergyCheck {
  // "ok" (agrees), "stalled", "disagrees", or "unchecked" (less than kEnergyMinJoules of power).
  std::string verdict = "unchecked";
  bool use_power = false;  // the counter failed the check: use power_joules
  std::string problem;     // why, when use_power ("stalled: ...", "restarted 1 time and ...")
  std::string agreement;   // when the counter is used and could be checked: how close it was
};

// counter_joules: Σ increases of the counter (a decrease counted as a restart from zero, `resets`
// times); power_joules: ∫ power dt over the same samples; seconds: the window.
EnergyCheck CheckEnergyCounter(double counter_joules, int64_t resets, double power_joules,
                               double seconds);

}  // namespace xpuperf
