// Energy counters against ∫ power dt: each failure mode of a real counter (a stall, a partial
// stall, a wrap or reset, a disagreement) is reported and the integral used; an agreeing counter
// is kept and says how close it was.
#include "xpuperf/record/energy_check.h"

#include <gtest/gtest.h>

#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/record/accumulator.h"
#include "xpuperf/record/summary.h"
#include "xpuperf/record/timeline_reader.h"

namespace xpuperf::record {
namespace {

TEST(EnergyCheck, EachFailureModeUsesThePowerIntegral) {
  // A GPU drawing 612 W for 10 s whose counter never moved: the 0 J.
  EnergyCheck stalled = CheckEnergyCounter(0, 0, 6120, 10);
  EXPECT_TRUE(stalled.use_power);
  EXPECT_EQ(stalled.problem,
            "stalled: the counter did not move over 10.0 s while power read 612.0 W on average");
  // Stalled for half the window.
  EnergyCheck partial = CheckEnergyCounter(3060, 0, 6120, 10);
  EXPECT_TRUE(partial.use_power);
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
  EXPECT_EQ(good.agreement, "within 2.0% of ∫ power dt (6120.0 J; tolerance 10%)");
  // A restart the counter survived (a driver reload: new value from zero) and still agrees.
  EXPECT_FALSE(CheckEnergyCounter(6100, 1, 6120, 10).use_power);
  // Nothing to compare with: an idle domain.
  EnergyCheck idle = CheckEnergyCounter(0, 0, 0.5, 10);
  EXPECT_FALSE(idle.use_power);
  EXPECT_TRUE(idle.agreement.empty());
}

// The timeline's energy tracks and record's summary both use the integral for a frozen counter.
TEST(EnergyCheck, AFrozenCounterIsReplacedInTheTracksAndTheSummary) {
  TimelineData data;
  const uint32_t energy = data.table.Intern(metrics::kEnergy, "nvidia0", {{"domain", "gpu"}});
  const uint32_t power = data.table.Intern(metrics::kPower, "nvidia0", {{"domain", "gpu"}});
  TimelineAccumulator acc;
  for (int i = 0; i <= 10; ++i) {
    Tick tick{i * 1'000'000'000LL, i * 1'000'000'000LL, {{energy, 5000.0}, {power, 612.0}}};
    data.ticks.push_back(tick);
    acc.Add(tick, data.table);
  }
  const std::vector<EnergyTrack> tracks = EnergyTracks(data);
  ASSERT_EQ(tracks.size(), 1u);
  EXPECT_FALSE(tracks[0].from_counter);
  EXPECT_DOUBLE_EQ(tracks[0].joules.back(), 6120.0);
  EXPECT_EQ(tracks[0].counter_problem.rfind("stalled", 0), 0u) << tracks[0].counter_problem;

  SummaryInput input;
  input.table = &data.table;
  input.stats = &acc;
  const nlohmann::json summary = BuildSummary(input);
  ASSERT_EQ(summary["energy"].size(), 1u);
  const nlohmann::json& e = summary["energy"][0];
  EXPECT_DOUBLE_EQ(e["joules"].get<double>(), 6120.0);
  EXPECT_DOUBLE_EQ(e["counter_joules"].get<double>(), 0.0);
  EXPECT_EQ(e["source"], "power integral");
  EXPECT_NE(e["method"].get<std::string>().find("the energy counter stalled"), std::string::npos);
  EXPECT_NE(RenderSummaryText(summary).find("∫ power (counter stalled"), std::string::npos)
      << RenderSummaryText(summary);
}

}  // namespace
}  // namespace xpuperf::record
