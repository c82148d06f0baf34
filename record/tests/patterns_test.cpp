// The pattern rules on synthetic signals with known answers.
#include "xpuperf/record/patterns.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::record {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::vector<Point> Signal(double seconds, double rate, double (*f)(double)) {
  std::vector<Point> points;
  for (int i = 0; i <= static_cast<int>(seconds * rate); ++i) {
    const double t = i / rate;
    points.push_back({t, f(t)});
  }
  return points;
}

TEST(PhasesBelow, FindsTheIdleStretchWithItsBounds) {
  // Busy, idle from 3 s to 7 s (samples at 3.1 .. 7.0 below), busy again.
  auto points = Signal(10, 10, [](double t) { return t > 3.05 && t < 7.05 ? 1.0 : 80.0; });
  auto phases = PhasesBelow(points, 5, 2);
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_NEAR(phases[0].start_s, 3.0, 1e-9);
  EXPECT_NEAR(phases[0].end_s, 7.0, 1e-9);
  EXPECT_DOUBLE_EQ(phases[0].mean, 1.0);
  EXPECT_TRUE(PhasesBelow(points, 5, 4.5).empty());  // shorter than asked
}

TEST(FitMemoryGrowth, ReportsTheSlopeAndWhereItStarts) {
  // Flat at 1 GiB for 20 s, then +30 MiB/s (1800 MiB/min) to 60 s.
  auto points =
      Signal(60, 10, [](double t) { return 1024 * kMiB + (t > 20 ? (t - 20) * 30 * kMiB : 0); });
  auto growth = FitMemoryGrowth(points, 64 * kMiB);
  ASSERT_TRUE(growth.has_value());
  EXPECT_NEAR(growth->slope_bytes_per_s / kMiB * 60, 1800, 60);
  EXPECT_NEAR(growth->start_s, 20, 1.5);
  EXPECT_GT(growth->r2, 0.99);
}

TEST(FitMemoryGrowth, IgnoresAFlatOrSawtoothSignal) {
  EXPECT_FALSE(FitMemoryGrowth(Signal(60, 10, [](double) { return 4e9; }), 64 * kMiB));
  // Allocate and free every 5 s: up and down, no net growth.
  EXPECT_FALSE(FitMemoryGrowth(
      Signal(60, 10, [](double t) { return 4e9 + std::fmod(t, 5.0) * 100 * kMiB; }), 64 * kMiB));
}

TEST(FindStepPeriod, FindsTheDutyCyclePeriod) {
  // 1.5 s steps: 1 s busy, 0.5 s idle, sampled at 10 Hz for 30 s.
  auto points = Signal(30, 10, [](double t) { return std::fmod(t, 1.5) < 1.0 ? 95.0 : 5.0; });
  auto period = FindStepPeriod(points);
  ASSERT_TRUE(period.has_value());
  EXPECT_NEAR(period->period_s, 1.5, 0.1);
  EXPECT_GE(period->periods, 3);
  EXPECT_FALSE(FindStepPeriod(Signal(30, 10, [](double) { return 50.0; })));
}

// Ticks 0..last every 0.1 s, each with the values `at(i)` gives.
template <typename Values>
void AddTicks(TimelineAccumulator& acc, const SeriesTable& table, int last, Values at) {
  for (int i = 0; i <= last; ++i) {
    Tick tick;
    tick.mono_ns = i * 100'000'000LL;
    tick.wall_ns = tick.mono_ns;
    tick.values = at(i);
    acc.Add(tick, table);
  }
}

