#include "process_monitor.h"

#include "cpu_readings.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/cpu/process_stats.h"

namespace xpuperf::cpu {
namespace {

constexpr double kNanosecondsPerSecond = 1e9;

Labels ProcessLabels(int pid, const std::string& command) {
  return Labels{{std::string(labels::kPid), std::to_string(pid)}, {"command", command}};
}

}  // namespace

ProcessMonitor::ProcessMonitor(std::string root, std::vector<int> pids,
                               uint64_t clock_ticks_per_second, uint64_t page_size_bytes,
                               int64_t now_ns)
    : root_(std::move(root)),
      pids_(std::move(pids)),
      clock_ticks_per_second_(clock_ticks_per_second),
      page_size_bytes_(page_size_bytes) {
  for (int pid : pids_) {
    Result<ProcessSnapshot> snapshot = ReadProcessSnapshot(root_, pid, page_size_bytes_);
    if (!snapshot.ok()) continue;  // reported on every Collect while it stays missing
    baselines_[pid] = CpuBaseline{snapshot->stat.utime_ticks + snapshot->stat.stime_ticks,
                                  snapshot->stat.start_time_ticks, now_ns};
  }
}

std::string ProcessMonitor::NoSampleReason(const std::vector<std::string>& problems) const {
  if (pids_.empty()) return "no data: no process selected (use --pid)";
  std::string reason = "no data: ";
  for (size_t i = 0; i < problems.size(); ++i) reason += (i > 0 ? "; " : "") + problems[i];
  return reason;
}

Reading ProcessMonitor::Cpu(int64_t now_ns, int64_t wall_ns) {
  Reading reading = OkReading(metrics::kProcessCpu);
  std::vector<std::string> problems;
  for (int pid : pids_) {
    Result<ProcessSnapshot> snapshot = ReadProcessSnapshot(root_, pid, page_size_bytes_);
    if (!snapshot.ok()) {
      baselines_.erase(pid);
      problems.push_back(snapshot.error().message);
      continue;
    }
    const uint64_t cpu_ticks = snapshot->stat.utime_ticks + snapshot->stat.stime_ticks;
    const CpuBaseline current{cpu_ticks, snapshot->stat.start_time_ticks, now_ns};
    auto baseline = baselines_.find(pid);
    if (baseline == baselines_.end() ||
        baseline->second.start_time_ticks != current.start_time_ticks) {
      baselines_[pid] = current;
      problems.push_back("process " + std::to_string(pid) +
                         " seen for the first time; CPU% needs a second sample");
      continue;
    }
    const int64_t elapsed_ns = now_ns - baseline->second.taken_ns;
    if (elapsed_ns <= 0) {
      problems.push_back("no time elapsed since the previous sample of process " +
                         std::to_string(pid));
      continue;
    }
    const uint64_t used_ticks =
        cpu_ticks > baseline->second.cpu_ticks ? cpu_ticks - baseline->second.cpu_ticks : 0;
    const double used_s =
        static_cast<double>(used_ticks) / static_cast<double>(clock_ticks_per_second_);
    const double elapsed_s = static_cast<double>(elapsed_ns) / kNanosecondsPerSecond;
    baseline->second = current;
    reading.samples.push_back(
        MakeSample(100.0 * used_s / elapsed_s, wall_ns, ProcessLabels(pid, snapshot->stat.comm)));
  }
  if (reading.samples.empty()) return NoDataReading(metrics::kProcessCpu, NoSampleReason(problems));
  return reading;
}

Reading ProcessMonitor::Memory(int64_t wall_ns) {
  Reading reading = OkReading(metrics::kProcessMemory);
  std::vector<std::string> problems;
  for (int pid : pids_) {
    Result<ProcessSnapshot> snapshot = ReadProcessSnapshot(root_, pid, page_size_bytes_);
    if (!snapshot.ok()) {
      problems.push_back(snapshot.error().message);
      continue;
    }
    reading.samples.push_back(MakeSample(static_cast<double>(snapshot->resident_bytes), wall_ns,
                                         ProcessLabels(pid, snapshot->stat.comm)));
  }
  if (reading.samples.empty()) {
    return NoDataReading(metrics::kProcessMemory, NoSampleReason(problems));
  }
  return reading;
}

}  // namespace xpuperf::cpu
