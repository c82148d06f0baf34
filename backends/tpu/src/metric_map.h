// Internal to the TPU backend: the one table from runtime metric names to catalog metrics. Runtime
// names drift between libtpu versions; the backend asks ListSupportedMetrics first and reads only
// names the runtime says it serves.
#pragma once

#include <span>
#include <string_view>

namespace xpuperf::tpu {

// How per-core values combine into the chip's overall sample.
enum class Combine { kSum, kMean };

struct GaugeMapping {
  std::string_view catalog;
  std::string_view runtime_name;
  Combine combine;
  bool per_core_samples;  // also one sample per core (label core) on multi-core chips
};

struct LatencyMapping {
  std::string_view runtime_name;  // microseconds, one series per buffer-size bucket
  std::string_view type;          // label `type` on transfer_latency_seconds
};

std::span<const GaugeMapping> GaugeMappings();
std::span<const LatencyMapping> TransferLatencyMappings();

// HLO execution time per device ordinal, microseconds -> op_execution_time_seconds{op="hlo"}.
inline constexpr std::string_view kHloExecutionTiming =
    "hlo.execution.timing.distribution.microseconds";
inline constexpr std::string_view kHbmTotal = "tpu.runtime.hbm.memory.total.bytes";
inline constexpr double kMicrosecondsToSeconds = 1e-6;
// Label of per-process distributions: the runtime (port) they came from, "localhost:8431".
inline constexpr std::string_view kRuntimeLabel = "runtime";

}  // namespace xpuperf::tpu
