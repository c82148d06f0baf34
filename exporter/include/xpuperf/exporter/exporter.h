// The exporter behind `xpuperf serve`: one collection thread per backend samples at the interval,
// off the scrape path; each completed collection is merged into an immutable Snapshot that
// /metrics serves, that SnapshotHistory keeps, and that listeners are told about.
//
// Extension points for other components (alert rules, bench-check results):
//  - AddSeriesProvider: extra families in every snapshot (so in /metrics and in the history);
//  - AddSnapshotListener: a callback after every new snapshot (e.g. to evaluate rules);
//  - history(): the recent snapshots, to evaluate "for 5m" conditions without Prometheus.
// Thread-safe unless a method says otherwise.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/core/backend.h"
#include "xpuperf/core/session.h"
#include "xpuperf/exporter/metric_family.h"
#include "xpuperf/exporter/snapshot_history.h"

namespace xpuperf::exporter {

// Returns families to add to each snapshot. Called on a collection thread each time a snapshot is
// assembled (up to once per backend per interval), so it must be fast (no I/O, no blocking), be
// thread-safe and never call back into the Exporter. Family names must start with `xpuperf_`,
// counters must end in `_total` and info families in `_info`, and a name may not be one the
// exporter already writes; a family breaking these rules is dropped (and counted in
// xpuperf_exporter_dropped_families_total).
using SeriesProvider = std::function<std::vector<MetricFamily>()>;

// Called after each new snapshot was appended to the history, on a collection thread: keep it
// short (hand heavy work to your own thread) and never call back into the Exporter.
using SnapshotListener = std::function<void(const std::shared_ptr<const Snapshot>&)>;

// Extra labels for a device's series (Kubernetes: pod, namespace, container), one label set per
// consumer of the device; empty = none. Must be fast and thread-safe (it reads a cached mapping).
using DeviceAttribution = std::function<std::vector<Labels>(const Device&)>;

// The jobs using each device and process (Slurm: slurm_jobs.h), as label sets {job_id, user,
// partition, source} for xpuperf_job_info; a process's job also puts job_id on its per-process
// series. Both must be fast and thread-safe (they read a cached mapping); either may be empty.
// process_labels: more labels for a process's per-process series (the workload identity from its
// environment: env_rank, env_local_rank, ...); they never replace a label the series has.
struct JobAttribution {
  std::function<std::vector<Labels>(const Device&)> device_jobs;
  std::function<std::optional<Labels>(int pid)> process_job;
  std::function<Labels(int pid)> process_labels;
  // The pod of a process ({pod, namespace, container}; empty when unknown), for its per-process
  // series on a device several pods share.
  std::function<Labels(int pid)> process_pod;
  // The allowed labels of a pod (label_<key>) for its xpuperf_device_pod_info series.
  std::function<Labels(const std::string& namespace_name, const std::string& pod)> pod_labels;
};

struct ExporterOptions {
  const BackendRegistry* registry = nullptr;  // required; outlives the exporter
  BackendOptions backend;                     // root, clock
  // Backends to collect; empty = every registered backend that opens here. A backend named here
  // that cannot open makes Start fail with the reason.
  std::vector<std::string> backends;
  std::vector<std::string> metrics;  // catalog names to export; empty = all
  double interval_seconds = 1;       // collection period per backend
  // A collection still running after this long marks its backend down (its series are dropped,
  // never served stale) until it returns. 0 = max(2 * interval, 2 s).
  double deadline_seconds = 0;
  std::string hostname;  // value of the `hostname` label; empty = none
  // How far back history() reaches. It keeps one snapshot per interval (about 80 KB each for a
  // node with 8 GPUs), so 300 s at 1 s is about 25 MB at most.
  double history_seconds = 300;
  DeviceAttribution attribution;  // may be empty
  JobAttribution jobs;            // may be empty
  // In-process data (Recorder::Global() of an instrumented program serving its own /metrics, e.g.
  // xpuperf.serve() in Python): op execution-time and transfer-latency distributions and queue
  // sizes, merged into the cpu backend's session (else the first one's). Must outlive the
  // exporter; null = none (`xpuperf serve`, a process of its own).
  const Recorder* recorder = nullptr;
};

// The state of one backend's collector, for /health.
struct CollectorState {
  std::string backend;
  bool up = false;
  std::string reason;                // why it is down; empty when up
  int64_t last_success_ns = 0;       // wall clock of the last complete collection; 0 = never
  double last_duration_seconds = 0;  // of the last complete collection
};

struct DeviceState {
  std::string id;
  std::string backend;
  bool up = false;
  std::string reason;  // why it is down (e.g. "no data: GPU lost (fell off the bus) ...")
};

// Where one energy series' latest increments come from: the device's counter, or the integral of
// its power where the counter failed the check against it (core/energy_check.h).
struct EnergyState {
  std::string device;
  std::string labels;   // the series' own labels, {domain="package-0"}
  std::string source;   // "counter" or "power_integral"
  std::string verdict;  // "ok", "stalled", "disagrees", "unchecked"
  std::string detail;   // the check's sentence
};

struct HealthReport {
  bool healthy = false;  // every collector completed a collection within 3 intervals
  std::vector<CollectorState> collectors;
  std::vector<DeviceState> devices;
  std::vector<EnergyState> energy;
  std::vector<BackendStatus> unavailable;  // backends that did not open (not asked for by name)
};

// What `metrics --json` prints, as of the latest collection of every backend.
struct RawSnapshot {
  int64_t timestamp_ns = 0;
  double window_seconds = 0;
  std::vector<Device> devices;
  std::vector<BackendStatus> backends;
  std::vector<Reading> readings;
};

class Exporter {
 public:
  // Opens the backends (in parallel: a slow runtime delays only its own open) and starts the
  // collection threads.
  static Result<std::unique_ptr<Exporter>> Start(ExporterOptions options);
  ~Exporter();  // stops and joins the threads (a collector stuck in a vendor call is detached)
  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;

  void AddSeriesProvider(std::string name, SeriesProvider provider);
  void AddSnapshotListener(SnapshotListener listener);

  // The latest snapshot (never null: before the first collection it holds the exporter's own
  // series only).
  std::shared_ptr<const Snapshot> Latest() const;
  // Increases each time a new snapshot is assembled; lets servers cache what they render.
  uint64_t generation() const;
  const SnapshotHistory& history() const;
  HealthReport Health() const;
  RawSnapshot Raw() const;
  double interval_seconds() const;

  // Assembles a snapshot now from the latest collections (normally done after each collection).
  void Refresh();

  class Impl;

 private:
  explicit Exporter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xpuperf::exporter
