#include "process_table.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "xpuperf/cpu/process_stats.h"

namespace xpuperf::telemetry {

ProcessTable::ProcessTable(std::string root, const Clock& clock, long ticks_per_second,
                           uint64_t page_bytes)
    : root_(std::move(root)),
      clock_(clock),
      ticks_per_second_(ticks_per_second),
      page_bytes_(page_bytes) {}

Status ProcessTable::Refresh() {
  namespace fs = std::filesystem;
  const fs::path proc = fs::path(root_) / "proc";
  std::error_code ec;
  fs::directory_iterator it(proc, ec);
  if (ec) {
    return MakeError(ErrorCode::kIo, "cannot list " + proc.string() + ": " + ec.message());
  }
  const int64_t now = clock_.MonotonicNs();
  const double seconds = last_ns_ < 0 ? 0 : static_cast<double>(now - last_ns_) * 1e-9;
  std::map<int, uint64_t> ticks;
  std::vector<ProcessUsage> usage;
  for (const fs::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    int pid = 0;
    if (std::from_chars(name.data(), name.data() + name.size(), pid).ec != std::errc{}) continue;
    auto snapshot = cpu::ReadProcessSnapshot(root_, pid, page_bytes_);
    if (!snapshot.ok()) continue;  // exited since the listing
    const cpu::ProcessStat& stat = snapshot->stat;
    const uint64_t cpu_ticks = stat.utime_ticks + stat.stime_ticks;
    ticks[stat.pid] = cpu_ticks;
    ProcessUsage u{stat.pid, stat.comm, 0, snapshot->resident_bytes};
    auto previous = last_ticks_.find(stat.pid);
    if (seconds > 0 && previous != last_ticks_.end() && cpu_ticks >= previous->second) {
      u.cpu_percent = 100.0 * static_cast<double>(cpu_ticks - previous->second) /
                      static_cast<double>(ticks_per_second_) / seconds;
    }
    usage.push_back(std::move(u));
  }
  last_ticks_ = std::move(ticks);
  last_ns_ = now;
  std::sort(usage.begin(), usage.end(), [](const ProcessUsage& a, const ProcessUsage& b) {
    if (a.cpu_percent != b.cpu_percent) return a.cpu_percent > b.cpu_percent;
    if (a.rss_bytes != b.rss_bytes) return a.rss_bytes > b.rss_bytes;
    return a.pid < b.pid;
  });
  current_ = std::move(usage);
  return Status::Ok();
}

std::string_view ProcessSortName(ProcessSort sort) {
  switch (sort) {
    case ProcessSort::kCpu:
      return "cpu";
    case ProcessSort::kMemory:
      return "memory";
    case ProcessSort::kPid:
      return "pid";
  }
  return "cpu";
}

std::vector<ProcessUsage> ProcessTable::Top(size_t limit, ProcessSort sort) const {
  std::vector<ProcessUsage> rows = current_;  // kept sorted by CPU share
  if (sort == ProcessSort::kMemory) {
    std::stable_sort(rows.begin(), rows.end(), [](const ProcessUsage& a, const ProcessUsage& b) {
      return a.rss_bytes > b.rss_bytes;
    });
  } else if (sort == ProcessSort::kPid) {
    std::sort(rows.begin(), rows.end(),
              [](const ProcessUsage& a, const ProcessUsage& b) { return a.pid < b.pid; });
  }
  rows.resize(std::min(limit, rows.size()));
  return rows;
}

}  // namespace xpuperf::telemetry
