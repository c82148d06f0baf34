// The host's processes for `xpuperf top`: CPU share and resident memory of every process under
// root/proc, read with the CPU backend's process readers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "xpuperf/core/clock.h"
#include "xpuperf/core/status.h"

namespace xpuperf::telemetry {

// How `top` orders processes: by CPU share (then memory), by resident memory, by pid.
enum class ProcessSort { kCpu, kMemory, kPid };
std::string_view ProcessSortName(ProcessSort sort);  // "cpu", "memory", "pid"

struct ProcessUsage {
  int pid = 0;
  std::string command;
  double cpu_percent = 0;  // 100 = one core busy for the whole interval
  uint64_t rss_bytes = 0;
};

// Tracks processes between refreshes. Not thread-safe.
class ProcessTable {
 public:
  ProcessTable(std::string root, const Clock& clock, long ticks_per_second, uint64_t page_bytes);
  // Rescans root/proc. Processes that vanish between listing and reading are skipped.
  Status Refresh();
  // Sorted by CPU share, then memory (or as `sort` says); at most `limit` rows. CPU is 0 on the
  // first refresh.
  std::vector<ProcessUsage> Top(size_t limit, ProcessSort sort = ProcessSort::kCpu) const;

 private:
  std::string root_;
  const Clock& clock_;
  long ticks_per_second_;
  uint64_t page_bytes_;
  int64_t last_ns_ = -1;
  std::map<int, uint64_t> last_ticks_;
  std::vector<ProcessUsage> current_;
};

}  // namespace xpuperf::telemetry
