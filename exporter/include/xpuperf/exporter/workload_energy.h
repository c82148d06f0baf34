// Energy per job and per pod (Kepler's job, for accelerators): the increase of each device's
// xpuperf_energy_joules_total between two snapshots, split among the jobs and the pods on the
// device at the end of that interval, accumulated into counters.
//
// The rule, for each accelerator (not the CPU backend, whose RAPL domains overlap) and each
// interval in which its energy counter rose by ΔE:
//  - jobs (xpuperf_job_info of the device): when the device's processes report engine busy
//    (xpuperf_process_engine_busy_ratio), each job gets ΔE × the share of the busy time of its
//    processes (a process's busy is the largest of its engines'; the share of processes in no job
//    is left unattributed); when no process was busy (idle, or no per-process utilisation) or no
//    busy process is known to be a job's (its processes in another pid namespace), ΔE is split
//    evenly among the device's jobs: an allocated device's idle power is its jobs';
//  - pods (xpuperf_device_pod_info, from the kubelet's pod-resources): the same rule with the pod
//    labels of the busy processes (a shared device's processes get theirs from process_pods.h),
//    else ΔE split evenly among the pods holding the device;
//  - an interval with no job (no pod) on the device is not attributed; a counter that went down
//    (a restart) adds nothing for that interval.
// Counters of a job or pod that gained nothing for `retention_seconds` are dropped, and at most
// `max_series` are kept (the oldest dropped first), so ended jobs do not grow the exposition.
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "xpuperf/exporter/metric_family.h"

namespace xpuperf::exporter {

struct WorkloadEnergyOptions {
  double retention_seconds = 3600;
  size_t max_series = 10000;
};

class WorkloadEnergy {
 public:
  explicit WorkloadEnergy(WorkloadEnergyOptions options = {}) : options_(options) {}

  // Reads one snapshot (the exporter assembles one per backend collection; a device whose counter
  // did not move since the last one adds nothing).
  void Observe(const Snapshot& snapshot);
  // xpuperf_job_energy_joules_total{job_id, hostname} and
  // xpuperf_pod_energy_joules_total{namespace, pod, hostname}; empty families are left out.
  std::vector<MetricFamily> Families() const;

 private:
  struct Counter {
    Labels labels;
    double joules = 0;
    int64_t last_increase_ns = 0;
  };
  void Add(std::map<std::string, Counter>& counters, const Labels& labels, double joules,
           int64_t now_ns);
  void Expire(std::map<std::string, Counter>& counters, int64_t now_ns);

  WorkloadEnergyOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, double> last_energy_;  // device key -> counter value at the last look
  std::map<std::string, Counter> jobs_;
  std::map<std::string, Counter> pods_;
};

}  // namespace xpuperf::exporter
