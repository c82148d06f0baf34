#include "xpuperf/exporter/workload_energy.h"

#include <algorithm>
#include <set>

namespace xpuperf::exporter {
namespace {

// hostname + device: one energy series per device.
std::string DeviceKey(const Labels& labels) {
  return std::string(labels.Get("hostname")) + "/" + std::string(labels.Get("device"));
}

// Each owner's share of a device's interval: its processes' share of the busy time (`owner_of`:
// pid -> owner, for the processes known to be one's); evenly among `owners` when nothing was busy
// or no busy process is known to be an owner's.
std::map<std::string, double> Shares(const std::set<std::string>& owners,
                                     const std::map<std::string, double>& busy,
                                     const std::map<std::string, std::string>& owner_of) {
  std::map<std::string, double> share;
  double total_busy = 0;
  for (const auto& [pid, b] : busy) total_busy += b;
  double attributed = 0;
  if (total_busy > 0) {
    for (const auto& [pid, owner] : owner_of) {
      const double fraction = busy.at(pid) / total_busy;
      share[owner] += fraction;
      attributed += fraction;
    }
  }
  if (!(attributed > 0)) {
    share.clear();
    for (const std::string& owner : owners) share[owner] = 1.0 / static_cast<double>(owners.size());
  }
  return share;
}

Labels WithHost(const Labels& from, std::initializer_list<std::string_view> keys) {
  Labels labels;
  for (std::string_view key : keys) {
    if (!from.Get(key).empty()) labels.Set(key, from.Get(key));
  }
  return labels;
}

}  // namespace

void WorkloadEnergy::Observe(const Snapshot& snapshot) {
  const MetricFamily* energy = snapshot.Find("xpuperf_energy_joules_total");
  if (energy == nullptr) return;
  // Per device: its counter (the series without extra labels beyond the pod's, once), its pods.
  struct DeviceState {
    double joules = -1;
    std::set<std::string> pods;  // "namespace/pod"
    Labels host;
  };
  std::map<std::string, DeviceState> devices;
  for (const ScalarPoint& p : energy->points) {
    if (p.labels.Get("backend") == "cpu" || p.labels.Get("device").empty()) continue;
    DeviceState& d = devices[DeviceKey(p.labels)];
    d.joules = std::max(d.joules, p.value);
    d.host = WithHost(p.labels, {"hostname"});
  }
  if (const MetricFamily* holders = snapshot.Find("xpuperf_device_pod_info")) {
    for (const ScalarPoint& p : holders->points) {
      auto d = devices.find(DeviceKey(p.labels));
      if (d == devices.end() || p.labels.Get("pod").empty()) continue;
      d->second.pods.insert(std::string(p.labels.Get("namespace")) + "/" +
                            std::string(p.labels.Get("pod")));
    }
  }
  // Jobs per device, and each job's busy share from its processes.
  std::map<std::string, std::set<std::string>> jobs;  // device key -> job ids
  if (const MetricFamily* info = snapshot.Find("xpuperf_job_info")) {
    for (const ScalarPoint& p : info->points) {
      jobs[DeviceKey(p.labels)].insert(std::string(p.labels.Get("job_id")));
    }
  }
  std::map<std::string, std::map<std::string, double>> busy;  // device -> pid -> largest engine
  std::map<std::string, std::map<std::string, std::string>> job_of;  // device -> pid -> job
  std::map<std::string, std::map<std::string, std::string>> pod_of;  // device -> pid -> ns/pod
  if (const MetricFamily* engines = snapshot.Find("xpuperf_process_engine_busy_ratio")) {
    for (const ScalarPoint& p : engines->points) {
      const std::string device = DeviceKey(p.labels);
      const std::string pid(p.labels.Get("pid"));
      double& b = busy[device][pid];
      b = std::max(b, p.value);
      if (!p.labels.Get("job_id").empty()) job_of[device][pid] = p.labels.Get("job_id");
      if (!p.labels.Get("pod").empty()) {
        pod_of[device][pid] =
            std::string(p.labels.Get("namespace")) + "/" + std::string(p.labels.Get("pod"));
      }
    }
  }

  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t now = snapshot.timestamp_ns;
  for (const auto& [device, state] : devices) {
    if (state.joules < 0) continue;
    auto last = last_energy_.find(device);
    const double previous = last == last_energy_.end() ? state.joules : last->second;
    last_energy_[device] = state.joules;
    const double delta = state.joules - previous;
    if (!(delta > 0)) continue;  // first look, no change, or a counter that went down
    // Jobs.
    if (!jobs[device].empty()) {
      for (const auto& [job, fraction] : Shares(jobs[device], busy[device], job_of[device])) {
        Labels labels = state.host;
        labels.Set("job_id", job);
        Add(jobs_, labels, delta * fraction, now);
      }
    }
    if (!state.pods.empty()) {
      for (const auto& [pod, fraction] : Shares(state.pods, busy[device], pod_of[device])) {
        const size_t slash = pod.find('/');
        Labels labels = state.host;
        labels.Set("namespace", pod.substr(0, slash));
        labels.Set("pod", pod.substr(slash + 1));
        Add(pods_, labels, delta * fraction, now);
      }
    }
  }
  Expire(jobs_, now);
  Expire(pods_, now);
}

void WorkloadEnergy::Add(std::map<std::string, Counter>& counters, const Labels& labels,
                         double joules, int64_t now_ns) {
  if (!(joules > 0)) return;
  Counter& c = counters[labels.ToString()];
  c.labels = labels;
  c.joules += joules;
  c.last_increase_ns = now_ns;
}

void WorkloadEnergy::Expire(std::map<std::string, Counter>& counters, int64_t now_ns) {
  const auto retention = static_cast<int64_t>(options_.retention_seconds * 1e9);
  for (auto it = counters.begin(); it != counters.end();) {
    it = now_ns - it->second.last_increase_ns > retention ? counters.erase(it) : std::next(it);
  }
  while (counters.size() > options_.max_series) {
    auto oldest = std::min_element(counters.begin(), counters.end(), [](auto& a, auto& b) {
      return a.second.last_increase_ns < b.second.last_increase_ns;
    });
    counters.erase(oldest);
  }
}

std::vector<MetricFamily> WorkloadEnergy::Families() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<MetricFamily> out;
  const auto family = [&](const char* name, const char* help,
                          const std::map<std::string, Counter>& counters) {
    MetricFamily f{name, help, FamilyType::kCounter, {}, {}};
    for (const auto& [key, c] : counters) f.points.push_back(ScalarPoint{c.labels, c.joules});
    if (!f.empty()) out.push_back(std::move(f));
  };
  family("xpuperf_job_energy_joules_total",
         "Energy of the node's accelerators attributed to the job (J): each interval's increase "
         "of a device's energy split by its jobs' share of its processes' busy time, or evenly "
         "when none was busy (docs/EXPORTER.md)",
         jobs_);
  family("xpuperf_pod_energy_joules_total",
         "Energy of the node's accelerators attributed to the pod (J): each interval's increase of "
         "a device's energy split evenly among the pods holding it (docs/EXPORTER.md)",
         pods_);
  return out;
}

}  // namespace xpuperf::exporter
