// TPU chips found without a runtime: PCI sysfs (vendor 0x1ae0), their device nodes and the
// processes that hold them open. Readers take a root directory so tests run on recorded trees.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::tpu {

inline constexpr uint16_t kGooglePciVendorId = 0x1ae0;

// What a PCI device id says about a chip (shared/reference/tpu.md section 5).
struct ChipGeneration {
  std::string_view name;   // "v5e"; the model is "TPU " + name
  int cores_per_chip = 1;  // runtime devices (TensorCores exposed as devices) per chip
  uint64_t hbm_bytes = 0;  // HBM per chip, bytes (GiB * 2^30)
  bool uses_vfio = false;  // device node /dev/vfio/<iommu group> instead of /dev/accelN
};

// nullopt for ids that are not TPUs (the subsystem device id tells v2 from v3).
std::optional<ChipGeneration> LookupChipGeneration(uint16_t device_id,
                                                   uint16_t subsystem_device_id);

struct TpuChip {
  int index = 0;       // position in bus order: the "tpuN" of the device id
  std::string bus_id;  // PCI address of function 0, "0000:00:04.0"
  ChipGeneration generation;
  std::vector<std::string> functions;  // PCI addresses of every function (one per core)
  std::string device_node;             // "/dev/accel0", "/dev/vfio/12"; empty when not found
  std::vector<int> owner_pids;         // processes with the device node open, ascending
};

// Chips under root/sys/bus/pci/devices, grouped by domain:bus:device (the function number is the
// core index), in bus order. An empty list when there are none; kNotFound only when the PCI
// directory itself is missing.
Result<std::vector<TpuChip>> DiscoverTpuChips(std::string_view root);

// Pids whose root/proc/PID/fd/* links point at `device_node`, ascending. Unreadable fd
// directories (other users' processes without privileges) are skipped.
std::vector<int> FindDeviceOwners(std::string_view root, std::string_view device_node);

}  // namespace xpuperf::tpu
