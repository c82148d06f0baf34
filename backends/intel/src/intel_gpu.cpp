#include "intel_gpu.h"

#include <fmt/format.h>

#include "xpuperf/core/concat.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::intel {
namespace {

std::vector<EnergyDomain> FindEnergyDomains(const std::string& hwmon_dir) {
  std::vector<EnergyDomain> out;
  if (hwmon_dir.empty()) return out;
  auto files = ListDirectory(hwmon_dir);
  if (!files.ok()) return out;
  for (const std::string& file : *files) {
    if (!file.starts_with("energy") || !file.ends_with("_input")) continue;
    const std::string channel = file.substr(0, file.size() - std::string_view("_input").size());
    if (!ParseIndexedName(channel, "energy")) continue;
    EnergyDomain domain;
    auto label = ReadTrimmedFile(Concat(hwmon_dir, "/", channel, "_label"));
    domain.domain = label.ok() && !label->empty() ? *label : "gpu";
    domain.file = Concat(hwmon_dir, "/", file);
    out.push_back(std::move(domain));
  }
  return out;
}

uint64_t XeVramBytes(const drm::DrmCard& card) {
  uint64_t total = 0;
  auto entries = ListDirectory(card.device_dir);
  if (!entries.ok()) return 0;
  for (const std::string& tile : *entries) {
    if (!ParseIndexedName(tile, "tile")) continue;
    auto bytes = ReadUnsignedFile(card.device_dir + "/" + tile + "/physical_vram_size_bytes");
    if (bytes.ok()) total += *bytes;
  }
  return total;
}

}  // namespace

IntelGpu MakeIntelGpu(const drm::DrmCard& card, int index) {
  IntelGpu gpu;
  gpu.card = card;
  Device& d = gpu.device;
  d.backend = "intel";
  d.id = fmt::format("intel{}", index);
  d.index = index;
  d.vendor = "Intel";
  const std::string_view name = IntelModelName(card.device_id);
  d.model = !name.empty() ? std::string(name)
                          : fmt::format("Intel GPU {:04x}:{:04x}", card.vendor_id, card.device_id);
  d.bus_id = card.pci_slot;
  if (card.driver == "xe") d.memory_bytes = XeVramBytes(card);
  d.topology.source = "sysfs";
  d.features.push_back(fmt::format("pci_id:{:04x}:{:04x}", card.vendor_id, card.device_id));
  d.features.push_back("driver:" + card.driver);
  gpu.gts = ListIntelGts(card);
  gpu.energy = FindEnergyDomains(card.hwmon_dir);
  return gpu;
}

void CheckIntelGpu(IntelGpu& gpu) {
  if (gpu.lost || PathExists(gpu.card.device_dir + "/vendor")) return;
  gpu.lost = true;
  gpu.lost_reason = fmt::format("{} ({}) is gone: {} no longer exists", gpu.device.id,
                                gpu.card.pci_slot, gpu.card.device_dir);
}

}  // namespace xpuperf::intel
