#include "snapshot_builder.h"

#include <gtest/gtest.h>

namespace xpuperf::exporter {
namespace {

CollectorSnapshot Collected(std::vector<Reading> readings) {
  auto c = std::make_shared<Collection>();
  Device d;
  d.backend = "nvidia";
  d.id = "nvidia0";
  d.model = "GPU";
  d.uuid = "GPU-1";
  c->devices = {d};
  c->readings = std::move(readings);
  CollectorSnapshot s;
  s.backend = "nvidia";
  s.up = true;
  s.last_success_ns = 1'000'000'000;
  s.latest = c;
  return s;
}

Reading Gauge(std::string_view metric, double value) {
  Reading r;
  r.metric = std::string(metric);
  r.device = "nvidia0";
  Sample s;
  s.labels.Set("device", "nvidia0");
  s.value = value;
  r.samples = {s, s};  // a repeated label set is written once
  return r;
}

TEST(SnapshotBuilderTest, EnergySourcesAreInfoSeriesAndHealthEntries) {
  BuildInput input;
  CollectorSnapshot collected = Collected({Gauge(metrics::kEnergy, 5612)});
  auto c = std::make_shared<Collection>(*collected.latest);
  c->energy_sources = {EnergySource{"nvidia0", Labels{{"device", "nvidia0"}}, "power_integral",
                                    "stalled", "the energy counter stalled: ..."}};
  collected.latest = c;
  input.collectors = {collected};
  BuildOutput out = BuildSnapshot(input);
  const MetricFamily* info = out.snapshot.Find("xpuperf_energy_source_info");
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->points.size(), 1u);
  EXPECT_EQ(info->points[0].labels.Get("source"), "power_integral");
  EXPECT_EQ(info->points[0].labels.Get("verdict"), "stalled");
  EXPECT_EQ(info->points[0].labels.Get("uuid"), "GPU-1");
  ASSERT_EQ(out.energy.size(), 1u);
  EXPECT_EQ(out.energy[0].detail, "the energy counter stalled: ...");
  // Not asked for with the energy metric filtered out.
  input.metrics = {std::string(metrics::kPower)};
  EXPECT_EQ(BuildSnapshot(input).snapshot.Find("xpuperf_energy_source_info"), nullptr);
}

// One pod: its labels on the device's series. Several (time-slicing): the device's series once,
// without pod labels, and xpuperf_device_pod_info per pod; a process's series carry its own pod.
TEST(SnapshotBuilderTest, ASharedDeviceIsNotRepeatedPerPod) {
  BuildInput input;
  input.hostname = "node-1";
  Reading process = Gauge(metrics::kProcessMemory, 1024);
  for (Sample& sample : process.samples) sample.labels.Set("pid", "77");
  input.collectors = {Collected({Gauge(metrics::kDutyCycle, 50), process})};
  std::vector<Labels> consumers = {{{"pod", "a"}, {"namespace", "n"}}};
  DeviceAttribution pods = [&consumers](const Device&) { return consumers; };
  input.attribution = &pods;
  BuildOutput out = BuildSnapshot(input);
  const MetricFamily* duty = out.snapshot.Find("xpuperf_duty_cycle_ratio");
  ASSERT_NE(duty, nullptr);
  ASSERT_EQ(duty->points.size(), 1u);
  EXPECT_EQ(duty->points[0].labels.Get("pod"), "a");  // one pod: dcgm-exporter's labels
  EXPECT_DOUBLE_EQ(duty->points[0].value, 0.5);
  EXPECT_EQ(duty->points[0].labels.Get("hostname"), "node-1");

  consumers.push_back({{"pod", "b"}, {"namespace", "n"}});
  JobAttribution jobs;
  jobs.process_pod = [](int pid) {
    return pid == 77 ? Labels{{"pod", "b"}, {"namespace", "n"}, {"container", "c"}} : Labels{};
  };
  input.jobs = &jobs;
  out = BuildSnapshot(input);
  duty = out.snapshot.Find("xpuperf_duty_cycle_ratio");
  ASSERT_EQ(duty->points.size(), 1u);  // not repeated per pod
  EXPECT_FALSE(duty->points[0].labels.Has("pod"));
  const MetricFamily* holders = out.snapshot.Find("xpuperf_device_pod_info");
  ASSERT_NE(holders, nullptr);
  ASSERT_EQ(holders->points.size(), 2u);
  EXPECT_EQ(holders->points[0].labels.Get("device"), "nvidia0");
  EXPECT_EQ(holders->points[0].labels.Get("pod"), "a");
  EXPECT_EQ(holders->points[1].labels.Get("pod"), "b");
  const MetricFamily* memory = out.snapshot.Find("xpuperf_process_memory_bytes");
  ASSERT_NE(memory, nullptr);
  ASSERT_EQ(memory->points.size(), 1u);
  EXPECT_EQ(memory->points[0].labels.Get("pod"), "b");  // the process's own pod
  EXPECT_EQ(memory->points[0].labels.Get("container"), "c");
  // Health series carry no pod labels.
  const MetricFamily* up = out.snapshot.Find("xpuperf_device_up");
  ASSERT_NE(up, nullptr);
  ASSERT_EQ(up->points.size(), 1u);
  EXPECT_FALSE(up->points[0].labels.Has("pod"));
}

TEST(SnapshotBuilderTest, MigDevicesCarryDcgmExporterLabelsBesideTheirGpu) {
  BuildInput input;
  CollectorSnapshot collector = Collected({Gauge(metrics::kMemoryUsed, 1024)});
  auto collection = std::make_shared<Collection>(*collector.latest);
  Device mig = collection->devices[0];
  mig.id = "nvidia0/gi9/ci0";
  mig.uuid = "MIG-9";
  mig.partition = Partition{"nvidia0", "GPU-1", 9, 0, "1g.10gb"};
  collection->devices.push_back(mig);
  Reading on_mig = Gauge(metrics::kMemoryUsed, 512);
  on_mig.device = mig.id;
  for (Sample& s : on_mig.samples) s.labels.Set("device", mig.id);
  collection->readings.push_back(on_mig);
  collector.latest = collection;
  input.collectors = {collector};
  BuildOutput out = BuildSnapshot(input);
  const MetricFamily* used = out.snapshot.Find("xpuperf_memory_used_bytes");
  ASSERT_NE(used, nullptr);
  ASSERT_EQ(used->points.size(), 2u);
  const Labels& gpu = used->points[0].labels;
  EXPECT_EQ(gpu.Get("uuid"), "GPU-1");
  EXPECT_FALSE(gpu.Has("GPU_I_ID"));
  const Labels& slice = used->points[1].labels;
  EXPECT_EQ(slice.Get("device"), "nvidia0/gi9/ci0");
  EXPECT_EQ(slice.Get("uuid"), "MIG-9");
  EXPECT_EQ(slice.Get("GPU_I_ID"), "9");
  EXPECT_EQ(slice.Get("GPU_I_PROFILE"), "1g.10gb");
  EXPECT_EQ(slice.Get("parent_uuid"), "GPU-1");
  EXPECT_EQ(slice.Get("parent_device"), "nvidia0");
  EXPECT_DOUBLE_EQ(used->points[1].value, 512);
  const MetricFamily* info = out.snapshot.Find("xpuperf_device_info");
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->points.size(), 2u);
  EXPECT_EQ(info->points[1].labels.Get("GPU_I_PROFILE"), "1g.10gb");
}

