// MIG discovery: the MIG devices (one per compute instance) of a GPU whose MIG mode is on.
#include <fmt/format.h>

#include "nvidia_gpu.h"

namespace xpuperf::nvidia {

std::string MigProfileFromName(std::string_view name) {
  // NVML names a MIG device "<product> MIG <profile>"; the profile is the last word.
  const size_t mig = name.rfind(" MIG ");
  if (mig == std::string_view::npos) return {};
  std::string_view profile = name.substr(mig + 5);
  if (profile.empty() || profile.find(' ') != std::string_view::npos) return {};
  return std::string(profile);
}

std::vector<Gpu> DiscoverMigDevices(const NvmlLibrary& library, std::vector<Gpu>& gpus,
                                    int parent) {
  const NvmlApi& api = library.api();
  Gpu& gpu = gpus[static_cast<size_t>(parent)];
  if (!api.has_mig() || gpu.lost || gpu.handle == nullptr) return {};
  unsigned int current = 0, pending = 0;
  if (api.device_get_mig_mode(gpu.handle, &current, &pending) != nvml::kSuccess ||
      current != nvml::kMigEnabled) {
    return {};
  }
  gpu.mig_enabled = true;
  gpu.device.features.push_back("mig:on");
  unsigned int max_count = 0;
  if (api.device_get_max_mig_device_count(gpu.handle, &max_count) != nvml::kSuccess) return {};
  // No GPU has more than 7 GPU instances of up to 8 compute instances: a larger count is garbage.
  constexpr unsigned int kMaxMigDevices = 64;
  max_count = std::min(max_count, kMaxMigDevices);
  std::vector<Gpu> out;
  for (unsigned int index = 0; index < max_count; ++index) {
    Gpu mig;
    // Indexes without an instance answer NOT_FOUND (the slots are sparse); skip any failure.
    if (api.device_get_mig_device_handle_by_index(gpu.handle, index, &mig.handle) !=
            nvml::kSuccess ||
        mig.handle == nullptr) {
      continue;
    }
    unsigned int gi = 0, ci = 0;
    if (api.device_get_gpu_instance_id(mig.handle, &gi) != nvml::kSuccess ||
        api.device_get_compute_instance_id(mig.handle, &ci) != nvml::kSuccess) {
      continue;
    }
    mig.parent = parent;
    Device& d = mig.device;
    d.backend = "nvidia";
    d.id = fmt::format("{}/gi{}/ci{}", gpu.device.id, gi, ci);
    d.index = gpu.device.index;
    d.vendor = gpu.device.vendor;
    d.bus_id = gpu.device.bus_id;  // a slice of the same PCI function
    d.topology = gpu.device.topology;
    d.features = gpu.device.features;
    d.partition.parent = gpu.device.id;
    d.partition.parent_uuid = gpu.device.uuid;
    d.partition.gpu_instance_id = static_cast<int>(gi);
    d.partition.compute_instance_id = static_cast<int>(ci);
    if (api.device_get_name != nullptr) {
      char name[nvml::kDeviceNameBufferSize] = {};
      if (api.device_get_name(mig.handle, name, sizeof(name)) == nvml::kSuccess) mig.name = name;
    }
    d.partition.profile = MigProfileFromName(mig.name);
    if (mig.name.empty()) mig.name = d.id;
    d.model = mig.name;
    if (api.device_get_uuid != nullptr) {
      char uuid[nvml::kDeviceUuidBufferSize] = {};
      if (api.device_get_uuid(mig.handle, uuid, sizeof(uuid)) == nvml::kSuccess) d.uuid = uuid;
    }
    if (api.device_get_memory_info_v2 != nullptr) {
      nvml::MemoryV2 memory{};
      memory.version = nvml::kMemoryV2Version;
      if (api.device_get_memory_info_v2(mig.handle, &memory) == nvml::kSuccess)
        d.memory_bytes = memory.total;
    }
    if (d.memory_bytes == 0 && api.device_get_memory_info != nullptr) {
      nvml::MemoryV1 memory{};
      if (api.device_get_memory_info(mig.handle, &memory) == nvml::kSuccess)
        d.memory_bytes = memory.total;
    }
    out.push_back(std::move(mig));
  }
  return out;
}

}  // namespace xpuperf::nvidia
