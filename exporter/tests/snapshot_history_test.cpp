#include "xpuperf/exporter/snapshot_history.h"

#include <gtest/gtest.h>

namespace xpuperf::exporter {
namespace {

std::shared_ptr<const Snapshot> At(int64_t t, std::vector<std::pair<std::string, double>> devices) {
  auto s = std::make_shared<Snapshot>();
  s->timestamp_ns = t;
  MetricFamily f{"xpuperf_duty_cycle_ratio", "", FamilyType::kGauge, {}, {}};
  for (auto& [device, value] : devices)
    f.points.push_back(ScalarPoint{{{"device", device}}, value});
  s->families.push_back(std::move(f));
  return s;
}

TEST(SnapshotHistoryTest, KeepsTheNewestUpToCapacity) {
  SnapshotHistory history(3);
  EXPECT_EQ(history.Latest(), nullptr);
  for (int t = 1; t <= 5; ++t) history.Append(At(t, {{"gpu0", t * 0.1}}));
  EXPECT_EQ(history.size(), 3u);
  EXPECT_EQ(history.Latest()->timestamp_ns, 5);
  auto since = history.Since(4);
  ASSERT_EQ(since.size(), 2u);
  EXPECT_EQ(since[0]->timestamp_ns, 4);
}

TEST(SnapshotHistoryTest, SeriesFollowsLabelSetsAndVanishedDevices) {
  SnapshotHistory history(10);
  history.Append(At(1, {{"gpu0", 0.5}, {"gpu1", 0.25}}));
  history.Append(At(2, {{"gpu0", 0.75}}));  // gpu1 lost
  auto series = history.Series("xpuperf_duty_cycle_ratio", 0);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].labels.Get("device"), "gpu0");
  ASSERT_EQ(series[0].values.size(), 2u);
  EXPECT_EQ(series[0].values[1].timestamp_ns, 2);
  EXPECT_DOUBLE_EQ(series[0].values[1].value, 0.75);
  EXPECT_EQ(series[1].values.size(), 1u);
  EXPECT_TRUE(history.Series("xpuperf_other", 0).empty());
}

}  // namespace
}  // namespace xpuperf::exporter
