// The canonical metric catalog: one name per quantity on every backend. Backends map what they have
// onto these names (docs/METRICS.md has the mapping table per backend).
#pragma once

#include <span>
#include <string_view>

namespace xpuperf {

enum class MetricKind { kGauge, kCounter, kDistribution };

std::string_view MetricKindName(MetricKind kind);

// Canonical metric names. Units are in the name, values are in base units.
namespace metrics {
// The seven metrics of Google's TPU monitoring library.
inline constexpr std::string_view kTensorCoreUtilization = "tensorcore_utilization_percent";
inline constexpr std::string_view kDutyCycle = "duty_cycle_percent";
inline constexpr std::string_view kMemoryTotal = "memory_total_bytes";
inline constexpr std::string_view kMemoryUsed = "memory_used_bytes";
inline constexpr std::string_view kTransferLatency = "transfer_latency_seconds";
inline constexpr std::string_view kOpExecutionTime = "op_execution_time_seconds";
inline constexpr std::string_view kQueueSize = "queue_size";
inline constexpr std::string_view kIdleDuration = "idle_duration_seconds";
// Power, thermal, clocks, bandwidth, errors.
inline constexpr std::string_view kPower = "power_watts";
inline constexpr std::string_view kEnergy = "energy_joules";
inline constexpr std::string_view kTemperature = "temperature_celsius";
inline constexpr std::string_view kClock = "clock_hertz";
inline constexpr std::string_view kMemoryBandwidthUtilization =
    "memory_bandwidth_utilization_percent";
inline constexpr std::string_view kHostLinkThroughput = "host_link_throughput_bytes_per_second";
inline constexpr std::string_view kErrors = "errors_total";
// Per process (label pid).
inline constexpr std::string_view kProcessCpu = "process_cpu_percent";
inline constexpr std::string_view kProcessMemory = "process_memory_bytes";
inline constexpr std::string_view kProcessEngineBusy = "process_engine_busy_percent";
// Accelerator detail with no CPU equivalent (GPU telemetry as DCGM reports it).
inline constexpr std::string_view kMemoryReserved = "memory_reserved_bytes";
inline constexpr std::string_view kClockEventActive = "clock_event_active";
inline constexpr std::string_view kSmOccupancy = "sm_occupancy_percent";
inline constexpr std::string_view kPipeUtilization = "pipe_utilization_percent";
inline constexpr std::string_view kPeerLinkThroughput = "peer_link_throughput_bytes_per_second";
inline constexpr std::string_view kLastErrorCode = "last_error_code";
// Device limits and modes (nvidia-smi -q's "Max Clocks" and "Persistence Mode"/"ECC Mode").
inline constexpr std::string_view kClockMax = "clock_max_hertz";
inline constexpr std::string_view kDeviceMode = "device_mode_enabled";
inline constexpr std::string_view kTemperatureLimit = "temperature_limit_celsius";
inline constexpr std::string_view kPowerLimit = "power_limit_watts";
inline constexpr std::string_view kPerformanceState = "performance_state";
inline constexpr std::string_view kHostLinkGeneration = "host_link_generation";
inline constexpr std::string_view kHostLinkWidth = "host_link_width_lanes";
// A core the runtime reports in error (TPU runtime status), with the runtime's message.
inline constexpr std::string_view kCoreErrorActive = "core_error_active";
// TPU-Z's view of each core (TPU runtime status): its state, its sequencers, its queued programs.
inline constexpr std::string_view kCoreState = "core_state_info";
inline constexpr std::string_view kSequencerState = "sequencer_state_info";
inline constexpr std::string_view kQueuedProgram = "queued_program_info";
// libtpu's monitoring SDK: throttling, ICI link health, and the latency summaries it gives instead
// of histograms.
inline constexpr std::string_view kThrottleScore = "throttle_score";
inline constexpr std::string_view kIciLinkHealth = "ici_link_health_score";
inline constexpr std::string_view kLatencyStatistic = "latency_statistic_seconds";
inline constexpr std::string_view kTcpDeliveryRate = "tcp_delivery_rate_bytes_per_second";
}  // namespace metrics

// Common label keys.
namespace labels {
inline constexpr std::string_view kDevice = "device";
inline constexpr std::string_view kCore = "core";
inline constexpr std::string_view kBufferSize = "buffer_size";
inline constexpr std::string_view kOp = "op";
inline constexpr std::string_view kDomain = "domain";  // power/energy domain (package-0, dram-0)
inline constexpr std::string_view kSensor = "sensor";  // temperature sensor
inline constexpr std::string_view kPid = "pid";
inline constexpr std::string_view kCommand =
    "command";  // process name, as the device driver gives it
inline constexpr std::string_view kDirection = "direction";    // host-link: tx / rx
inline constexpr std::string_view kType = "type";              // error kind, clock domain
inline constexpr std::string_view kReason = "reason";          // clock-event reason
inline constexpr std::string_view kPipe = "pipe";              // execution pipe: fp64, fp32, fp16
inline constexpr std::string_view kEngine = "engine";          // GPU engine class: gfx, render, ccs
inline constexpr std::string_view kMode = "mode";              // device mode: persistence, ecc
inline constexpr std::string_view kError = "error";            // an error message (one line)
inline constexpr std::string_view kLink = "link";              // an ICI link's location
inline constexpr std::string_view kStatistic = "statistic";    // mean, p50, p90, p95, p999
inline constexpr std::string_view kCollective = "collective";  // ALL_REDUCE, ALL_GATHER, ...
}  // namespace labels

struct MetricInfo {
  std::string_view name;
  std::string_view
      unit;  // "percent", "bytes", "seconds", "watts", "joules", "celsius", "hertz", ...
  MetricKind kind;
  std::string_view description;
  std::string_view labels;  // comma-separated label keys the samples may carry
  // False for states whose labels change with every read (a program counter): `metrics` and
  // `top` show them, `serve` does not export them.
  bool exported = true;
};

// All metrics, in display order.
std::span<const MetricInfo> MetricCatalog();
// nullptr if the name is not in the catalog.
const MetricInfo* FindMetric(std::string_view name);

}  // namespace xpuperf
