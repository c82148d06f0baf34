// The job's process tree from procfs: the root pid and every descendant, and their resident memory.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::record {

struct JobTreeSnapshot {
  std::vector<int> pids;        // the root first, then descendants in pid order
  uint64_t resident_bytes = 0;  // Σ RSS (statm resident pages × page size); shared pages count
                                // once per process that maps them, as `ps` and `top` count them
  bool root_alive = false;
};

// Not thread-safe. Reads `root`/proc (tests point it at a recorded tree).
class JobTree {
 public:
  JobTree(const std::string& root, int root_pid, uint64_t page_size_bytes);

  // Rescans the process list when `rescan` is true (the members' /proc/PID/task/TID/children
  // where the kernel has them, else the parent links of every /proc/PID/stat), then sums the RSS
  // of the known members; members that exited drop out.
  JobTreeSnapshot Read(bool rescan);
  // CPU time (s) the last rescan took: a full /proc scan costs milliseconds on a busy host, so
  // callers space rescans by it.
  double last_rescan_cpu_s() const { return last_rescan_cpu_s_; }

 private:
  void Rescan();
  bool RescanFromChildrenFiles();

  std::string proc_;
  int root_pid_;
  uint64_t page_size_bytes_;
  std::vector<int> members_;
  double last_rescan_cpu_s_ = 0;
};

// The parent pid (field 4) of a /proc/PID/stat line; comm may hold spaces and parentheses.
Result<int> ParseParentPid(std::string_view stat_line);
// The state letter (field 3) of a /proc/PID/stat line: R, S, D, Z (exited, not yet reaped), ...
Result<char> ParseProcessState(std::string_view stat_line);
// Whether PID is a live process: it exists and has not exited. A zombie (exited, its parent has
// not reaped it yet) answers kill(pid, 0) but is no longer running.
bool ProcessIsRunning(int pid);
// Resident pages (field 2) of /proc/PID/statm.
Result<uint64_t> ParseResidentPages(std::string_view statm);

}  // namespace xpuperf::record
