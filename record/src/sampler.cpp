#include "xpuperf/record/sampler.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::record {
namespace {

constexpr double kNsPerSecond = 1e9;
// A metric that no device supports (no RAPL here, no clock-event reasons on a CPU) is asked again
// only this often: a reason such as a missing sensor or a permission does not change at 1 kHz.
constexpr double kUnsupportedRetryS = 1.0;

bool IsCpuDevice(std::string_view device) { return device.starts_with("cpu"); }

}  // namespace

const std::vector<MetricSchedule>& RecordSchedule() {
  namespace m = metrics;
  static const std::vector<MetricSchedule> schedule = {
      {std::string(m::kPower), 0,
       "RAPL: counter updated about every 1 ms (power = Δenergy/Δt over the tick); NVML: 1 s "
       "running average on Ampere and later (GA100 and older: instantaneous); hwmon: the "
       "driver's update_interval"},
      {std::string(m::kEnergy), 0,
       "RAPL energy_uj: about every 1 ms; NVML total energy: driver counter in mJ; hwmon "
       "energyN_input: the driver's update_interval"},
      {std::string(m::kDutyCycle), 0.01,
       "CPU: /proc/stat ticks (USER_HZ = 100, so 10 ms resolution); NVML utilization.gpu: share "
       "of the driver's sample period (1/6 s to 1 s) a kernel ran"},
      {std::string(m::kMemoryUsed), 0.01,
       "/proc/meminfo and NVML memory info: current at each read (read at most every 10 ms)"},
      {std::string(m::kClockEventActive), 0, "NVML clock-event reasons: current at each read"},
      {std::string(m::kTemperature), 0.1,
       "hwmon: the driver's update_interval (often 1 s or more); NVML: about 1 s; sampled at "
       "most every 0.1 s"},
      {std::string(m::kClock), 0.1, "cpufreq scaling_cur_freq / NVML clocks: current at read"},
      {std::string(m::kProcessMemory), 0.1,
       "NVML compute processes: current at read (device memory of the job's pids)"},
      {std::string(m::kMemoryTotal), 60, "capacity: read at start and every 60 s"},
      {std::string(m::kErrors), 1, "EDAC / NVML ECC counters: read every 1 s"},
  };
  return schedule;
}

Sampler::Sampler(Session& session, SamplerOptions options, const Clock& clock)
    : session_(session), options_(std::move(options)), clock_(clock) {
  last_taken_ns_.assign(RecordSchedule().size(), INT64_MIN);
  retry_unsupported_ns_.assign(RecordSchedule().size(), INT64_MIN);
  if (options_.job_pid > 0) job_.emplace(options_.root, options_.job_pid, options_.page_size_bytes);
}

void Sampler::AttachJob(int pid) {
  options_.job_pid = pid;
  job_.emplace(options_.root, pid, options_.page_size_bytes);
  next_rescan_ns_ = INT64_MIN;
  last_job_read_ns_ = INT64_MIN;
}

Result<Tick> Sampler::Sample(SeriesTable& table) {
  Tick tick;
  tick.mono_ns = clock_.MonotonicNs();
  tick.wall_ns = clock_.WallNs();
  // A metric is due when its period has elapsed; half a tick of slack keeps a 10 ms metric on
  // every 10th tick at 1 kHz despite timer jitter.
  const double tick_s = options_.rate_hz > 0 ? 1.0 / options_.rate_hz : 0;
  std::vector<std::string>& due = due_;
  due.clear();
  const auto& schedule = RecordSchedule();
  for (size_t i = 0; i < schedule.size(); ++i) {
    const double period_s = std::max(0.0, schedule[i].min_period_s - tick_s / 2);
    const auto period_ns = static_cast<int64_t>(period_s * kNsPerSecond);
    if (last_taken_ns_[i] != INT64_MIN && tick.mono_ns - last_taken_ns_[i] < period_ns) continue;
    if (tick.mono_ns < retry_unsupported_ns_[i]) continue;
    last_taken_ns_[i] = tick.mono_ns;
    due.push_back(schedule[i].metric);
  }

  const double job_period_s = std::max(0.0, options_.job_memory_period_s - tick_s / 2);
  if (job_ &&
      (last_job_read_ns_ == INT64_MIN ||
       tick.mono_ns - last_job_read_ns_ >= static_cast<int64_t>(job_period_s * kNsPerSecond))) {
    last_job_read_ns_ = tick.mono_ns;
    const bool rescan = next_rescan_ns_ == INT64_MIN || tick.mono_ns >= next_rescan_ns_;
    JobTreeSnapshot snapshot = job_->Read(rescan);
    if (rescan) {
      const double wait_s =
          std::max(options_.tree_rescan_period_s, 1000 * job_->last_rescan_cpu_s());
      next_rescan_ns_ = tick.mono_ns + static_cast<int64_t>(wait_s * kNsPerSecond);
    }
    job_pids_ = snapshot.pids;
    job_alive_ = snapshot.root_alive;
    if (!snapshot.pids.empty()) {
      tick.values.push_back(
          {table.Intern(kJobMemory, "cpu0", {}), static_cast<double>(snapshot.resident_bytes)});
      tick.values.push_back(
          {table.Intern(kJobProcesses, "cpu0", {}), static_cast<double>(snapshot.pids.size())});
      peak_job_processes_ =
          std::max(peak_job_processes_, static_cast<int64_t>(snapshot.pids.size()));
    }
  }
  if (due.empty()) return tick;
  XPUPERF_ASSIGN_OR_RETURN(std::vector<Reading> readings, session_.Collect(due));
  AddReadings(readings, job_pids_, table, tick);
  BackOffUnsupported(due, readings, tick.mono_ns);
  return tick;
}

