#include "amd_gpu.h"

#include <fmt/format.h>

#include "xpuperf/amd/amd_sysfs.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::amd {

AmdGpu MakeAmdGpu(const drm::DrmCard& card, int index, const std::string& root) {
  AmdGpu gpu;
  gpu.card = card;
  Device& d = gpu.device;
  d.backend = "amd";
  d.id = fmt::format("amd{}", index);
  d.index = index;
  d.vendor = "AMD";
  auto product = ReadTrimmedFile(card.device_dir + "/product_name");
  if (product.ok() && !product->empty()) {
    d.model = *product;
  } else if (std::string_view name = AmdModelName(card.device_id); !name.empty()) {
    d.model = std::string(name);
  } else {
    d.model = fmt::format("AMD GPU {:04x}:{:04x}", card.vendor_id, card.device_id);
  }
  if (auto uid = ReadTrimmedFile(card.device_dir + "/unique_id"); uid.ok()) d.uuid = *uid;
  d.bus_id = card.pci_slot;
  if (auto vram = ReadUnsignedFile(card.device_dir + "/mem_info_vram_total"); vram.ok()) {
    d.memory_bytes = *vram;
  }
  d.topology.source = "sysfs";
  d.features.push_back(fmt::format("pci_id:{:04x}:{:04x}", card.vendor_id, card.device_id));
  d.features.push_back("driver:" + card.driver);
  if (auto v = ReadTrimmedFile(JoinRoot(root, "/sys/module/amdgpu/version")); v.ok()) {
    d.features.push_back("driver_version:" + *v);
  } else if (auto k = ReadTrimmedFile(JoinRoot(root, "/proc/sys/kernel/osrelease")); k.ok()) {
    d.features.push_back("driver_version:kernel-" + *k);  // the in-tree driver
  }
  if (auto serial = ReadTrimmedFile(card.device_dir + "/serial_number"); serial.ok()) {
    d.features.push_back("serial:" + *serial);
  }
  if (auto numa = ReadSignedFile(card.device_dir + "/numa_node"); numa.ok() && *numa >= 0) {
    d.features.push_back(fmt::format("numa_node:{}", *numa));
  }
  RefreshAmdGpu(gpu);
  if (gpu.metrics.ok()) d.features.push_back("gpu_metrics:" + gpu.metrics->revision());
  return gpu;
}

void RefreshAmdGpu(AmdGpu& gpu) {
  if (gpu.lost) return;
  if (!PathExists(gpu.card.device_dir + "/vendor")) {
    gpu.lost = true;
    gpu.lost_reason = fmt::format("{} ({}) is gone: {} no longer exists", gpu.device.id,
                                  gpu.card.pci_slot, gpu.card.device_dir);
    return;
  }
  auto blob = ReadFileToString(gpu.card.device_dir + "/gpu_metrics");
  if (!blob.ok()) {
    gpu.metrics = blob.error();
    return;
  }
  gpu.metrics = DecodeGpuMetrics(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(blob->data()), blob->size()));
}

}  // namespace xpuperf::amd
