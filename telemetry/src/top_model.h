// The data behind `xpuperf top`: per-device summaries with history, and the process list. Rendering
// (ncurses or plain text) reads it; it never touches the terminal. Not thread-safe.
#pragma once

#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "process_table.h"
#include "xpuperf/core/session.h"
#include "xpuperf/core/temperature_sensor.h"

namespace xpuperf::telemetry {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// A process using an accelerator, as nvtop, nvitop and tpu-info list them.
struct DeviceProcess {
  int pid = 0;
  std::string command;             // GPU: as the driver names it; TPU: /proc/PID/comm; may be empty
  double memory_bytes = kNoValue;  // device memory it holds; NaN where the source has none (TPU)
  // Its busiest engine on the device, percent (NVIDIA SM/memory/codec, AMD/Intel engines); NaN
  // where the source gives no per-process utilisation (TPU) or has no sample yet.
  double busy_percent = kNoValue;
};

struct DeviceSummary {
  Device device;
  double duty_percent = kNoValue;
  double simd_percent = kNoValue;
  double memory_used_bytes = kNoValue;
  double memory_total_bytes = kNoValue;
  double power_watts = kNoValue;  // package + DRAM domains (or board power)
  // Accelerators: the core clock (SM, gfx) against its maximum, the enforced power limit, the
  // performance state (-1 unknown) and why clocks are held down, in words ("power cap"), empty
  // when the reasons are not read.
  double clock_hz = kNoValue;
  double clock_max_hz = kNoValue;
  double power_limit_watts = kNoValue;
  int performance_state = -1;
  std::string held_by;
  // Every sensor, the GPU core (or CPU package) sensor first (core/temperature_sensor.h).
  std::vector<SensorTemperature> temperatures;
  double queue = kNoValue;
  std::vector<std::pair<std::string, double>> core_duty;  // (core, percent)
  // TPU cores as TPU-Z shows them ("core 0: runs deadbeef01, 2 queued; core 1: ERROR ..."), empty
  // where the runtime gives no core states.
  std::string core_states;
  std::deque<double> duty_history;             // oldest first, at most kHistory
  std::deque<double> memory_history;           // percent of total
  std::map<std::string, std::string> missing;  // metric -> why it cannot be shown
  std::vector<DeviceProcess> processes;        // accelerators only, by pid
};

// What identifies a device on its title line: "(8 cores, 16 threads)" for a CPU; for an
// accelerator its TensorCores or compute capability, memory, driver and device node, from what the
// backend found ("2 TensorCores, 192 GiB HBM, /dev/vfio/0").
std::string DeviceIdentity(const Device& device);

class TopModel {
 public:
  static constexpr size_t kHistory = 120;

  TopModel(std::unique_ptr<Session> session, std::string root);
  // Collects one observation. Errors are failures of the whole source (e.g. /proc unreadable).
  Status Refresh();

  const std::vector<DeviceSummary>& devices() const { return devices_; }
  std::vector<ProcessUsage> processes(size_t limit, ProcessSort sort = ProcessSort::kCpu) const {
    return processes_.Top(limit, sort);
  }
  const std::string& host() const { return host_; }

 private:
  std::unique_ptr<Session> session_;
  std::string root_;
  ProcessTable processes_;
  std::vector<DeviceSummary> devices_;
  std::string host_;
};

// What the tensor/SIMD meter is on this device: "Tensor" (accelerators' matrix units) or "SIMD"
// (a CPU's vector units).
std::string_view TensorLabel(const Device& device);

// Eight-level bar glyphs of `values` (0-100), newest right, `width` cells; ASCII when !utf8.
std::string Sparkline(const std::deque<double>& values, size_t width, bool utf8);

}  // namespace xpuperf::telemetry
