// Internal to the TPU backend: runtime answers -> catalog readings, one per (metric, device).
#pragma once

#include <map>
#include <optional>
#include <string>
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

// One libtpu runtime (one process, one port) and the chips it drives. Each runtime numbers its
// own devices from 0, so an ordinal means nothing without the runtime it came from.
struct RuntimeChips {
  std::vector<size_t> devices;  // backend device index of the runtime's chip 0, 1, ...
  // From the runtime status: ordinal -> (the runtime's chip number, core on the chip).
  std::map<int, std::pair<int, int>> known;
  std::optional<int> pid;  // the process serving the port, where /proc shows it
  std::string target;      // "localhost:8431"
};

// Where each runtime's device ordinals live. Without a status, ordinal = chip * cores_per_chip +
// core on that runtime's chips.
class CoreMap {
 public:
  CoreMap(int cores_per_chip, std::vector<RuntimeChips> runtimes)
      : cores_per_chip_(cores_per_chip < 1 ? 1 : cores_per_chip), runtimes_(std::move(runtimes)) {}
  std::optional<CoreLocation> Locate(size_t runtime, int ordinal) const;
  // Cores known on the device (from the status, else cores_per_chip).
  int CoresOn(size_t device) const;
  const std::vector<RuntimeChips>& runtimes() const { return runtimes_; }
  // The runtime that drives the device; nullptr when none reports it.
  const RuntimeChips* RuntimeOf(size_t device) const;

 private:
  int cores_per_chip_;
  std::vector<RuntimeChips> runtimes_;
};

// What each runtime says about its chips (status, else the ordinals of its HBM series), and
// which backend devices they are: the chips whose device node the runtime's process holds open
// (the "pid:N" features of sysfs devices), else the next ones in port order. One runtime alone
// drives every device in order.
CoreMap MapRuntimes(RuntimeFetch& fetch, const std::vector<Device>& devices, int cores_per_chip,
                    const std::vector<std::optional<int>>& pids);

// The number of chips each runtime reports, in port order (0 for an unreachable one).
std::vector<int> RuntimeChipCounts(RuntimeFetch& fetch, int cores_per_chip);

struct ReadingContext {
  RuntimeFetch& fetch;
  const std::vector<Device>& devices;
  const CoreMap& cores;
  int64_t wall_ns;
  std::string root = "/";  // the machine's root, for sysfs (recorded trees in tests)
};

// Each core state of every runtime status: visit(device, core on the chip, global core id, state).
template <typename Visit>
void ForEachCoreState(ReadingContext& context, Visit visit) {
  const auto& statuses = context.fetch.RuntimeStatuses();
  for (size_t port = 0; port < statuses.size(); ++port) {
    if (!statuses[port]) continue;
    for (const auto& [ordinal, state] : statuses[port]->core_states()) {
      const int global =
          state.core_id().has_global_core_id() ? state.core_id().global_core_id() : ordinal;
      if (auto where = context.cores.Locate(port, global)) {
        visit(where->device, where->core, global, state);
      }
    }
  }
}

std::vector<Reading> GaugeReadings(const GaugeMapping& mapping, ReadingContext& context);
// op_execution_time_seconds{op="hlo"}: the per-core distributions of a chip merged into one.
std::vector<Reading> HloExecutionReadings(ReadingContext& context);
// transfer_latency_seconds{type, buffer_size, runtime, pid}: per runtime process, not per chip, so
// each runtime's are reported on its first chip, labelled with the process; the other devices
// say where to look.
std::vector<Reading> TransferLatencyReadings(ReadingContext& context);
// queue_size from the runtime status (queued programs per core) when hlo.queue.size.gauge is not
// served.
std::vector<Reading> QueueReadingsFromStatus(ReadingContext& context);
// core_error_active{core, error}: the runtime status's error_message per core (TPU-Z's view).
std::vector<Reading> CoreErrorReadings(ReadingContext& context);
// TPU-Z's view (tpu-info's core_state, sequencer_state and queued_programs): core_state_info,
// sequencer_state_info and queued_program_info, value 1, the state in labels.
std::vector<Reading> CoreStateReadings(std::string_view metric, ReadingContext& context);
// host_link_generation or host_link_width_lanes {type=current|max}: each chip's PCIe link from
// sysfs (its function 0's current/max_link_speed and _width), as the AMD and Intel backends read
// theirs; unsupported for chips known only from the runtime, or whose function has no link files.
std::vector<Reading> PciLinkReadings(std::string_view metric, ReadingContext& context);

}  // namespace xpuperf::tpu
