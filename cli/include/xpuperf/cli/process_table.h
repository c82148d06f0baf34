// The host's processes for `xpuperf top`: CPU share and resident memory from root/proc/PID/stat.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/clock.h"
#include "xpuperf/core/status.h"

namespace xpuperf::cli {

struct ProcessStat {
  int pid = 0;
  std::string command;     // comm, as the kernel reports it
  uint64_t cpu_ticks = 0;  // utime + stime, in clock ticks
  uint64_t rss_pages = 0;
};

// Parses the text of /proc/PID/stat (the command may contain spaces and parentheses).
Result<ProcessStat> ParseProcessStat(std::string_view text);

struct ProcessUsage {
  int pid = 0;
  std::string command;
  double cpu_percent = 0;  // 100 = one core busy for the whole interval
  uint64_t rss_bytes = 0;
};

// Tracks processes between refreshes. Not thread-safe.
class ProcessTable {
 public:
  ProcessTable(std::string root, const Clock& clock, long ticks_per_second, long page_bytes);
  // Rescans root/proc. Processes that vanish between listing and reading are skipped.
  Status Refresh();
  // Sorted by CPU share, then memory; at most `limit` rows. CPU is 0 on the first refresh.
  std::vector<ProcessUsage> Top(size_t limit) const;

 private:
  std::string root_;
  const Clock& clock_;
  long ticks_per_second_;
  long page_bytes_;
  int64_t last_ns_ = -1;
  std::map<int, uint64_t> last_ticks_;
  std::vector<ProcessUsage> current_;
};

}  // namespace xpuperf::cli