TEST(DetectPatterns, NearOomAndThrottlingFromATimeline) {
  SeriesTable table;
  const uint32_t used = table.Intern(metrics::kMemoryUsed, "nvidia0", {});
  const uint32_t cap =
      table.Intern(metrics::kClockEventActive, "nvidia0", {{"reason", "sw_power_cap"}});
  TimelineAccumulator acc;
  AddTicks(acc, table, 100, [&](int i) -> std::vector<TickValue> {
    return {{used, i == 50 ? 79.0e9 : 40e9}, {cap, i >= 20 && i < 60 ? 1.0 : 0.0}};
  });
  PatternContext context{&table, &acc, {{"nvidia0", 80'000'000'000ULL}}};
  auto findings = DetectPatterns(context);
  const Finding* oom = nullptr;
  const Finding* capped = nullptr;
  for (const Finding& f : findings) {
    if (f.rule == "near_oom") oom = &f;
    if (f.rule == "power_capped") capped = &f;
  }
  ASSERT_NE(oom, nullptr);
  EXPECT_NEAR(oom->value, 79.0 / 80.0, 1e-12);
  ASSERT_NE(capped, nullptr);
  // Active at samples 2.0 .. 5.9 s: from the sample before (1.9 s) to 5.9 s.
  EXPECT_NEAR(capped->value, 4.0, 1e-9);
  EXPECT_NEAR(capped->start_s, 1.9, 1e-9);
  // The summary's time under the reason (each sample held to the next): 40 samples × 0.1 s.
  EXPECT_NEAR(acc.stats(cap).held_integral, 4.0, 1e-9);
}

TEST(DetectPatterns, ThermalThrottleLowUtilisationAndIdleOnAnAccelerator) {
  SeriesTable table;
  const uint32_t duty = table.Intern(metrics::kDutyCycle, "nvidia0", {});
  const uint32_t hot =
      table.Intern(metrics::kClockEventActive, "nvidia0", {{"reason", "hw_thermal_slowdown"}});
  const uint32_t sw =
      table.Intern(metrics::kClockEventActive, "nvidia0", {{"reason", "sw_thermal_slowdown"}});
  const uint32_t host = table.Intern(metrics::kDutyCycle, "cpu0", {});
  TimelineAccumulator acc;
  // 20 s at 10 Hz: idle (duty 0) for the first 6 s, then 30% busy; hardware thermal slowdown
  // 6.0-7.9 s, software thermal slowdown 12.0-12.9 s. The host runs at 10%: with an accelerator
  // present, only the accelerator's utilisation is judged.
  AddTicks(acc, table, 200, [&](int i) -> std::vector<TickValue> {
    return {{duty, i < 60 ? 0.0 : 30.0},
            {hot, i >= 60 && i < 80 ? 1.0 : 0.0},
            {sw, i >= 120 && i < 130 ? 1.0 : 0.0},
            {host, 10.0}};
  });
  PatternContext context{&table, &acc, {}};
  std::map<std::string, const Finding*> found;
  const auto findings = DetectPatterns(context);
  for (const Finding& f : findings) {
    EXPECT_FALSE(found.count(f.rule + "/" + f.device)) << f.rule << " twice for " << f.device;
    found[f.rule + "/" + f.device] = &f;
  }
  const Finding* thermal = found["thermal_throttled/nvidia0"];
  ASSERT_NE(thermal, nullptr);
  // Each phase runs from the sample before it turned on to its last active sample: 2.0 + 1.0 s.
  EXPECT_NEAR(thermal->value, 3.0, 1e-9);
  EXPECT_NEAR(thermal->start_s, 5.9, 1e-9);
  EXPECT_NEAR(thermal->end_s, 12.9, 1e-9);
  EXPECT_NE(thermal->evidence.find("hw_thermal_slowdown, sw_thermal_slowdown"), std::string::npos)
      << thermal->evidence;
  EXPECT_EQ(thermal->severity, "warning");  // 3 s of 20 s ≥ 10%
  EXPECT_EQ(found["power_capped/nvidia0"], nullptr);

  const Finding* low = found["low_utilization/nvidia0"];
  ASSERT_NE(low, nullptr);
  EXPECT_EQ(low->value, 30.0);  // the median outside the idle phase, not dragged down by it
  EXPECT_EQ(low->severity, "info");
  EXPECT_EQ(found["low_utilization/cpu0"], nullptr);

  const Finding* idle = found["idle_phases/nvidia0"];
  ASSERT_NE(idle, nullptr);
  EXPECT_NEAR(idle->start_s, 0.0, 1e-9);
  EXPECT_NEAR(idle->value * 20.0, 6.0, 0.15);  // about the first 6 s of 20
  EXPECT_EQ(idle->severity, "warning");        // ≥ 20% of the job
}

TEST(DetectPatterns, ABusyDeviceHasNoUtilisationOrThrottleFinding) {
  SeriesTable table;
  const uint32_t duty = table.Intern(metrics::kDutyCycle, "nvidia0", {});
  const uint32_t hot =
      table.Intern(metrics::kClockEventActive, "nvidia0", {{"reason", "hw_thermal_slowdown"}});
  TimelineAccumulator acc;
  AddTicks(acc, table, 100, [&](int) -> std::vector<TickValue> {
    return {{duty, 95.0}, {hot, 0.0}};
  });
  PatternContext context{&table, &acc, {}};
  for (const Finding& f : DetectPatterns(context)) {
    EXPECT_NE(f.rule, "low_utilization");
    EXPECT_NE(f.rule, "thermal_throttled");
    EXPECT_NE(f.rule, "idle_phases");
  }
}

}  // namespace
}  // namespace xpuperf::record
