#include "amd_smi_library.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

namespace xpuperf::amd {
namespace {

// xpuperf's own declarations of the calls used (amdsmi.h, lib 24.7 and 26.5): every call returns a
// 4-byte status, 0 = success; handles are opaque pointers.
using Status = uint32_t;
using GetLibVersionFn = Status (*)(void* version);
using InitFn = Status (*)(uint64_t flags);
using ShutDownFn = Status (*)();
using GetSocketHandlesFn = Status (*)(uint32_t* count, void** sockets);
using GetProcessorHandlesFn = Status (*)(void* socket, uint32_t* count, void** processors);
using GetProcessorTypeFn = Status (*)(void* processor, uint32_t* type);
using GetBdfIdFn = Status (*)(void* processor, uint64_t* bdf_id);
using GetPowerInfoFn = Status (*)(void* processor, void* info);
using GetTempMetricFn = Status (*)(void* processor, uint32_t sensor, uint32_t metric, int64_t* v);
using GetEnergyCountFn = Status (*)(void* processor, uint64_t* accumulator, float* resolution_uj,
                                    uint64_t* timestamp_ns);

constexpr uint64_t kInitAmdGpus = uint64_t{1} << 1;  // AMDSMI_INIT_AMD_GPUS
constexpr uint32_t kProcessorTypeAmdGpu = 1;
constexpr uint32_t kTemperatureCurrent = 0;
// Out-structs are written into buffers far larger than any version's struct, zeroed first, so a
// library newer than its declaration can never write past them.
constexpr size_t kOutBufferBytes = 1024;

template <typename Fn>
bool Resolve(const DynamicLibrary& library, const char* symbol, Fn& out) {
  out = reinterpret_cast<Fn>(library.FindSymbol(symbol));
  return out != nullptr;
}

uint32_t ReadU32(const unsigned char* buffer, size_t offset) {
  uint32_t v;
  std::memcpy(&v, buffer + offset, sizeof(v));
  return v;
}

}  // namespace

struct AmdSmiLibrary::Api {
  ShutDownFn shut_down = nullptr;
  GetPowerInfoFn get_power_info = nullptr;
  GetTempMetricFn get_temp_metric = nullptr;
  GetEnergyCountFn get_energy_count = nullptr;
};

std::string BdfIdToBusId(uint64_t bdf_id) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", (bdf_id >> 32) & 0xffffffffu,
                     (bdf_id >> 8) & 0xff, (bdf_id >> 3) & 0x1f, bdf_id & 0x7);
}

std::vector<std::string> AmdSmiLibraryCandidates(const std::string& explicit_path) {
  if (!explicit_path.empty()) return {explicit_path};
  if (const char* env = std::getenv("XPUPERF_AMDSMI_LIBRARY"); env != nullptr && *env != '\0') {
    return {env};
  }
  return {"libamd_smi.so", "libamd_smi.so.26", "libamd_smi.so.24", "/opt/rocm/lib/libamd_smi.so"};
}

