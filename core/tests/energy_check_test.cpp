// Energy counters against ∫ power dt: each failure mode of a real counter (a stall, a partial
// stall, a wrap or reset, a disagreement) is reported and the integral used; an agreeing counter
// is kept and says how close it was. record's and serve's uses:
// record/tests/energy_tracks_test.cpp, exporter/tests/energy_audit_test.cpp.
#include "xpuperf/core/energy_check.h"

#include <gtest/gtest.h>

namespace xpuperf {
namespace {

TEST(EnergyCheck, EachFailureModeUsesThePowerIntegral) {
  // A GPU drawing 612 W for 10 s whose counter never moved: the 0 J.
  EnergyCheck stalled = CheckEnergyCounter(0, 0, 6120, 10);
  EXPECT_TRUE(stalled.use_power);
  EXPECT_EQ(stalled.verdict, "stalled");
  EXPECT_EQ(stalled.problem,
            "stalled: the counter did not move over 10.0 s while power read 612.0 W on average");
  // Stalled for half the window.
  EnergyCheck partial = CheckEnergyCounter(3060, 0, 6120, 10);
  EXPECT_TRUE(partial.use_power);
  EXPECT_EQ(partial.verdict, "disagrees");
  EXPECT_NE(partial.problem.find("-50%"), std::string::npos) << partial.problem;
  EXPECT_NE(partial.problem.find("stalled or lost increments"), std::string::npos);
  // A wrap counted as a restart from zero lost the counter's range: it disagrees.
  EnergyCheck wrapped = CheckEnergyCounter(100, 1, 6120, 10);
  EXPECT_TRUE(wrapped.use_power);
  EXPECT_EQ(wrapped.problem.rfind("restarted or wrapped 1 time and disagrees", 0), 0u)
      << wrapped.problem;
  // More energy than the power drew.
  EXPECT_TRUE(CheckEnergyCounter(9000, 0, 6120, 10).use_power);
}

TEST(EnergyCheck, AnAgreeingCounterIsKeptAndSaysHowClose) {
  EnergyCheck good = CheckEnergyCounter(6000, 0, 6120, 10);
  EXPECT_FALSE(good.use_power);
  EXPECT_EQ(good.verdict, "ok");
  EXPECT_EQ(good.agreement, "within 2.0% of ∫ power dt (6120.0 J; tolerance 10%)");
  // A restart the counter survived (a driver reload: new value from zero) and still agrees.
  EXPECT_FALSE(CheckEnergyCounter(6100, 1, 6120, 10).use_power);
  // Nothing to compare with: an idle domain.
  EnergyCheck idle = CheckEnergyCounter(0, 0, 0.5, 10);
  EXPECT_FALSE(idle.use_power);
  EXPECT_EQ(idle.verdict, "unchecked");
  EXPECT_TRUE(idle.agreement.empty());
}

}  // namespace
}  // namespace xpuperf
