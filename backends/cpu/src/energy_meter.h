// Internal to the CPU backend: power_watts and energy_joules per domain, from RAPL energy counters
// (powercap) or, where there is no readable RAPL zone, from hwmon power and energy channels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/core/sample.h"
#include "xpuperf/core/status.h"
#include "xpuperf/core/sysfs_attribute.h"
#include "xpuperf/cpu/hwmon.h"
#include "xpuperf/cpu/powercap.h"

namespace xpuperf::cpu {

// Not thread-safe.
class EnergyMeter {
 public:
  // Finds the sources and takes the first energy snapshot at monotonic time now_ns.
  static EnergyMeter Open(const std::string& root, int64_t now_ns);

  // Average power per domain since the previous Power() call (or since Open), in watts:
  // Δenergy / Δt. hwmon power channels report their own (instantaneous or averaged) value.
  Reading Power(int64_t now_ns, int64_t wall_ns);
  // Energy per domain consumed since Open, in joules. The hardware counters start at an arbitrary
  // value and wrap; this is the wrap-corrected sum of the deltas seen since the backend opened,
  // correct as long as Collect runs at least once per counter wrap (minutes to hours).
  // now_ns (monotonic) lets one Collect that asks for both power and energy read the counters once.
  Reading Energy(int64_t now_ns, int64_t wall_ns);

 private:
  // A cumulative µJ counter: a RAPL zone's energy_uj, or a hwmon energyN_input.
  struct Counter {
    std::string domain;
    std::string path;
    // {device, domain}, built once: a sample's labels are copied from here at every reading
    // rather than assembled (and sorted) again at 1 kHz.
    Labels labels;
    // Kept open and re-read with pread: one syscall per reading at kHz rates instead of three.
    // Empty when the file could not be reopened after the first read (read by path then).
    std::optional<SysfsAttribute> file;
    // RAPL wraps after max_energy_range_uj; hwmon counters have no stated range and a decrease
    // means the counter restarted.
    std::optional<uint64_t> wrap_range_uj;
    uint64_t last_raw_uj = 0;
    uint64_t since_open_uj = 0;
    uint64_t since_open_at_last_power_uj = 0;
    bool read_ok = false;  // whether the most recent read succeeded
  };
  struct PowerChannel {
    std::string domain;
    HwmonChip chip;
    HwmonChannel channel;
  };

  // Reads every counter, unless they were already read at monotonic time now_ns.
  void RefreshCounters(int64_t now_ns);
  static void LabelCounters(std::vector<Counter>& counters);
  static uint64_t CounterDelta(const Counter& counter, uint64_t raw_uj);

  std::vector<Counter> counters_;
  std::vector<PowerChannel> power_channels_;  // hwmon only
  int64_t last_power_ns_ = 0;
  int64_t last_refresh_ns_ = -1;
  // The most recent read failure, reported when no domain could be read in a Collect.
  std::optional<Error> last_error_;
  // Set when there is no source at all: why.
  std::string unsupported_reason_;
  // Set when there are power channels but no energy counter.
  std::string energy_unsupported_reason_;
};

}  // namespace xpuperf::cpu
