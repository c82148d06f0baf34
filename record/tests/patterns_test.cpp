// The pattern rules on synthetic signals with known answers.
#include "xpuperf/record/patterns.h"

#include <gtest/gtest.h>

#include <cmath>

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

TEST(DetectPatterns, NearOomAndThrottlingFromATimeline) {
  SeriesTable table;
  const uint32_t used = table.Intern(metrics::kMemoryUsed, "nvidia0", {});
  const uint32_t cap =
      table.Intern(metrics::kClockEventActive, "nvidia0", {{"reason", "sw_power_cap"}});
  TimelineAccumulator acc;
  for (int i = 0; i <= 100; ++i) {
    Tick tick;
    tick.mono_ns = i * 100'000'000LL;
    tick.wall_ns = tick.mono_ns;
    tick.values = {{used, i == 50 ? 79.0e9 : 40e9}, {cap, i >= 20 && i < 60 ? 1.0 : 0.0}};
    acc.Add(tick, table);
  }
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

}  // namespace
}  // namespace xpuperf::record
