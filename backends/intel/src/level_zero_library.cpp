#include "level_zero_library.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace xpuperf::intel {
namespace {

template <typename Fn>
bool Resolve(const DynamicLibrary& library, const char* symbol, Fn& out) {
  out = reinterpret_cast<Fn>(library.FindSymbol(symbol));
  return out != nullptr;
}

template <typename T>
T Read(const unsigned char* buffer, size_t offset) {
  T v;
  std::memcpy(&v, buffer + offset, sizeof(v));
  return v;
}

// A zeroed out-buffer with its stype set.
struct OutStruct {
  alignas(8) unsigned char bytes[ze::kOutBufferBytes] = {};
  explicit OutStruct(uint32_t stype) { std::memcpy(bytes, &stype, sizeof(stype)); }
};

// "count first, then fill", bounded.
std::vector<ze::Handle> Enumerate(ze::EnumFn fn, ze::Handle device) {
  if (fn == nullptr) return {};
  uint32_t count = 0;
  if (fn(device, &count, nullptr) != ze::kSuccess || count == 0 || count > 4096) return {};
  std::vector<ze::Handle> out(count);
  if (fn(device, &count, out.data()) != ze::kSuccess) return {};
  out.resize(std::min<size_t>(count, out.size()));
  return out;
}

constexpr const char* kRasCategories[ze::kRasCategoryCount] = {
    "reset", "programming", "driver", "compute", "non_compute", "cache", "display"};

}  // namespace

struct LevelZeroLibrary::Api {
  ze::GetPropertiesFn pci_get_properties = nullptr;
  ze::EnumFn enum_engine_groups = nullptr;
  ze::GetPropertiesFn engine_get_properties = nullptr;
  ze::EngineGetActivityFn engine_get_activity = nullptr;
  ze::EnumFn enum_memory_modules = nullptr;
  ze::GetPropertiesFn memory_get_properties = nullptr;
  ze::GetPropertiesFn memory_get_state = nullptr;
  ze::EnumFn enum_ras_error_sets = nullptr;
  ze::GetPropertiesFn ras_get_properties = nullptr;
  ze::RasGetStateFn ras_get_state = nullptr;
};

std::string DescribeZeResult(ze::Result result) {
  switch (result) {
    case ze::kInsufficientPermissions:
      return "0x70010000 (insufficient permissions)";
    case 0x78000001:
      return "0x78000001 (uninitialized)";
    case ze::kUnsupportedFeature:
      return "0x78000003 (unsupported feature)";
    case 0x70020000:
      return "0x70020000 (device lost)";
    default:
      return fmt::format("{:#x}", result);
  }
}

std::vector<std::string> LevelZeroLibraryCandidates(const std::string& explicit_path) {
  if (!explicit_path.empty()) return {explicit_path};
  if (const char* env = std::getenv("XPUPERF_LEVEL_ZERO_LIBRARY"); env != nullptr && *env) {
    return {env};
  }
  return {"libze_loader.so.1", "libze_loader.so"};
}

