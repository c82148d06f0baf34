// SIMD/FP utilisation of the CPU (the CPU's "tensor-core utilisation"): floating-point operations
// retired, from hardware counters through perf_event_open, divided by the peak FP rate.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::cpu {

// The perf_event_open system call and counter reads, behind an interface so tests can script them.
class PerfEventApi {
 public:
  virtual ~PerfEventApi() = default;
  // As perf_event_open(2) with a PERF_TYPE_RAW config on one CPU (pid -1); returns an fd or -errno.
  virtual int OpenRawCounter(uint64_t config, int cpu) = 0;
  // Reads the 64-bit count of an fd opened above; false on failure. When the kernel
  // time-multiplexes more events than the PMU has counters, this is the estimate count x enabled /
  // running time.
  virtual bool ReadCounter(int fd, uint64_t* value) = 0;
  virtual void Close(int fd) = 0;
  // The real system call. Thread-safe (it holds no state).
  static PerfEventApi& System();
};

// One hardware event SimdUtilization counts on every logical CPU.
struct FpCounterEvent {
  std::string name;     // "FP_ARITH_INST_RETIRED.512B_PACKED_SINGLE"
  uint64_t config = 0;  // PERF_TYPE_RAW config: (umask << 8) | event select
  // FP32-equivalent FLOPs per count: SIMD lanes (the events already count an FMA twice), times 2
  // for fp64, because an fp64 lane takes the datapath width of two fp32 lanes.
  double fp32_flops_per_count = 0;
};

// What SimdUtilization measures on this CPU: the events, the logical CPUs and the peak.
struct FpCounterPlan {
  std::vector<FpCounterEvent> events;
  std::vector<int> cpus;                  // logical CPU numbers ("processor" in /proc/cpuinfo)
  double peak_fp32_flops_per_second = 0;  // per core, FP32 FLOP/s
  std::string peak_description;           // how the peak was derived, with its assumptions
};

// Chooses events and peak for the CPU described by root/proc/cpuinfo (and cpufreq's
// cpuinfo_max_freq under root/sys when present). kUnsupported with the reason for a vendor or model
// without known FP events, a missing core PMU (root/sys/bus/event_source/devices/cpu) or an unknown
// clock. Intel: FP_ARITH_INST_RETIRED (event 0xC7; the 512-bit umasks only with avx512f). AMD Zen
// (family >= 0x17): RETIRED_SSE_AVX_FLOPS (PMCx003, umask 0xFF), which counts FLOPs without
// splitting precision, so fp64 counts like fp32 there.
Result<FpCounterPlan> PlanFpCounters(const std::string& root);

class SimdUtilization {
 public:
  // Detects the CPU (vendor/family/model and ISA flags from root/proc/cpuinfo), picks the FP events
  // (Intel FP_ARITH_INST_RETIRED.*, AMD RETIRED_SSE_AVX_FLOPS) and opens them on every logical CPU.
  // kUnsupported with the reason when there is no PMU (root/sys/bus/event_source/devices/cpu
  // absent), the CPU has no known FP events, or perf_event_open fails (errno text and
  // perf_event_paranoid). `api` must outlive the returned object, which closes its counters when
  // destroyed.
  static Result<std::unique_ptr<SimdUtilization>> Open(const std::string& root, PerfEventApi& api);
  virtual ~SimdUtilization() = default;

  // Per logical CPU (index = cpu number): FP operations retired since the previous call (the first
  // call: since Open) divided by (peak FP operations per second per core * elapsed_seconds), in
  // percent, counting FP32-equivalent operations against the FP32 peak. Hyperthreads share their
  // core's pipes, so two siblings at full rate read about 50% each. CPU numbers absent from
  // /proc/cpuinfo (offline) read 0. A counter read failure is an error and keeps the previous
  // baseline. Not thread-safe: sample from one thread.
  // CPU numbers that are not measured (offline, gaps in the numbering) are NaN.
  virtual Result<std::vector<double>> SamplePercent(double elapsed_seconds) = 0;
  // How the peak was derived: "2 FMA pipes x 8 fp32 lanes (AVX2) x 2 x 3.0 GHz = 96 GFLOP/s/core".
  virtual std::string peak_description() const = 0;
};

}  // namespace xpuperf::cpu
