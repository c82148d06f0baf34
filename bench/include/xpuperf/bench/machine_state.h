// The machine's state around a benchmark run and each of its points: load, runnable tasks, the
// CPU time other processes and the hypervisor (steal) took, the frequency governor and clock.
// A figure measured while something else used the cores is not the machine's figure; these
// readings are how a run says so (environment.json, and `stable: false` on the point).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::bench {

// The aggregate "cpu" line of /proc/stat, in clock ticks.
struct CpuTicks {
  int64_t busy = 0;   // user + nice + system + irq + softirq
  int64_t idle = 0;   // idle + iowait
  int64_t steal = 0;  // taken by the hypervisor for other guests
  int64_t total() const { return busy + idle + steal; }
};

struct MachineState {
  double monotonic_seconds = 0;
  std::optional<double> load_average_1m;  // /proc/loadavg
  std::optional<double> load_average_5m;
  std::optional<int> runnable_tasks;  // /proc/stat procs_running (including this process)
  int cpus = 0;                       // CPUs in /proc/stat ("cpuN" lines)
  std::optional<CpuTicks> cpu;        // nullopt when /proc/stat is unreadable
  int64_t own_ticks = 0;              // this process and its waited-for children (/proc/self/stat)
  std::string governor;               // "performance"..., or "unavailable: <why>"
  std::optional<double> clock_hz;     // mean scaling_cur_freq over the CPUs, where readable
};

// Reads root/proc and root/sys (root "/" for the live machine; a recorded tree in tests). Never
// fails: what cannot be read stays empty and says so in the JSON.
MachineState ReadMachineState(const std::string& root);

// What other work did to the CPUs between two readings, as fractions of all CPUs' time.
struct LoadDuring {
  double seconds = 0;
  std::optional<double> other_cpu_share;  // busy time not this process's / all CPU time
  std::optional<double> steal_share;      // steal / all CPU time
  int64_t total_ticks = 0;
};

LoadDuring LoadBetween(const MachineState& before, const MachineState& after);

// Limits beyond which a point is measured on a busy machine (docs/BENCHMARKS.md, "Stability").
inline constexpr double kBusyOtherCpuShare = 0.10;
inline constexpr double kBusyStealShare = 0.05;
// Fewer ticks than this between readings are too coarse to judge (ticks are 10 ms).
inline constexpr int64_t kMinTicksToJudge = 4;

// One sentence per reason the machine was busy during the window ("other processes used 48% of
// the 2 CPUs"); empty when it was not, or when the window is too short to judge.
std::vector<std::string> BusyReasons(const LoadDuring& load, int cpus,
                                     std::string_view window = "this point");

// Before a run: BusyReasons over a short window in which this process only waited (the load
// average is recorded, not judged: it still counts work that ended up to a minute ago, such as the
// previous run).
inline constexpr double kIdleWindowSeconds = 0.25;
std::vector<std::string> BusyAtStart(const MachineState& window_start, const MachineState& state);

nlohmann::json ToJson(const MachineState& state);
nlohmann::json ToJson(const LoadDuring& load);

}  // namespace xpuperf::bench
