// record's energy tracks and summary use the power integral for a frozen counter
// (core/energy_check.h).
#include <gtest/gtest.h>

#include "xpuperf/core/energy_check.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/record/accumulator.h"
#include "xpuperf/record/summary.h"
#include "xpuperf/record/timeline_reader.h"

namespace xpuperf::record {
namespace {

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
