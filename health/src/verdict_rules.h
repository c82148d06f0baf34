// The rules of each subsystem over one device's readings (docs/HEALTH.md lists every code).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/device.h"
#include "xpuperf/core/sample.h"
#include "xpuperf/health/verdict.h"

namespace xpuperf::health {

// One device's readings by metric.
class DeviceReadings {
 public:
  DeviceReadings(const std::vector<Reading>& all, std::string_view device);
  const Reading* Find(std::string_view metric) const;
  // The reason of the first reading that says the device is lost or needs a reset; empty if none.
  std::string LostReason() const;

 private:
  std::vector<const Reading*> readings_;
};

Verdict Finding(Subsystem subsystem, Status status, std::string code, Action action,
                std::string summary, std::string evidence, std::string source);
Verdict Pass(Subsystem subsystem, std::string evidence, std::string source);
Verdict Unknown(Subsystem subsystem, std::string reason, std::string source);

// ECC, retired pages, remapped rows (NVIDIA), EDAC (CPU), RAS of memory blocks (AMD umc, Intel
// cache): from errors_total.
Verdict MemoryVerdict(const DeviceReadings& readings);
// Uncorrectable RAS errors of the other blocks (AMD xgmi/pcie/gfx…, Intel reset/driver…): one
// finding per subsystem they belong to; none when there are none.
std::vector<Verdict> RasBlockVerdicts(const DeviceReadings& readings);
// Thermal slowdown among the clock-event reasons; on a CPU, the kernel's thermal_throttle
// counters under ROOT/sys/devices/system/cpu.
Verdict ThermalVerdict(const DeviceReadings& readings, const std::string& root, bool accelerator);
// The power brake and the power cap among the clock-event reasons.
Verdict PowerVerdict(const DeviceReadings& readings);
// A TPU core the runtime reports in error (core_error_active); pass when every core answers
// without one; nullopt when the backend gives no core states.
std::optional<Verdict> CoreErrorVerdict(const DeviceReadings& readings);
Verdict InterconnectVerdict(const Device& device, const DeviceReadings& readings);
// Clocks stuck low: under load (busy at least kLoadedPercent) the SM clock below kStuckFraction of
// its maximum with no clock-event reason (but idle) active. Unknown when the device is not loaded.
inline constexpr double kLoadedPercent = 80;
inline constexpr double kStuckFraction = 0.5;
Verdict ClocksVerdict(const Device& device, const DeviceReadings& readings);

}  // namespace xpuperf::health