Result<std::unique_ptr<LevelZeroLibrary>> LevelZeroLibrary::Open(
    const std::vector<std::string>& candidates) {
  XPUPERF_ASSIGN_OR_RETURN(
      DynamicLibrary opened,
      DynamicLibrary::Open(candidates, DynamicLibraryOptions{
                                           .bind_now = true,
                                           .unload = false,
                                           .missing_code = ErrorCode::kUnavailable,
                                           .expected_symbols = {"zeInit"},
                                           .kind = "Level Zero loader",
                                       }));
  std::unique_ptr<LevelZeroLibrary> library(new LevelZeroLibrary());
  library->library_ = std::make_unique<DynamicLibrary>(std::move(opened));
  library->api_ = std::make_unique<Api>();
  const DynamicLibrary& handle = *library->library_;
  const std::string& path = handle.path();

  ze::InitFn ze_init = nullptr, zes_init = nullptr;
  ze::DriverGetFn ze_driver_get = nullptr, zes_driver_get = nullptr;
  ze::DeviceGetFn ze_device_get = nullptr, zes_device_get = nullptr;
  ze::DriverGetApiVersionFn get_api_version = nullptr;
  if (!Resolve(handle, "zeInit", ze_init) || !Resolve(handle, "zeDriverGet", ze_driver_get) ||
      !Resolve(handle, "zeDeviceGet", ze_device_get) ||
      !Resolve(handle, "zeDriverGetApiVersion", get_api_version)) {
    return MakeError(ErrorCode::kUnsupported, path + " lacks zeInit/zeDriverGet/zeDeviceGet");
  }
  library->zes_init_ = Resolve(handle, "zesInit", zes_init) &&
                       Resolve(handle, "zesDriverGet", zes_driver_get) &&
                       Resolve(handle, "zesDeviceGet", zes_device_get);
  // Loaders before 1.9.4 enable Sysman only through this variable, read by zeInit.
  if (!library->zes_init_) ::setenv("ZES_ENABLE_SYSMAN", "1", /*overwrite=*/0);
  constexpr uint32_t kGpuOnly = 1;  // ZE_INIT_FLAG_GPU_ONLY
  if (const ze::Result r = ze_init(kGpuOnly); r != ze::kSuccess) {
    return MakeError(ErrorCode::kUnavailable, "zeInit failed: " + DescribeZeResult(r) +
                                                  " (no Intel GPU Level Zero driver?)");
  }
  uint32_t driver_count = 0;
  if (ze_driver_get(&driver_count, nullptr) != ze::kSuccess || driver_count == 0) {
    return MakeError(ErrorCode::kUnavailable, "no Level Zero driver");
  }
  std::vector<ze::Handle> drivers(std::min<uint32_t>(driver_count, 64));
  driver_count = static_cast<uint32_t>(drivers.size());
  if (ze_driver_get(&driver_count, drivers.data()) != ze::kSuccess) {
    return MakeError(ErrorCode::kUnavailable, "zeDriverGet failed");
  }
  uint32_t version = 0;
  if (get_api_version(drivers[0], &version) != ze::kSuccess) {
    return MakeError(ErrorCode::kUnavailable, "zeDriverGetApiVersion failed");
  }
  library->api_version_ = version;
  if (ze::ApiMajor(version) != 1) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("Level Zero API {}.{} of {}: xpuperf reads the Sysman structs of "
                                 "the 1.x spec only",
                                 ze::ApiMajor(version), ze::ApiMinor(version), path));
  }

  Api& api = *library->api_;
  Resolve(handle, "zesDevicePciGetProperties", api.pci_get_properties);
  Resolve(handle, "zesDeviceEnumEngineGroups", api.enum_engine_groups);
  Resolve(handle, "zesEngineGetProperties", api.engine_get_properties);
  Resolve(handle, "zesEngineGetActivity", api.engine_get_activity);
  Resolve(handle, "zesDeviceEnumMemoryModules", api.enum_memory_modules);
  Resolve(handle, "zesMemoryGetProperties", api.memory_get_properties);
  Resolve(handle, "zesMemoryGetState", api.memory_get_state);
  Resolve(handle, "zesDeviceEnumRasErrorSets", api.enum_ras_error_sets);
  Resolve(handle, "zesRasGetProperties", api.ras_get_properties);
  Resolve(handle, "zesRasGetState", api.ras_get_state);
  if (api.pci_get_properties == nullptr) {
    return MakeError(ErrorCode::kUnsupported, path + " lacks zesDevicePciGetProperties");
  }

  std::vector<ze::Handle> devices;
  if (library->zes_init_) {
    if (const ze::Result r = zes_init(0); r != ze::kSuccess) {
      return MakeError(ErrorCode::kUnavailable, "zesInit failed: " + DescribeZeResult(r));
    }
    uint32_t count = 0;
    if (zes_driver_get(&count, nullptr) == ze::kSuccess && count > 0) {
      std::vector<ze::Handle> zes_drivers(std::min<uint32_t>(count, 64));
      count = static_cast<uint32_t>(zes_drivers.size());
      if (zes_driver_get(&count, zes_drivers.data()) == ze::kSuccess) {
        for (ze::Handle d : zes_drivers) {
          auto found = Enumerate(zes_device_get, d);
          devices.insert(devices.end(), found.begin(), found.end());
        }
      }
    }
  } else {
    for (ze::Handle d : drivers) {
      auto found = Enumerate(ze_device_get, d);
      devices.insert(devices.end(), found.begin(), found.end());
    }
  }
  for (ze::Handle device : devices) {
    OutStruct pci(ze::kPciProperties);
    if (api.pci_get_properties(device, pci.bytes) != ze::kSuccess) continue;
    library->devices_.emplace(
        fmt::format("{:04x}:{:02x}:{:02x}.{:x}", Read<uint32_t>(pci.bytes, ze::kPciDomain),
                    Read<uint32_t>(pci.bytes, ze::kPciBus),
                    Read<uint32_t>(pci.bytes, ze::kPciDevice),
                    Read<uint32_t>(pci.bytes, ze::kPciFunction)),
        device);
  }
  return library;
}

LevelZeroLibrary::~LevelZeroLibrary() = default;

std::string LevelZeroLibrary::description() const {
  return fmt::format("Level Zero {}.{} ({})", ze::ApiMajor(api_version_),
                     ze::ApiMinor(api_version_), zes_init_ ? "zesInit" : "ZES_ENABLE_SYSMAN=1");
}