Result<std::unique_ptr<AmdSmiLibrary>> AmdSmiLibrary::Open(
    const std::vector<std::string>& candidates) {
  // Unloaded on destruction, after amdsmi_shut_down.
  XPUPERF_ASSIGN_OR_RETURN(
      DynamicLibrary opened,
      DynamicLibrary::Open(candidates, DynamicLibraryOptions{
                                           .bind_now = true,
                                           .unload = true,
                                           .missing_code = ErrorCode::kUnavailable,
                                           .expected_symbols = {"amdsmi_init"},
                                           .kind = "AMD SMI library",
                                       }));
  std::unique_ptr<AmdSmiLibrary> library(new AmdSmiLibrary());
  library->library_ = std::make_unique<DynamicLibrary>(std::move(opened));
  library->api_ = std::make_unique<Api>();
  const DynamicLibrary& handle = *library->library_;
  const std::string& path = handle.path();

  GetLibVersionFn get_lib_version = nullptr;
  if (!Resolve(handle, "amdsmi_get_lib_version", get_lib_version)) {
    return MakeError(ErrorCode::kUnsupported, path + " lacks amdsmi_get_lib_version");
  }
  alignas(8) unsigned char version[kOutBufferBytes] = {};
  if (get_lib_version(version) != 0) {
    return MakeError(ErrorCode::kUnavailable, "amdsmi_get_lib_version failed on " + path);
  }
  // 24.x: {u32 year, u32 major, u32 minor, u32 release, const char* build} ("24.7.0" is year 24,
  // major 7); 26.x: {u32 major, u32 minor, u32 release, const char* build}. Either way the first
  // three u32 spell the package version, and the first one says which struct layouts follow.
  library->major_ = static_cast<int>(ReadU32(version, 0));
  library->minor_ = static_cast<int>(ReadU32(version, 4));
  library->release_ = static_cast<int>(ReadU32(version, 8));
  if (library->major_ != 24 && library->major_ != 26) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("AMD SMI {} is version {}.{}: xpuperf reads the structs of 24.x "
                                 "and 26.x only",
                                 path, library->major_, library->minor_));
  }

  InitFn init = nullptr;
  GetSocketHandlesFn get_sockets = nullptr;
  GetProcessorHandlesFn get_processors = nullptr;
  GetProcessorTypeFn get_type = nullptr;
  GetBdfIdFn get_bdf_id = nullptr;
  Api& api = *library->api_;
  if (!Resolve(handle, "amdsmi_init", init) ||
      !Resolve(handle, "amdsmi_shut_down", api.shut_down) ||
      !Resolve(handle, "amdsmi_get_socket_handles", get_sockets) ||
      !Resolve(handle, "amdsmi_get_processor_handles", get_processors) ||
      !Resolve(handle, "amdsmi_get_processor_type", get_type) ||
      !Resolve(handle, "amdsmi_get_gpu_bdf_id", get_bdf_id)) {
    return MakeError(ErrorCode::kUnsupported, path + " lacks the amdsmi enumeration calls");
  }
  Resolve(handle, "amdsmi_get_power_info", api.get_power_info);
  Resolve(handle, "amdsmi_get_temp_metric", api.get_temp_metric);
  Resolve(handle, "amdsmi_get_energy_count", api.get_energy_count);

  if (const Status s = init(kInitAmdGpus); s != 0) {
    return MakeError(ErrorCode::kUnavailable, fmt::format("amdsmi_init failed: status {}", s));
  }
  library->initialized_ = true;
  uint32_t socket_count = 0;
  if (get_sockets(&socket_count, nullptr) != 0 || socket_count > 1024) return library;
  std::vector<void*> sockets(socket_count);
  if (get_sockets(&socket_count, sockets.data()) != 0) return library;
  sockets.resize(std::min<size_t>(socket_count, sockets.size()));
  for (void* socket : sockets) {
    uint32_t count = 0;
    if (get_processors(socket, &count, nullptr) != 0 || count > 1024) continue;
    std::vector<void*> processors(count);
    if (get_processors(socket, &count, processors.data()) != 0) continue;
    processors.resize(std::min<size_t>(count, processors.size()));
    for (void* processor : processors) {
      uint32_t type = 0;
      uint64_t bdf_id = 0;
      if (get_type(processor, &type) != 0 || type != kProcessorTypeAmdGpu) continue;
      if (get_bdf_id(processor, &bdf_id) != 0) continue;
      if (((bdf_id >> 28) & 0xf) != 0) continue;  // a partition other than the first
      library->processors_.emplace(BdfIdToBusId(bdf_id), processor);
    }
  }
  return library;
}

AmdSmiLibrary::~AmdSmiLibrary() {
  if (initialized_ && api_ && api_->shut_down != nullptr) api_->shut_down();
}

std::string AmdSmiLibrary::version() const {
  return fmt::format("{}.{}.{}", major_, minor_, release_);
}

std::optional<double> AmdSmiLibrary::PowerWatts(const std::string& bus_id) const {
  auto it = processors_.find(bus_id);
  if (it == processors_.end() || api_->get_power_info == nullptr) return std::nullopt;
  alignas(8) unsigned char info[kOutBufferBytes] = {};
  if (api_->get_power_info(it->second, info) != 0) return std::nullopt;
  uint32_t current = 0, average = 0, unsupported = 0;
  if (major_ == 24) {
    // {u32 current_socket_power, u32 average_socket_power, u32 gfx/soc/mem voltage, u32 limit, …}
    current = ReadU32(info, 0);
    average = ReadU32(info, 4);
    unsupported = 0xFFFF;
  } else {
    // {u64 socket_power, u32 current_socket_power, u32 average_socket_power, u64 voltages ×3, …}
    current = ReadU32(info, 8);
    average = ReadU32(info, 12);
    unsupported = 0xFFFFFFFFu;
  }
  if (current != unsupported && current != 0) return static_cast<double>(current);
  if (average != unsupported && average != 0) return static_cast<double>(average);
  return std::nullopt;
}

std::optional<double> AmdSmiLibrary::TemperatureCelsius(const std::string& bus_id, int type) const {
  auto it = processors_.find(bus_id);
  if (it == processors_.end() || api_->get_temp_metric == nullptr) return std::nullopt;
  int64_t celsius = 0;
  if (api_->get_temp_metric(it->second, static_cast<uint32_t>(type), kTemperatureCurrent,
                            &celsius) != 0) {
    return std::nullopt;
  }
  return static_cast<double>(celsius);
}

std::optional<double> AmdSmiLibrary::EnergyJoules(const std::string& bus_id) const {
  auto it = processors_.find(bus_id);
  if (it == processors_.end() || api_->get_energy_count == nullptr) return std::nullopt;
  uint64_t accumulator = 0, timestamp = 0;
  float resolution_uj = 0;
  if (api_->get_energy_count(it->second, &accumulator, &resolution_uj, &timestamp) != 0 ||
      !(resolution_uj > 0)) {
    return std::nullopt;
  }
  return static_cast<double>(accumulator) * static_cast<double>(resolution_uj) / 1e6;
}

}  // namespace xpuperf::amd
