// /proc/stat: CPU time per logical CPU (in clock ticks, USER_HZ) and the run-queue counters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::cpu {

// Cumulative time in clock ticks (USER_HZ, normally 1/100 s) since boot, as /proc/stat reports it.
// guest and guest_nice are already included in user and nice by the kernel.
struct CpuTimes {
  uint64_t user = 0;
  uint64_t nice = 0;
  uint64_t system = 0;
  uint64_t idle = 0;
  uint64_t iowait = 0;
  uint64_t irq = 0;
  uint64_t softirq = 0;
  uint64_t steal = 0;
  uint64_t guest = 0;
  uint64_t guest_nice = 0;
};

struct CpuTimesOfCpu {
  int cpu = 0;  // logical CPU number from the "cpuN" line
  CpuTimes times;
};

struct ProcStat {
  CpuTimes total;                      // the aggregate "cpu" line
  std::vector<CpuTimesOfCpu> per_cpu;  // "cpuN" lines, in file order
  // Runnable threads right now, including the one reading the file; absent on very old kernels.
  std::optional<uint64_t> procs_running;
  std::optional<uint64_t> procs_blocked;  // threads blocked on I/O
};

// kParse when the aggregate "cpu" line is missing or a cpu line has fewer than 4 numbers or a
// malformed one.
Result<ProcStat> ParseProcStat(std::string_view text);
// Reads root/proc/stat.
Result<ProcStat> ReadProcStat(const std::string& root);

// Busy share of the interval between two snapshots, in percent:
//   100 * (Δtotal - Δidle - Δiowait) / Δtotal, with total = user + nice + system + idle + iowait +
//   irq + softirq.
// Steal (time the hypervisor ran someone else) is neither busy nor idle for this guest, so it is
// left out of the total; guest time is inside user/nice already and is not added again. A field
// that went backwards (iowait can on tickless kernels) counts as 0. nullopt when no ticks elapsed.
std::optional<double> BusyPercent(const CpuTimes& before, const CpuTimes& after);

}  // namespace xpuperf::cpu