Sampler::InternedReading& Sampler::InternedFor(const Reading& reading) {
  for (InternedReading& entry : interned_) {
    if (entry.metric == reading.metric && entry.device == reading.device) return entry;
  }
  interned_.push_back(InternedReading{reading.metric, reading.device, {}, false});
  return interned_.back();
}

uint32_t Sampler::SeriesAt(InternedReading& entry, size_t position, const Labels& labels,
                           SeriesTable& table) {
  if (position < entry.samples.size() && entry.samples[position].first == labels) {
    return entry.samples[position].second;
  }
  const uint32_t series = table.Intern(entry.metric, entry.device, labels);
  if (position >= entry.samples.size()) entry.samples.resize(position + 1);
  entry.samples[position] = {labels, series};
  return series;
}

void Sampler::AddReadings(const std::vector<Reading>& readings, const std::vector<int>& job_pids,
                          SeriesTable& table, Tick& tick) {
  for (const Reading& reading : readings) {
    const auto key = [&reading] { return reading.metric + "|" + reading.device; };
    if (reading.metric == metrics::kProcessMemory) {
      // The host side of the job is the process tree (job_memory_bytes on cpu0); on devices, the
      // memory the job's pids hold, summed. Other processes' memory is not recorded.
      if (IsCpuDevice(reading.device) || !job_) continue;
      double held = 0;
      for (const xpuperf::Sample& s : reading.samples) {
        if (s.is_distribution()) continue;
        const std::string pid(s.labels.Get(labels::kPid));
        for (int job_pid : job_pids) {
          if (pid == std::to_string(job_pid)) held += s.scalar();
        }
      }
      if (reading.state == ReadingState::kOk || reading.state == ReadingState::kNoData) {
        if (reading.state == ReadingState::kOk) ever_ok_[key()] = true;
        tick.values.push_back({table.Intern(kJobMemory, reading.device, {}), held});
        continue;
      }
    }
    if (reading.state != ReadingState::kOk) {
      // Asked again at every due tick: only a new reason is copied.
      auto [it, added] = unavailable_.try_emplace(key());
      if (added || it->second.reason != reading.reason) {
        it->second = Unavailable{reading.metric, reading.device, reading.reason};
      }
      continue;
    }
    InternedReading& interned = InternedFor(reading);
    if (!interned.ever_ok) {
      interned.ever_ok = true;
      ever_ok_.emplace(key(), true);
    }
    for (size_t j = 0; j < reading.samples.size(); ++j) {
      const xpuperf::Sample& s = reading.samples[j];
      if (s.is_distribution() || !std::isfinite(s.scalar())) continue;
      tick.values.push_back({SeriesAt(interned, j, s.labels, table), s.scalar()});
      if (reading.metric == metrics::kMemoryTotal && s.labels.items().size() <= 1) {
        const auto bytes = static_cast<uint64_t>(s.scalar());
        capacity_[reading.device] = bytes;
        if (IsCpuDevice(reading.device) && host_memory_bytes_ == 0) host_memory_bytes_ = bytes;
      }
    }
  }
}

void Sampler::BackOffUnsupported(const std::vector<std::string>& due,
                                 const std::vector<Reading>& readings, int64_t now_ns) {
  const auto& schedule = RecordSchedule();
  for (size_t i = 0; i < schedule.size(); ++i) {
    if (std::find(due.begin(), due.end(), schedule[i].metric) == due.end()) continue;
    bool any_ok = false;
    for (const Reading& r : readings) {
      if (r.metric == schedule[i].metric && r.state != ReadingState::kUnsupported) any_ok = true;
    }
    if (!any_ok) {
      retry_unsupported_ns_[i] = now_ns + static_cast<int64_t>(kUnsupportedRetryS * kNsPerSecond);
    }
  }
}

std::vector<Unavailable> Sampler::NeverAvailable() const {
  std::vector<Unavailable> out;
  for (const auto& [key, entry] : unavailable_) {
    if (!ever_ok_.contains(key)) out.push_back(entry);
  }
  return out;
}

}  // namespace xpuperf::record
