// serve's energy counters against ∫ power dt (energy_audit.h): each failure mode a real counter
// shows (stall, restart, disagreement) on recorded sequences, and what a healthy one looks like.
#include "energy_audit.h"

#include <gtest/gtest.h>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::exporter {
namespace {

std::vector<Reading> Collection(double energy_joules, double power_watts, bool with_power = true) {
  Reading energy{std::string(metrics::kEnergy), "nvidia0", ReadingState::kOk, "", {}, ""};
  energy.samples.push_back(Sample{Labels{}, 0, energy_joules});
  std::vector<Reading> readings{energy};
  if (with_power) {
    Reading power{std::string(metrics::kPower), "nvidia0", ReadingState::kOk, "", {}, ""};
    power.samples.push_back(Sample{Labels{}, 0, power_watts});
    readings.push_back(power);
  }
  return readings;
}

struct Step {
  double exported;
  EnergySource source;
};

Step Apply(EnergyAudit& audit, double energy, double power, bool with_power = true) {
  std::vector<Reading> readings = Collection(energy, power, with_power);
  std::vector<EnergySource> sources = audit.Apply(readings, 1.0);
  EXPECT_EQ(sources.size(), 1u);
  return {readings[0].samples[0].scalar(), sources.empty() ? EnergySource{} : sources[0]};
}

TEST(EnergyAuditTest, AHealthyCounterIsExportedAsItIs) {
  EnergyAudit audit;
  Step s = Apply(audit, 1000, 300);
  EXPECT_EQ(s.exported, 1000);  // the device's own count so far
  EXPECT_EQ(s.source.verdict, "unchecked");
  for (int i = 1; i <= 10; ++i) s = Apply(audit, 1000 + 300.0 * i, 300);
  EXPECT_DOUBLE_EQ(s.exported, 4000);
  EXPECT_EQ(s.source.source, "counter");
  EXPECT_EQ(s.source.verdict, "ok");
  EXPECT_NE(s.source.detail.find("within 0.0% of ∫ power dt"), std::string::npos)
      << s.source.detail;
}

TEST(EnergyAuditTest, AStalledCounterIsReplacedByThePowerIntegral) {
  // NVML's total-energy counter frozen while the GPU draws 612 W.
  EnergyAudit audit;
  Apply(audit, 5000, 612);
  Step s{};
  for (int i = 1; i <= 5; ++i) s = Apply(audit, 5000, 612);
  EXPECT_DOUBLE_EQ(s.exported, 5000 + 5 * 612.0);
  EXPECT_EQ(s.source.source, "power_integral");
  EXPECT_EQ(s.source.verdict, "stalled");
  EXPECT_NE(s.source.detail.find("stalled: the counter did not move"), std::string::npos);
  // It moves again, in step with power: back to the counter, still monotonic.
  double previous = s.exported;
  for (int i = 1; i <= 40; ++i) {
    s = Apply(audit, 5000 + 612.0 * i, 612);
    EXPECT_GE(s.exported, previous);
    previous = s.exported;
  }
  EXPECT_EQ(s.source.source, "counter");
  EXPECT_EQ(s.source.verdict, "ok");
}

TEST(EnergyAuditTest, ARestartCountsFromZeroAndALateStallIsRecounted) {
  EnergyAudit audit;
  Apply(audit, 100000, 200);
  Step s = Apply(audit, 100200, 200);
  // The driver reloaded: the counter starts again from zero.
  s = Apply(audit, 200, 200);
  EXPECT_DOUBLE_EQ(s.exported, 100000 + 200 + 200);
  EXPECT_EQ(s.source.source, "counter");
  EXPECT_EQ(s.source.verdict, "ok");
  EXPECT_NE(s.source.detail.find("restarted or wrapped 1 time"), std::string::npos)
      << s.source.detail;
  // Counting half of what power says: from then on the power integral, and the intervals of the
  // window already counted from the counter are recounted from power (never subtracted).
  double counter = 200;
  for (int i = 0; i < 20; ++i) s = Apply(audit, counter += 100, 200);
  EXPECT_EQ(s.source.source, "power_integral");
  EXPECT_EQ(s.source.verdict, "disagrees");
  EXPECT_DOUBLE_EQ(s.exported, 100000 + 200 + 200 + 20 * 200.0);
}

TEST(EnergyAuditTest, WithoutPowerTheCounterIsUsedUnchecked) {
  EnergyAudit audit;
  Apply(audit, 10, 0, false);
  Step s = Apply(audit, 10, 0, false);
  EXPECT_EQ(s.exported, 10);
  EXPECT_EQ(s.source.source, "counter");
  EXPECT_EQ(s.source.verdict, "unchecked");
  EXPECT_NE(s.source.detail.find("not cross-checked"), std::string::npos);
}

}  // namespace
}  // namespace xpuperf::exporter
