#include "xpuperf/core/energy_check.h"

#include <fmt/format.h>

#include <cmath>

namespace xpuperf {

EnergyCheck CheckEnergyCounter(double counter_joules, int64_t resets, double power_joules,
                               double seconds) {
  EnergyCheck check;
  if (!(power_joules >= kEnergyMinJoules)) return check;  // nothing to compare with
  const double watts = seconds > 0 ? power_joules / seconds : 0;
  const std::string restarted = resets > 0 ? fmt::format("restarted or wrapped {} time{} and ",
                                                         resets, resets == 1 ? "" : "s")
                                           : std::string();
  if (counter_joules <= 0) {
    check.verdict = "stalled";
    check.use_power = true;
    check.problem = fmt::format(
        "{}stalled: the counter did not move over {:.1f} s while power read {:.1f} W on average",
        restarted, seconds, watts);
    return check;
  }
  const double off = counter_joules / power_joules - 1;
  if (std::fabs(off) > kEnergyTolerance) {
    check.verdict = "disagrees";
    check.use_power = true;
    check.problem = fmt::format(
        "{}disagrees with ∫ power dt: {:.1f} J against {:.1f} J ({:+.0f}%, tolerance {:.0f}%){}",
        restarted, counter_joules, power_joules, 100 * off, 100 * kEnergyTolerance,
        off < 0 ? ": it stalled or lost increments" : ": it counted more than the power drew");
    return check;
  }
  check.verdict = "ok";
  check.agreement =
      fmt::format("{}within {:.1f}% of ∫ power dt ({:.1f} J; tolerance {:.0f}%)", restarted,
                  100 * std::fabs(off), power_joules, 100 * kEnergyTolerance);
  return check;
}

}  // namespace xpuperf
