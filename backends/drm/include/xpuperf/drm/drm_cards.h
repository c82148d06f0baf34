// GPUs driven by a kernel DRM driver, found under <root>/sys/class/drm/cardN (connector entries
// such as card0-DP-1 are skipped). Every path is under BackendOptions::root, so tests run on
// recorded trees.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xpuperf::drm {

struct DrmCard {
  std::string name;        // "card0"
  int minor = 0;           // N of cardN
  std::string card_dir;    // <root>/sys/class/drm/card0
  std::string device_dir;  // <root>/sys/class/drm/card0/device (the PCI function)
  std::string driver;      // DRIVER= of device/uevent: "amdgpu", "i915", "xe"
  std::string pci_slot;    // PCI_SLOT_NAME= of device/uevent: "0000:03:00.0"; empty if absent
  uint32_t vendor_id = 0;  // device/vendor (0x1002 AMD, 0x8086 Intel)
  uint32_t device_id = 0;  // device/device
  uint32_t revision = 0;   // device/revision
  uint32_t subsystem_device_id = 0;
  std::string hwmon_dir;  // device/hwmon/hwmonM; empty when the driver registered none
};

// Cards whose driver is one of `drivers`, in card order. Empty (not an error) when there is no DRM
// class directory: hosts without GPUs, containers without /sys/class/drm.
std::vector<DrmCard> ListDrmCards(const std::string& root, const std::vector<std::string>& drivers);

// "0x1002\n" -> 0x1002 (the 0x is optional); false, with *out unchanged, when malformed.
bool ParseHexId(std::string_view text, uint32_t* out);

}  // namespace xpuperf::drm