std::optional<double> LevelZeroLibrary::EngineBusyPercent(const std::string& bus_id,
                                                          std::string* why) {
  auto device = devices_.find(bus_id);
  if (device == devices_.end() || api_->engine_get_properties == nullptr ||
      api_->engine_get_activity == nullptr) {
    *why = description() + " has no engine groups for " + bus_id;
    return std::nullopt;
  }
  std::map<uint32_t, ze::EngineStats> now;
  ze::Result last_failure = ze::kSuccess;
  for (ze::Handle engine : Enumerate(api_->enum_engine_groups, device->second)) {
    OutStruct props(ze::kEngineProperties);
    if (api_->engine_get_properties(engine, props.bytes) != ze::kSuccess) continue;
    if (Read<uint8_t>(props.bytes, ze::kEngineOnSubdevice) != 0) continue;  // device level only
    const uint32_t type = Read<uint32_t>(props.bytes, ze::kEngineType);
    ze::EngineStats stats{};
    const ze::Result r = api_->engine_get_activity(engine, &stats);
    if (r != ze::kSuccess) {
      last_failure = r;
      continue;
    }
    now[type] = stats;
  }
  auto& before = previous_engine_[bus_id];
  const bool first = before.empty();
  std::optional<double> all, busiest;
  for (const auto& [type, stats] : now) {
    auto old = before.find(type);
    if (old == before.end() || stats.timestamp <= old->second.timestamp ||
        stats.active_time < old->second.active_time) {
      continue;
    }
    const double percent =
        std::min(100.0, 100.0 * static_cast<double>(stats.active_time - old->second.active_time) /
                            static_cast<double>(stats.timestamp - old->second.timestamp));
    if (type == ze::kEngineGroupAll) all = percent;
    if (type == ze::kEngineGroupComputeAll || type == ze::kEngineGroupRenderAll ||
        type == ze::kEngineGroupMediaAll || type == ze::kEngineGroupCopyAll) {
      busiest = std::max(busiest.value_or(0.0), percent);
    }
  }
  before = std::move(now);
  if (all) return all;
  if (busiest) return busiest;
  if (last_failure != ze::kSuccess) {
    *why = "zesEngineGetActivity failed: " + DescribeZeResult(last_failure) +
           (last_failure == ze::kInsufficientPermissions ? " (i915 engine busy needs CAP_PERFMON)"
                                                         : "");
  } else if (first) {
    *why = "engine activity needs two samples";
  } else {
    *why = description() + " reports no device-level engine group";
  }
  return std::nullopt;
}

std::optional<std::pair<uint64_t, uint64_t>> LevelZeroLibrary::DeviceMemory(
    const std::string& bus_id, std::string* why) const {
  auto device = devices_.find(bus_id);
  if (device == devices_.end() || api_->memory_get_properties == nullptr ||
      api_->memory_get_state == nullptr) {
    *why = description() + " has no memory modules for " + bus_id;
    return std::nullopt;
  }
  uint64_t size = 0, free = 0;
  bool any = false;
  for (ze::Handle module : Enumerate(api_->enum_memory_modules, device->second)) {
    OutStruct props(ze::kMemProperties);
    if (api_->memory_get_properties(module, props.bytes) != ze::kSuccess) continue;
    if (Read<uint32_t>(props.bytes, ze::kMemLocation) != ze::kMemLocationDevice) continue;
    OutStruct state(ze::kMemState);
    if (const ze::Result r = api_->memory_get_state(module, state.bytes); r != ze::kSuccess) {
      *why = "zesMemoryGetState failed: " + DescribeZeResult(r);
      continue;
    }
    size += Read<uint64_t>(props.bytes, ze::kMemPhysicalSize);
    free += Read<uint64_t>(state.bytes, ze::kMemFree);
    any = true;
  }
  if (!any) {
    if (why->empty()) *why = description() + " reports no device memory module";
    return std::nullopt;
  }
  return std::pair{size, free};
}

std::vector<std::pair<std::string, uint64_t>> LevelZeroLibrary::RasCounts(const std::string& bus_id,
                                                                          std::string* why) const {
  std::vector<std::pair<std::string, uint64_t>> out;
  auto device = devices_.find(bus_id);
  if (device == devices_.end() || api_->ras_get_properties == nullptr ||
      api_->ras_get_state == nullptr) {
    *why = description() + " has no RAS error sets for " + bus_id;
    return out;
  }
  std::map<std::string, uint64_t> totals;
  for (ze::Handle set : Enumerate(api_->enum_ras_error_sets, device->second)) {
    OutStruct props(ze::kRasProperties);
    if (api_->ras_get_properties(set, props.bytes) != ze::kSuccess) continue;
    const char* kind =
        Read<uint32_t>(props.bytes, ze::kRasType) == 0 ? "correctable" : "uncorrectable";
    OutStruct state(ze::kRasState);
    if (const ze::Result r = api_->ras_get_state(set, /*clear=*/0, state.bytes);
        r != ze::kSuccess) {
      *why = "zesRasGetState failed: " + DescribeZeResult(r) +
             (r == ze::kInsufficientPermissions ? " (RAS counters need root)" : "");
      continue;
    }
    // Sub-device sets are summed into the device's counts.
    for (int i = 0; i < ze::kRasCategoryCount; ++i) {
      totals[fmt::format("{}_{}", kind, kRasCategories[i])] +=
          Read<uint64_t>(state.bytes, ze::kRasCategories + 8 * static_cast<size_t>(i));
    }
  }
  out.assign(totals.begin(), totals.end());
  if (out.empty() && why->empty()) *why = description() + " reports no RAS error set";
  return out;
}

}  // namespace xpuperf::intel
