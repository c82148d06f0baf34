#include "tpu_devices.h"

#include <algorithm>
#include <map>
#include <set>

#include "metric_map.h"
#include "runtime_values.h"

namespace xpuperf::tpu {
namespace {

Device BaseDevice(int index) {
  Device d;
  d.backend = "tpu";
  d.id = "tpu" + std::to_string(index);
  d.index = index;
  d.vendor = "Google";
  d.topology.packages = 1;
  return d;
}

}  // namespace

std::vector<Device> DevicesFromChips(const std::vector<TpuChip>& chips) {
  std::vector<Device> devices;
  for (const TpuChip& chip : chips) {
    Device d = BaseDevice(chip.index);
    d.model = "TPU " + std::string(chip.generation.name);
    d.bus_id = chip.bus_id;
    d.memory_bytes = chip.generation.hbm_bytes;
    d.topology.cores = chip.generation.cores_per_chip;
    d.topology.threads = chip.generation.cores_per_chip;
    d.topology.source = "pci sysfs";
    if (!chip.device_node.empty()) d.features.push_back("node:" + chip.device_node);
    for (int pid : chip.owner_pids) d.features.push_back("pid:" + std::to_string(pid));
    devices.push_back(std::move(d));
  }
  return devices;
}

std::vector<Device> DevicesFromRuntime(RuntimeFetch& fetch, int& cores_per_chip) {
  // Each runtime (port) numbers its own chips from 0; they become distinct devices, port after
  // port, in the order MapRuntimes assigns them.
  const auto& statuses = fetch.RuntimeStatuses();
  std::vector<std::map<int, uint64_t>> hbm_of_ordinal(fetch.port_count());
  for (const RuntimeFetch::Answer& answer : fetch.Get(kHbmTotal)) {
    if (!answer.metric->ok()) continue;
    for (const runtime::Metric& series : answer.metric->value().metrics()) {
      auto ordinal = DeviceOrdinal(series);
      auto bytes = GaugeValue(series);
      if (ordinal && bytes && *bytes >= 0)
        hbm_of_ordinal[answer.port][*ordinal] = static_cast<uint64_t>(*bytes);
    }
  }
  cores_per_chip = 1;
  std::vector<Device> devices;
  for (size_t port = 0; port < fetch.port_count(); ++port) {
    // ordinal -> chip, from the status where the runtime gives one.
    std::map<int, int> chip_of;
    if (statuses[port]) {
      for (const auto& [ordinal, state] : statuses[port]->core_states()) {
        if (!state.core_id().has_chip_id()) continue;
        const int global =
            state.core_id().has_global_core_id() ? state.core_id().global_core_id() : ordinal;
        chip_of[global] = state.core_id().chip_id();
      }
    }
    std::map<int, std::set<int>> cores_of_chip;  // chip -> ordinals
    for (const auto& [ordinal, chip] : chip_of) cores_of_chip[chip].insert(ordinal);
    for (const auto& [ordinal, bytes] : hbm_of_ordinal[port]) {
      if (!chip_of.contains(ordinal)) cores_of_chip[ordinal].insert(ordinal);
    }
    // Chips 0..max of this runtime, so its chip numbers and the device order agree.
    const int chips = cores_of_chip.empty() ? 0 : cores_of_chip.rbegin()->first + 1;
    for (int chip = 0; chip < chips; ++chip) {
      const std::set<int>& ordinals = cores_of_chip[chip];
      Device d = BaseDevice(static_cast<int>(devices.size()));
      d.model = "TPU";
      d.topology.cores = std::max(1, static_cast<int>(ordinals.size()));
      d.topology.threads = d.topology.cores;
      d.topology.source = "tpu runtime";
      d.features.push_back("runtime:" + fetch.client(port).target());
      for (int ordinal : ordinals) {
        if (auto it = hbm_of_ordinal[port].find(ordinal); it != hbm_of_ordinal[port].end()) {
          d.memory_bytes += it->second;
        }
      }
      cores_per_chip = std::max(cores_per_chip, d.topology.cores);
      devices.push_back(std::move(d));
    }
  }
  return devices;
}

}  // namespace xpuperf::tpu
