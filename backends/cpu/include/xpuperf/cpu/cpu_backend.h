// The CPU backend: the host's processors and memory, from procfs/sysfs, powercap, hwmon,
// perf_event_open and hwloc. Works everywhere; each missing source is reported with its reason.
//
// One device, "cpu0", stands for the whole host; every sample carries device="cpu0". Sources:
//   duty_cycle_percent             /proc/stat: 100 * (Δtotal - Δidle - Δiowait) / Δtotal since the
//                                  previous Collect (or open), overall and per logical CPU (core)
//   memory_total/used_bytes        /proc/meminfo: MemTotal, MemTotal - MemAvailable
//   queue_size                     /proc/stat procs_running (includes the thread reading it)
//   clock_hertz                    cpufreq scaling_cur_freq, else /proc/cpuinfo "cpu MHz" (core)
//   temperature_celsius            hwmon temp*_input (sensor="<chip>/<label>")
//   power_watts, energy_joules     powercap RAPL, else hwmon power*/energy* (domain); energy counts
//                                  joules since the backend opened, corrected for counter wraps
//   tensorcore_utilization_percent FP operations retired / peak, perf_event_open (SimdUtilization)
//   process_cpu_percent/memory     /proc/PID/{stat,status,statm} for BackendOptions::pids
//                                  (pid, command); 100 % = one core busy
//   errors_total                   EDAC ce_count/ue_count (type=ecc_corrected/ecc_uncorrected)
//   memory_bandwidth_utilization, host_link_throughput: unsupported, with the reason;
//   op_execution_time, transfer_latency: no data here (the Session merges the SDK recorder's).
// Not thread-safe: one thread drives a backend.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "xpuperf/core/backend.h"
#include "xpuperf/cpu/simd_utilization.h"

namespace xpuperf::cpu {

// What the backend takes from the running system beyond the files under BackendOptions::root;
// tests replace them. The defaults are the real ones.
struct CpuBackendDependencies {
  // Opens the FP-counter sampler once, when the backend opens. Default:
  // SimdUtilization::Open(root, PerfEventApi::System()).
  std::function<Result<std::unique_ptr<SimdUtilization>>(const std::string& root)>
      open_simd_utilization;
  // USER_HZ, the unit of /proc/PID/stat CPU times; 0 means sysconf(_SC_CLK_TCK).
  uint64_t clock_ticks_per_second = 0;
  // The unit of /proc/PID/statm; 0 means sysconf(_SC_PAGESIZE).
  uint64_t page_size_bytes = 0;
};

// Opens the backend and takes the first snapshot for rate metrics. Fails (kIo, with the path and
// the errno text) only when root/proc/stat cannot be read; every other missing source becomes a
// reason on the readings of the metrics it feeds.
Result<std::unique_ptr<Backend>> CreateCpuBackend(const BackendOptions& options);
Result<std::unique_ptr<Backend>> CreateCpuBackend(const BackendOptions& options,
                                                  const CpuBackendDependencies& dependencies);

void RegisterCpuBackend(BackendRegistry& registry);

// This machine's CPU as the backend sees it under `root` (recorded trees in tests): what a spec
// check, a result file's environment and `--spec host` describe.
Result<Device> LocalCpuDevice(const std::string& root = "/");

}  // namespace xpuperf::cpu
