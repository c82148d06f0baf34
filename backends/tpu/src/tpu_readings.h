// Internal to the TPU backend: runtime answers -> catalog readings, one per (metric, device).
#pragma once

#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "metric_map.h"
#include "runtime_fetch.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/sample.h"

namespace xpuperf::tpu {

struct CoreLocation {
  size_t device = 0;  // index into the backend's devices
  int core = 0;       // core (runtime device) on that chip
};

// Where runtime device ordinals live. The runtime status names each core's chip and index on the
// chip; without it, ordinal = chip * cores_per_chip + core.
class CoreMap {
 public:
  CoreMap(size_t device_count, int cores_per_chip)
      : device_count_(device_count), cores_per_chip_(cores_per_chip < 1 ? 1 : cores_per_chip) {}
  void AddRuntimeStatus(const runtime::GetTpuRuntimeStatusResponse& status);
  std::optional<CoreLocation> Locate(int ordinal) const;
  // Cores known on the device (from the status, else cores_per_chip).
  int CoresOn(size_t device) const;

 private:
  size_t device_count_;
  int cores_per_chip_;
  std::map<int, CoreLocation> known_;
};

struct ReadingContext {
  RuntimeFetch& fetch;
  const std::vector<Device>& devices;
  const CoreMap& cores;
  int64_t wall_ns;
};

std::vector<Reading> GaugeReadings(const GaugeMapping& mapping, ReadingContext& context);
// op_execution_time_seconds{op="hlo"}: the per-core distributions of a chip merged into one.
std::vector<Reading> HloExecutionReadings(ReadingContext& context);
// transfer_latency_seconds{type, buffer_size}: per runtime process, not per chip, so they are
// reported on the first device; the others say where to look.
std::vector<Reading> TransferLatencyReadings(ReadingContext& context);
// queue_size from the runtime status (queued programs per core) when hlo.queue.size.gauge is not
// served.
std::vector<Reading> QueueReadingsFromStatus(
    const std::vector<runtime::GetTpuRuntimeStatusResponse>& statuses, ReadingContext& context);

}  // namespace xpuperf::tpu
