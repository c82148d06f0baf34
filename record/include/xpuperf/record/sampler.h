// One sampling tick over a session: each metric at its own period (never faster than its source
// can say something new), plus the job's process tree. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "xpuperf/core/clock.h"
#include "xpuperf/core/session.h"
#include "xpuperf/record/job_tree.h"
#include "xpuperf/record/timeline.h"

namespace xpuperf::record {

// What the recorder reads for one metric: how often, and how often its source really updates.
struct MetricSchedule {
  std::string metric;
  double min_period_s = 0;    // sampled at most this often (0 = every tick)
  std::string source_update;  // the source's own update period, in words
};

// The metrics `record` samples and their sources' update periods.
const std::vector<MetricSchedule>& RecordSchedule();

struct SamplerOptions {
  double rate_hz = 10;
  std::string root = "/";  // system root for procfs (recorded trees in tests)
  int job_pid = 0;         // root of the job's process tree; 0 = none (system-wide)
  uint64_t page_size_bytes = 4096;
  // New children are looked for this often, and never more often than 1000 × the CPU time the
  // last rescan took (a full /proc scan on a busy host), so rescans stay under 0.1% of a core.
  double tree_rescan_period_s = 0.5;
  double job_memory_period_s = 0.01;  // the tree's RSS is summed at most this often
};

// Why a metric gave no value on a device: the last reason seen, and whether it ever had a value.
struct Unavailable {
  std::string metric;
  std::string device;
  std::string reason;
};

class Sampler {
 public:
  Sampler(Session& session, SamplerOptions options, const Clock& clock);

  // Follows the process tree of `pid` from the next tick on (a job started after the baseline).
  void AttachJob(int pid);

  // Reads the due metrics and the job tree into one tick; series are interned into `table`.
  Result<Tick> Sample(SeriesTable& table);

  // Metrics that never gave a value on a device, with the latest reason.
  std::vector<Unavailable> NeverAvailable() const;
  // Host RAM (bytes) from the first memory_total_bytes of a cpu device (0 when unknown).
  uint64_t host_memory_bytes() const { return host_memory_bytes_; }
  std::map<std::string, uint64_t> device_memory_bytes() const { return capacity_; }
  int64_t peak_job_processes() const { return peak_job_processes_; }
  // Whether the job's root process is still alive at the last tick (true without a job).
  bool job_alive() const { return job_alive_; }

 private:
  void AddReadings(const std::vector<Reading>& readings, const std::vector<int>& job_pids,
                   SeriesTable& table, Tick& tick);
  // The series of a reading's j-th sample: a backend returns a metric's samples in the same order
  // with the same labels tick after tick, so the series found last time is reused after one
  // comparison of labels, without building its key.
  struct InternedReading {
    std::string metric, device;
    std::vector<std::pair<Labels, uint32_t>> samples;  // by position: labels, series
    bool ever_ok = false;
  };
  InternedReading& InternedFor(const Reading& reading);
  static uint32_t SeriesAt(InternedReading& entry, size_t position, const Labels& labels,
                           SeriesTable& table);

  // Metrics that every device reported unsupported are skipped until their retry time.
  void BackOffUnsupported(const std::vector<std::string>& due, const std::vector<Reading>& readings,
                          int64_t now_ns);

  Session& session_;
  SamplerOptions options_;
  const Clock& clock_;
  std::optional<JobTree> job_;
  std::vector<int64_t> last_taken_ns_;         // per RecordSchedule() entry; INT64_MIN = never
  std::vector<int64_t> retry_unsupported_ns_;  // per entry: not asked before this (monotonic ns)
  int64_t next_rescan_ns_ = INT64_MIN;
  int64_t last_job_read_ns_ = INT64_MIN;
  std::vector<int> job_pids_;
  bool job_alive_ = true;
  int64_t peak_job_processes_ = 0;
  uint64_t host_memory_bytes_ = 0;
  std::map<std::string, uint64_t> capacity_;        // device -> memory_total_bytes
  std::map<std::string, Unavailable> unavailable_;  // "metric|device"
  std::map<std::string, bool> ever_ok_;             // "metric|device"
  std::vector<InternedReading> interned_;           // per (metric, device) seen
  std::vector<std::string> due_;                    // this tick's metrics (reused buffer)
};

}  // namespace xpuperf::record
