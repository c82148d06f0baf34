#include "xpuperf/exporter/series_naming.h"

#include <gtest/gtest.h>

#include <set>

namespace xpuperf::exporter {
namespace {

TEST(SeriesNamingTest, PercentBecomesRatio) {
  const SeriesNaming n = NamingFor(*FindMetric("duty_cycle_percent"));
  EXPECT_EQ(n.name, "xpuperf_duty_cycle_ratio");
  EXPECT_DOUBLE_EQ(n.divisor, 100);
  EXPECT_EQ(n.type, FamilyType::kGauge);
}

TEST(SeriesNamingTest, CountersEndInTotalOnce) {
  EXPECT_EQ(SeriesNameFor("energy_joules"), "xpuperf_energy_joules_total");
  EXPECT_EQ(SeriesNameFor("errors_total"), "xpuperf_errors_total");
  EXPECT_EQ(NamingFor(*FindMetric("errors_total")).type, FamilyType::kCounter);
}

TEST(SeriesNamingTest, DistributionsAreHistogramsInSeconds) {
  const SeriesNaming n = NamingFor(*FindMetric("transfer_latency_seconds"));
  EXPECT_EQ(n.name, "xpuperf_transfer_latency_seconds");
  EXPECT_EQ(n.type, FamilyType::kHistogram);
  EXPECT_DOUBLE_EQ(n.divisor, 1);
}

TEST(SeriesNamingTest, BaseUnitsKeepTheirNames) {
  EXPECT_EQ(SeriesNameFor("memory_used_bytes"), "xpuperf_memory_used_bytes");
  EXPECT_EQ(SeriesNameFor("power_watts"), "xpuperf_power_watts");
  EXPECT_EQ(SeriesNameFor("clock_hertz"), "xpuperf_clock_hertz");
  EXPECT_EQ(SeriesNameFor("no_such_metric"), "");
}

TEST(SeriesNamingTest, EveryCatalogMetricHasADistinctValidName) {
  std::set<std::string> names;
  for (const MetricInfo& info : MetricCatalog()) {
    const std::string name = NamingFor(info).name;
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(name.find("percent"), std::string::npos) << name;
    for (char c : name)
      EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_') << name;
  }
}

}  // namespace
}  // namespace xpuperf::exporter
