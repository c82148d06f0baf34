#include "xpuperf/exporter/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace xpuperf::exporter {
namespace {

Snapshot Sample() {
  Snapshot s;
  s.families.push_back(
      MetricFamily{"xpuperf_duty_cycle_ratio",
                   "Busy share\nof the window (back\\slash)",
                   FamilyType::kGauge,
                   {ScalarPoint{{{"device", "cpu0"}, {"model", "A \"quoted\"\nx"}}, 0.5},
                    ScalarPoint{{{"device", "cpu1"}}, std::nan("")}},
                   {}});
  s.families.push_back(MetricFamily{"xpuperf_energy_joules_total",
                                    "Energy",
                                    FamilyType::kCounter,
                                    {ScalarPoint{{{"device", "nvidia0"}}, 123456.789}},
                                    {}});
  s.families.push_back(MetricFamily{"xpuperf_device_info",
                                    "Identity",
                                    FamilyType::kInfo,
                                    {ScalarPoint{{{"device", "tpu0"}}, 1}},
                                    {}});
  s.families.push_back(
      MetricFamily{"xpuperf_transfer_latency_seconds",
                   "Latency",
                   FamilyType::kHistogram,
                   {},
                   {HistogramPoint{{{"device", "tpu0"}}, {0.001, 1, 10}, {2, 5, 9}, 10, 3.5}}});
  s.families.push_back(MetricFamily{"xpuperf_empty", "none", FamilyType::kGauge, {}, {}});
  return s;
}

TEST(ExpositionTest, TextFormat004) {
  EXPECT_EQ(Render(Sample(), ExpositionFormat::kText004),
            "# HELP xpuperf_duty_cycle_ratio Busy share\\nof the window (back\\\\slash)\n"
            "# TYPE xpuperf_duty_cycle_ratio gauge\n"
            "xpuperf_duty_cycle_ratio{device=\"cpu0\",model=\"A \\\"quoted\\\"\\nx\"} 0.5\n"
            "xpuperf_duty_cycle_ratio{device=\"cpu1\"} NaN\n"
            "# HELP xpuperf_energy_joules_total Energy\n"
            "# TYPE xpuperf_energy_joules_total counter\n"
            "xpuperf_energy_joules_total{device=\"nvidia0\"} 123456.789\n"
            "# HELP xpuperf_device_info Identity\n"
            "# TYPE xpuperf_device_info gauge\n"
            "xpuperf_device_info{device=\"tpu0\"} 1\n"
            "# HELP xpuperf_transfer_latency_seconds Latency\n"
            "# TYPE xpuperf_transfer_latency_seconds histogram\n"
            "xpuperf_transfer_latency_seconds_bucket{device=\"tpu0\",le=\"0.001\"} 2\n"
            "xpuperf_transfer_latency_seconds_bucket{device=\"tpu0\",le=\"1.0\"} 5\n"
            "xpuperf_transfer_latency_seconds_bucket{device=\"tpu0\",le=\"10.0\"} 9\n"
            "xpuperf_transfer_latency_seconds_bucket{device=\"tpu0\",le=\"+Inf\"} 10\n"
            "xpuperf_transfer_latency_seconds_sum{device=\"tpu0\"} 3.5\n"
            "xpuperf_transfer_latency_seconds_count{device=\"tpu0\"} 10\n");
}

TEST(ExpositionTest, OpenMetricsNamesCountersAndInfoWithoutSuffixAndEndsWithEof) {
  const std::string om = Render(Sample(), ExpositionFormat::kOpenMetrics100);
  EXPECT_NE(om.find("# HELP xpuperf_duty_cycle_ratio Busy share\\nof the window (back\\\\slash)\n"),
            std::string::npos);
  EXPECT_NE(om.find("# TYPE xpuperf_energy_joules counter\n"
                    "xpuperf_energy_joules_total{device=\"nvidia0\"} 123456.789\n"),
            std::string::npos);
  EXPECT_NE(om.find("# TYPE xpuperf_device info\nxpuperf_device_info{device=\"tpu0\"} 1\n"),
            std::string::npos);
  EXPECT_TRUE(om.ends_with("xpuperf_transfer_latency_seconds_count{device=\"tpu0\"} 10\n# EOF\n"));
  EXPECT_EQ(om.find("xpuperf_empty"), std::string::npos);
}

TEST(ExpositionTest, Values) {
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatValue(85520809984.0), "85520809984");
  EXPECT_EQ(FormatValue(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatBound(2), "2.0");
  EXPECT_EQ(FormatBound(1e-05), "1e-05");
}

TEST(ExpositionTest, NegotiatesWhatPrometheusAsksFor) {
  // Prometheus 2.42's scrape Accept header.
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text;version=1.0.0,application/"
                            "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,"
                            "*/*;q=0.1"),
            ExpositionFormat::kOpenMetrics100);
  EXPECT_EQ(NegotiateFormat(""), ExpositionFormat::kText004);
  EXPECT_EQ(NegotiateFormat("*/*"), ExpositionFormat::kText004);
  EXPECT_EQ(NegotiateFormat("text/plain;version=0.0.4"), ExpositionFormat::kText004);
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text; version=0.0.1"),
            ExpositionFormat::kText004);
  EXPECT_EQ(NegotiateFormat("text/plain, application/openmetrics-text;q=0.2"),
            ExpositionFormat::kText004);
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text;q=0"), ExpositionFormat::kText004);
}

}  // namespace
}  // namespace xpuperf::exporter
