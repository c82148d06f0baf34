#include "xpuperf/core/metric_catalog.h"

#include <array>

namespace xpuperf {

std::string_view MetricKindName(MetricKind kind) {
  switch (kind) {
    case MetricKind::kGauge:
      return "gauge";
    case MetricKind::kCounter:
      return "counter";
    case MetricKind::kDistribution:
      return "distribution";
  }
  return "unknown";
}

namespace {
using K = MetricKind;
constexpr std::array kCatalog = {
    MetricInfo{metrics::kTensorCoreUtilization, "percent", K::kGauge,
               "Matrix/SIMD unit utilisation: tensor-core activity on accelerators, FP operations "
               "retired / peak FP operations on CPUs",
               "device,core"},
    MetricInfo{metrics::kDutyCycle, "percent", K::kGauge,
               "Share of the sampling window the device was busy (CPU: 100 - idle - iowait)",
               "device,core"},
    MetricInfo{metrics::kMemoryTotal, "bytes", K::kGauge,
               "Device memory capacity (HBM on accelerators, RAM on the host)", "device"},
    MetricInfo{metrics::kMemoryUsed, "bytes", K::kGauge,
               "Device memory in use (host: MemTotal - MemAvailable)", "device"},
    MetricInfo{metrics::kTransferLatency, "seconds", K::kDistribution,
               "Buffer transfer latency by buffer-size bucket, per runtime process",
               "device,type,buffer_size,runtime,pid"},
    MetricInfo{metrics::kOpExecutionTime, "seconds", K::kDistribution,
               "Operation (HLO, kernel, op) execution time", "device,op,runtime,pid"},
    MetricInfo{metrics::kQueueSize, "count", K::kGauge,
               "Work waiting to run (TPU: HLO queue; CPU: runnable threads; SDK: recorded depth)",
               "device,core"},
    MetricInfo{metrics::kIdleDuration, "seconds", K::kGauge,
               "Time since the device (or core) last ran work (TPU runtime: tensorcore idle "
               "duration)",
               "device,core"},
    MetricInfo{metrics::kPower, "watts", K::kGauge, "Power draw per domain (package, dram, board)",
               "device,domain"},
    MetricInfo{metrics::kEnergy, "joules", K::kCounter,
               "Energy consumed since the counter started, per domain", "device,domain"},
    MetricInfo{metrics::kTemperature, "celsius", K::kGauge, "Temperature per sensor",
               "device,sensor"},
    MetricInfo{metrics::kClock, "hertz", K::kGauge,
               "Clock frequency (per core on CPUs; SM and memory clocks on GPUs)",
               "device,core,type"},
    MetricInfo{metrics::kMemoryBandwidthUtilization, "percent", K::kGauge,
               "Memory bandwidth used / peak memory bandwidth", "device"},
    MetricInfo{metrics::kHostLinkThroughput, "bytes_per_second", K::kGauge,
               "Host link (PCIe, NVLink-C2C) throughput per direction", "device,direction"},
    MetricInfo{metrics::kErrors, "count", K::kCounter,
               "Hardware error events by type (ECC, machine checks, XID)", "device,type"},
    MetricInfo{metrics::kProcessCpu, "percent", K::kGauge,
               "CPU time of a process per wall time (100 = one core)", "device,pid"},
    MetricInfo{metrics::kProcessMemory, "bytes", K::kGauge,
               "Resident memory of a process (host RSS, or device memory it holds)",
               "device,pid,command"},
    MetricInfo{metrics::kProcessEngineBusy, "percent", K::kGauge,
               "Share of the window a process kept a device engine busy (DRM fdinfo: busy ns per "
               "wall ns, or busy cycles per GPU cycles)",
               "device,pid,engine"},
    MetricInfo{metrics::kMemoryReserved, "bytes", K::kGauge,
               "Device memory held by the driver and firmware, usable by no program", "device"},
    MetricInfo{metrics::kClockEventActive, "boolean", K::kGauge,
               "Why clocks are held down (GPU clock-event/throttle reasons): 1 = active, 0 = "
               "supported but not active, per reason",
               "device,reason"},
    MetricInfo{metrics::kSmOccupancy, "percent", K::kGauge,
               "Resident warps / maximum resident warps, averaged over the SMs and the window",
               "device"},
    MetricInfo{metrics::kPipeUtilization, "percent", K::kGauge,
               "Share of the window each non-tensor execution pipe was active (fp64, fp32, fp16)",
               "device,pipe"},
    MetricInfo{metrics::kPeerLinkThroughput, "bytes_per_second", K::kGauge,
               "Device-to-device link (NVLink) throughput per direction, all links together",
               "device,direction"},
    MetricInfo{metrics::kLastErrorCode, "code", K::kGauge,
               "Code of the most recent error event (GPU: XID) seen since monitoring started",
               "device,type"},
    MetricInfo{metrics::kClockMax, "hertz", K::kGauge,
               "Highest clock the device can run per clock domain (NVML's max clocks)",
               "device,type"},
    MetricInfo{metrics::kDeviceMode, "boolean", K::kGauge,
               "Device modes: 1 = on, 0 = off (persistence mode; ECC now and after the next reset)",
               "device,mode"},
    MetricInfo{metrics::kTemperatureLimit, "celsius", K::kGauge,
               "The driver's temperature thresholds: slowdown, shutdown, the highest operating "
               "temperature of the GPU and of its memory",
               "device,type"},
    MetricInfo{metrics::kPowerLimit, "watts", K::kGauge,
               "Power limits: the one enforced now, the default, and the range it may be set to "
               "(type current, enforced, default, min, max)",
               "device,type"},
    MetricInfo{metrics::kPerformanceState, "state", K::kGauge,
               "Performance state: 0 (P0, the fastest) to 15 (P15, the slowest)", "device"},
    MetricInfo{metrics::kHostLinkGeneration, "generation", K::kGauge,
               "Host link (PCIe) generation now and the highest the device and slot support "
               "(type current, max)",
               "device,type"},
    MetricInfo{metrics::kHostLinkWidth, "lanes", K::kGauge,
               "Host link (PCIe) width now and the widest the device and slot support "
               "(type current, max)",
               "device,type"},
    MetricInfo{metrics::kCoreErrorActive, "boolean", K::kGauge,
               "1 while the runtime reports the core in error (its message in `error`), 0 for a "
               "core without error",
               "device,core,error"},
    MetricInfo{metrics::kCoreState, "info", K::kGauge,
               "1 per TPU core as the runtime reports it: its type, the program it runs "
               "(fingerprint, hex), whether its debugger (xdb) server runs",
               "device,core,global_core,core_type,program,xdb_server"},
    MetricInfo{metrics::kSequencerState, "info", K::kGauge,
               "1 per sequencer of a TPU core: its program counter, tracemark, program and run "
               "(changes with every read: not exported by serve)",
               "device,core,global_core,sequencer,sequencer_type,pc,tracemark,program_id,run_id",
               false},
    MetricInfo{metrics::kQueuedProgram, "info", K::kGauge,
               "1 per program queued on a TPU core: its run, launch and fingerprint (not exported "
               "by serve; queue_size counts them)",
               "device,core,global_core,run_id,launch_id,program", false},
    MetricInfo{metrics::kThrottleScore, "score", K::kGauge,
               "How much the chip is throttled, as libtpu scores it: 0 not throttled, n = 1..10 "
               "throttled by n x 10 %",
               "device"},
    MetricInfo{metrics::kIciLinkHealth, "score", K::kGauge,
               "Health of each ICI link, as libtpu scores it: 0 healthy, 1-5 a transient problem, "
               "6-9 a persistent minor problem, 10 not usable (link = its location)",
               "device,link"},
    MetricInfo{metrics::kLatencyStatistic, "seconds", K::kGauge,
               "Latency statistics libtpu computes itself (mean and percentiles, no histogram): "
               "transfers by type and buffer size, collectives, HLO execution per core",
               "device,type,buffer_size,collective,core,statistic"},
    MetricInfo{metrics::kTcpDeliveryRate, "bytes_per_second", K::kGauge,
               "Delivery rate of the runtime's TCP connections, as libtpu summarises it (mean and "
               "percentiles)",
               "device,statistic"},
};
}  // namespace

std::span<const MetricInfo> MetricCatalog() { return kCatalog; }

const MetricInfo* FindMetric(std::string_view name) {
  for (const MetricInfo& info : kCatalog) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

}  // namespace xpuperf
