// Energy per job and per pod: the worked example of docs/EXPORTER.md, an idle interval, a counter
// restart, repeated snapshots of one collection, and expiry.
#include "xpuperf/exporter/workload_energy.h"

#include <gtest/gtest.h>

namespace xpuperf::exporter {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

Labels Device(const std::string& device,
              std::initializer_list<std::pair<const char*, const char*>> extra = {}) {
  Labels labels{{"hostname", "n1"}, {"backend", "nvidia"}, {"device", device}};
  for (const auto& [key, value] : extra) labels.Set(key, value);
  return labels;
}

// A snapshot: nvidia0's energy, two jobs on it, their processes' busy ratios.
Snapshot At(int64_t seconds, double joules, double busy_a, double busy_b) {
  Snapshot s;
  s.timestamp_ns = seconds * kSecond;
  s.families.push_back(MetricFamily{"xpuperf_energy_joules_total",
                                    "",
                                    FamilyType::kCounter,
                                    {ScalarPoint{Device("nvidia0"), joules}},
                                    {}});
  s.families.push_back(
      MetricFamily{"xpuperf_job_info",
                   "",
                   FamilyType::kInfo,
                   {ScalarPoint{Device("nvidia0", {{"job_id", "11"}, {"source", "cgroup"}}), 1},
                    ScalarPoint{Device("nvidia0", {{"job_id", "12"}, {"source", "cgroup"}}), 1}},
                   {}});
  s.families.push_back(MetricFamily{
      "xpuperf_process_engine_busy_ratio",
      "",
      FamilyType::kGauge,
      {ScalarPoint{Device("nvidia0", {{"pid", "100"}, {"engine", "sm"}, {"job_id", "11"}}), busy_a},
       ScalarPoint{Device("nvidia0", {{"pid", "100"}, {"engine", "memory"}, {"job_id", "11"}}),
                   busy_a / 2},
       ScalarPoint{Device("nvidia0", {{"pid", "200"}, {"engine", "sm"}, {"job_id", "12"}}),
                   busy_b}},
      {}});
  return s;
}

double Value(const std::vector<MetricFamily>& families, const std::string& name,
             const std::string& key, const std::string& value) {
  for (const MetricFamily& f : families) {
    if (f.name != name) continue;
    for (const ScalarPoint& p : f.points) {
      if (p.labels.Get(key) == value) return p.value;
    }
  }
  return -1;
}

TEST(WorkloadEnergyTest, TheWorkedExample) {
  WorkloadEnergy energy;
  energy.Observe(At(0, 1000, 0.6, 0.2));  // the first look: a baseline, nothing attributed
  EXPECT_TRUE(energy.Families().empty());
  // 10 s later the device used 3000 J; job 11's process was busy 0.6 (its largest engine), job
  // 12's 0.2: 3000 x 0.75 = 2250 J and 3000 x 0.25 = 750 J.
  energy.Observe(At(10, 4000, 0.6, 0.2));
  auto families = energy.Families();
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_job_energy_joules_total", "job_id", "11"), 2250);
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_job_energy_joules_total", "job_id", "12"), 750);
  // The same collection seen again (another backend's snapshot): nothing added.
  energy.Observe(At(11, 4000, 0.6, 0.2));
  EXPECT_DOUBLE_EQ(Value(energy.Families(), "xpuperf_job_energy_joules_total", "job_id", "11"),
                   2250);
  // Idle: 600 J split evenly between the two jobs holding the device.
  energy.Observe(At(20, 4600, 0, 0));
  families = energy.Families();
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_job_energy_joules_total", "job_id", "11"), 2550);
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_job_energy_joules_total", "job_id", "12"), 1050);
  // Busy processes, none known to be a job's (say, in another pid namespace): split evenly.
  Snapshot foreign = At(25, 5600, 0, 0);
  foreign.families[2].points.push_back(
      ScalarPoint{Device("nvidia0", {{"pid", "900"}, {"engine", "sm"}}), 0.9});
  energy.Observe(foreign);
  families = energy.Families();
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_job_energy_joules_total", "job_id", "11"), 3050);
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_job_energy_joules_total", "job_id", "12"), 1550);
  // A counter that went down (a driver reload): that interval adds nothing, the next counts.
  energy.Observe(At(30, 100, 0.5, 0.5));
  energy.Observe(At(40, 300, 0.5, 0.5));
  families = energy.Families();
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_job_energy_joules_total", "job_id", "11"), 3150);
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_job_energy_joules_total", "job_id", "12"), 1650);
}

TEST(WorkloadEnergyTest, PodsSplitADeviceEvenlyAndEndedJobsExpire) {
  WorkloadEnergy energy({/*retention_seconds=*/60, /*max_series=*/10});
  const auto pods = [](int64_t seconds, double joules) {
    Snapshot s;
    s.timestamp_ns = seconds * kSecond;
    s.families.push_back(
        MetricFamily{"xpuperf_energy_joules_total",
                     "",
                     FamilyType::kCounter,
                     {ScalarPoint{Device("nvidia1"), joules},
                      ScalarPoint{Labels{{"backend", "cpu"}, {"device", "cpu0"}}, joules * 10}},
                     {}});
    s.families.push_back(MetricFamily{
        "xpuperf_device_pod_info",
        "",
        FamilyType::kInfo,
        {ScalarPoint{Device("nvidia1", {{"namespace", "serving"}, {"pod", "infer-1"}}), 1},
         ScalarPoint{Device("nvidia1", {{"namespace", "serving"}, {"pod", "infer-2"}}), 1}},
        {}});
    return s;
  };
  energy.Observe(pods(0, 500));
  energy.Observe(pods(5, 900));
  auto families = energy.Families();
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_pod_energy_joules_total", "pod", "infer-1"), 200);
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_pod_energy_joules_total", "pod", "infer-2"), 200);
  // The pods' processes report busy time (each with its pod, from process_pods.h): 0.3 and 0.1
  // split the next 400 J 300 / 100.
  Snapshot busy = pods(10, 1300);
  busy.families.push_back(MetricFamily{
      "xpuperf_process_engine_busy_ratio",
      "",
      FamilyType::kGauge,
      {ScalarPoint{Device("nvidia1", {{"pid", "1"}, {"namespace", "serving"}, {"pod", "infer-1"}}),
                   0.3},
       ScalarPoint{Device("nvidia1", {{"pid", "2"}, {"namespace", "serving"}, {"pod", "infer-2"}}),
                   0.1}},
      {}});
  energy.Observe(busy);
  families = energy.Families();
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_pod_energy_joules_total", "pod", "infer-1"), 500);
  EXPECT_DOUBLE_EQ(Value(families, "xpuperf_pod_energy_joules_total", "pod", "infer-2"), 300);
  EXPECT_EQ(Value(families, "xpuperf_job_energy_joules_total", "job_id", "11"), -1);  // no jobs
  // A job seen once, then gone for longer than the retention: its counter is dropped.
  energy.Observe(At(10, 1000, 1, 0));
  energy.Observe(At(20, 2000, 1, 0));
  EXPECT_DOUBLE_EQ(Value(energy.Families(), "xpuperf_job_energy_joules_total", "job_id", "11"),
                   1000);
  energy.Observe(pods(200, 1500));
  EXPECT_EQ(Value(energy.Families(), "xpuperf_job_energy_joules_total", "job_id", "11"), -1);
}

}  // namespace
}  // namespace xpuperf::exporter
