#include "nvidia_gpu.h"

#include <fmt/format.h>

#include <cstring>

namespace xpuperf::nvidia {
bool IsLostCode(nvml::Return code) {
  return code == nvml::kErrorGpuIsLost || code == nvml::kErrorResetRequired;
}

void MarkLost(Gpu& gpu, std::string_view query, nvml::Return code) {
  gpu.lost = true;
  gpu.lost_reason = fmt::format(
      "no data: {} ({} returned {})",
      code == nvml::kErrorGpuIsLost ? "GPU lost (fell off the bus)" : "GPU needs a reset", query,
      nvml::ReturnName(code));
}

namespace {

// Fills identity and features; stops at the first query that says the GPU is lost.
void Describe(const NvmlApi& api, const DriverInfo& driver, Gpu& gpu) {
  Device& d = gpu.device;
  auto lost = [&gpu](std::string_view query, nvml::Return code) {
    if (!IsLostCode(code)) return false;
    MarkLost(gpu, query, code);
    gpu.device.model = "NVIDIA GPU (lost)";
    return true;
  };
  if (api.device_get_name != nullptr) {
    char name[nvml::kDeviceNameBufferSize] = {};
    const nvml::Return r = api.device_get_name(gpu.handle, name, sizeof(name));
    if (lost("nvmlDeviceGetName", r)) return;
    if (r == nvml::kSuccess) gpu.name = name;
  }
  if (gpu.name.empty()) gpu.name = d.id;
  d.model = gpu.name;
  if (api.device_get_uuid != nullptr) {
    char uuid[nvml::kDeviceUuidBufferSize] = {};
    const nvml::Return r = api.device_get_uuid(gpu.handle, uuid, sizeof(uuid));
    if (lost("nvmlDeviceGetUUID", r)) return;
    if (r == nvml::kSuccess) d.uuid = uuid;
  }
  if (api.device_get_pci_info != nullptr) {
    nvml::PciInfo pci{};
    const nvml::Return r = api.device_get_pci_info(gpu.handle, &pci);
    if (lost("nvmlDeviceGetPciInfo_v3", r)) return;
    if (r == nvml::kSuccess)
      d.bus_id = std::string(pci.busId, ::strnlen(pci.busId, sizeof(pci.busId)));
  }
  if (api.device_get_memory_info_v2 != nullptr) {
    nvml::MemoryV2 memory{};
    memory.version = nvml::kMemoryV2Version;
    if (api.device_get_memory_info_v2(gpu.handle, &memory) == nvml::kSuccess)
      d.memory_bytes = memory.total;
  }
  if (d.memory_bytes == 0 && api.device_get_memory_info != nullptr) {
    nvml::MemoryV1 memory{};
    const nvml::Return r = api.device_get_memory_info(gpu.handle, &memory);
    if (lost("nvmlDeviceGetMemoryInfo", r)) return;
    if (r == nvml::kSuccess) d.memory_bytes = memory.total;
  }
  if (api.device_get_cuda_compute_capability != nullptr) {
    int major = 0, minor = 0;
    if (api.device_get_cuda_compute_capability(gpu.handle, &major, &minor) == nvml::kSuccess)
      d.features.push_back(fmt::format("compute_capability:{}.{}", major, minor));
  }
  if (api.device_get_architecture != nullptr) {
    unsigned int code = 0;
    if (api.device_get_architecture(gpu.handle, &code) == nvml::kSuccess &&
        !ArchitectureName(code).empty())
      d.features.push_back(fmt::format("architecture:{}", ArchitectureName(code)));
  }
  if (!driver.driver_version.empty()) d.features.push_back("driver:" + driver.driver_version);
  if (!driver.cuda_driver_version.empty())
    d.features.push_back("cuda_driver:" + driver.cuda_driver_version);
  if (api.device_get_cpu_affinity != nullptr) {
    unsigned long words[16] = {};
    if (api.device_get_cpu_affinity(gpu.handle, 16, words) == nvml::kSuccess) {
      const std::string cpus = CpuListFromMask(words, 16);
      if (!cpus.empty()) d.features.push_back("cpu_affinity:" + cpus);
    }
  }
}

}  // namespace

DriverInfo ReadDriverInfo(const NvmlLibrary& library) {
  const NvmlApi& api = library.api();
  DriverInfo info;
  if (api.system_get_driver_version != nullptr) {
    char text[nvml::kDriverVersionBufferSize] = {};
    if (api.system_get_driver_version(text, sizeof(text)) == nvml::kSuccess)
      info.driver_version = text;
  }
  if (api.system_get_cuda_driver_version != nullptr) {
    int version = 0;
    if (api.system_get_cuda_driver_version(&version) == nvml::kSuccess && version > 0)
      info.cuda_driver_version = fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
  }
  return info;
}

Result<std::vector<Gpu>> DiscoverGpus(const NvmlLibrary& library, const DriverInfo& driver) {
  const NvmlApi& api = library.api();
  unsigned int count = 0;
  if (const nvml::Return r = api.device_get_count(&count); r != nvml::kSuccess) {
    return MakeError(ErrorCode::kUnavailable,
                     fmt::format("nvmlDeviceGetCount_v2 failed: {}", library.Describe(r)));
  }
  std::vector<Gpu> gpus;
  for (unsigned int index = 0; index < count; ++index) {
    Gpu gpu;
    Device& d = gpu.device;
    d.backend = "nvidia";
    d.id = fmt::format("nvidia{}", index);
    d.index = static_cast<int>(index);
    d.vendor = "NVIDIA";
    d.topology.packages = 1;
    d.topology.source = "nvml";
    const nvml::Return r = api.device_get_handle_by_index(index, &gpu.handle);
    if (IsLostCode(r)) {
      MarkLost(gpu, "nvmlDeviceGetHandleByIndex_v2", r);
      gpu.handle = nullptr;
      d.model = "NVIDIA GPU (lost)";
      gpu.name = d.id;
    } else if (r != nvml::kSuccess) {
      continue;
    } else {
      Describe(api, driver, gpu);
    }
    gpus.push_back(std::move(gpu));
    // Its MIG devices follow it.
    for (Gpu& mig : DiscoverMigDevices(library, gpus, static_cast<int>(gpus.size() - 1)))
      gpus.push_back(std::move(mig));
  }
  return gpus;
}

std::string_view ArchitectureName(unsigned int code) {
  switch (code) {
    case 2:
      return "kepler";
    case 3:
      return "maxwell";
    case 4:
      return "pascal";
    case 5:
      return "volta";
    case 6:
      return "turing";
    case 7:
      return "ampere";
    case 8:
      return "ada";
    case 9:
      return "hopper";
    case 10:
      return "blackwell";
    case 13:
      return "rubin";
    default:
      return {};
  }
}

std::string CpuListFromMask(const unsigned long* words, size_t count) {
  std::string out;
  const int bits = static_cast<int>(count * 64);
  auto set = [&](int cpu) { return (words[cpu / 64] >> (cpu % 64)) & 1UL; };
  for (int cpu = 0; cpu < bits;) {
    if (!set(cpu)) {
      ++cpu;
      continue;
    }
    int last = cpu;
    while (last + 1 < bits && set(last + 1)) ++last;
    if (!out.empty()) out += ',';
    out += last == cpu ? std::to_string(cpu) : fmt::format("{}-{}", cpu, last);
    cpu = last + 1;
  }
  return out;
}

}  // namespace xpuperf::nvidia