TEST(SnapshotBuilderTest, UnsupportedReadingsAreAbsentNotZero) {
  BuildInput input;
  input.collectors = {Collected({Gauge(metrics::kPower, 300),
                                 Reading::Unsupported(metrics::kEnergy, "nvidia0", "no counter")})};
  BuildOutput out = BuildSnapshot(input);
  EXPECT_NE(out.snapshot.Find("xpuperf_power_watts"), nullptr);
  EXPECT_EQ(out.snapshot.Find("xpuperf_energy_joules_total"), nullptr);
  ASSERT_EQ(out.devices.size(), 1u);
  EXPECT_TRUE(out.devices[0].up);
}

TEST(SnapshotBuilderTest, ProviderFamiliesMustFollowTheRules) {
  BuildInput input;
  input.collectors = {Collected({Gauge(metrics::kPower, 300)})};
  input.extra = {
      MetricFamily{"xpuperf_alerts", "ok", FamilyType::kGauge, {ScalarPoint{{}, 1}}, {}},
      MetricFamily{"xpuperf_checks",
                   "counter without _total",
                   FamilyType::kCounter,
                   {ScalarPoint{{}, 1}},
                   {}},
      MetricFamily{"xpuperf_bad-name", "", FamilyType::kGauge, {ScalarPoint{{}, 1}}, {}},
      MetricFamily{"xpuperf_power_watts", "taken", FamilyType::kGauge, {ScalarPoint{{}, 1}}, {}}};
  BuildOutput out = BuildSnapshot(input);
  EXPECT_NE(out.snapshot.Find("xpuperf_alerts"), nullptr);
  EXPECT_EQ(out.snapshot.Find("xpuperf_checks"), nullptr);
  EXPECT_EQ(out.dropped_extra_families, 3u);
}

TEST(SnapshotBuilderTest, DeviceDownReasonPrefersNoData) {
  std::vector<Reading> readings = {Reading::Unsupported("a", "d0", "no PMU"),
                                   Reading::NoData("b", "d0", "no data: GPU lost")};
  EXPECT_EQ(DeviceDownReason(readings, "d0"), "no data: GPU lost");
  EXPECT_EQ(DeviceDownReason(readings, "d1"), "no value this collection");
}

}  // namespace
}  // namespace xpuperf::exporter
