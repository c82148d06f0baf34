// A fake libamd_smi.so for the AMD backend's tests, written from the AMD SMI fact sheet: one MI300X
// socket with one GPU processor at 0000:0c:00.0. FAKE_AMDSMI_MAJOR picks the library version it
// claims and the struct layouts it writes: 24 (24.7.0: {year, major, minor, release, build} and the
// all-u32 amdsmi_power_info_t), 26 (26.5.0: {major, minor, release, build}, u64-led power info) or
// 25 (a version whose layouts xpuperf does not declare: it must be refused before any other call).
#include <cstdint>
#include <cstring>

#ifndef FAKE_AMDSMI_MAJOR
#error "define FAKE_AMDSMI_MAJOR"
#endif

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

int g_other_calls = 0;  // every call but amdsmi_get_lib_version
bool g_initialized = false;
int g_socket = 0;
int g_gpu = 0;

constexpr uint32_t kSuccess = 0, kInval = 1, kNotSupported = 2, kNotInit = 32;

struct VersionV24 {
  uint32_t year, major, minor, release;
  const char* build;
};
struct VersionV26 {
  uint32_t major, minor, release;
  const char* build;
};
struct PowerInfoV24 {
  uint32_t current_socket_power, average_socket_power, gfx_voltage, soc_voltage, mem_voltage,
      power_limit;
  uint32_t reserved[11];
};
struct PowerInfoV26 {
  uint64_t socket_power;
  uint32_t current_socket_power, average_socket_power;
  uint64_t gfx_voltage, soc_voltage, mem_voltage;
  uint32_t power_limit;
  uint64_t reserved[18];
};

bool IsGpu(void* handle) { return handle == &g_gpu; }

}  // namespace

FAKE_EXPORT int fake_amdsmi_other_calls() { return g_other_calls; }

FAKE_EXPORT uint32_t amdsmi_get_lib_version(void* out) {
#if FAKE_AMDSMI_MAJOR == 24
  VersionV24 v{24, 7, 0, 0, "fake"};
#elif FAKE_AMDSMI_MAJOR == 26
  VersionV26 v{26, 5, 0, "fake"};
#else
  VersionV26 v{FAKE_AMDSMI_MAJOR, 1, 0, "fake"};
#endif
  std::memcpy(out, &v, sizeof(v));
  return kSuccess;
}

FAKE_EXPORT uint32_t amdsmi_init(uint64_t flags) {
  ++g_other_calls;
  if (flags != (uint64_t{1} << 1)) return kInval;  // only AMDSMI_INIT_AMD_GPUS on GPU hosts
  g_initialized = true;
  return kSuccess;
}

FAKE_EXPORT uint32_t amdsmi_shut_down() {
  ++g_other_calls;
  g_initialized = false;
  return kSuccess;
}

FAKE_EXPORT uint32_t amdsmi_get_socket_handles(uint32_t* count, void** sockets) {
  ++g_other_calls;
  if (!g_initialized) return kNotInit;
  if (sockets != nullptr && *count >= 1) sockets[0] = &g_socket;
  *count = 1;
  return kSuccess;
}

FAKE_EXPORT uint32_t amdsmi_get_processor_handles(void* socket, uint32_t* count,
                                                  void** processors) {
  ++g_other_calls;
  if (socket != &g_socket) return kInval;
  if (processors != nullptr && *count >= 1) processors[0] = &g_gpu;
  *count = 1;
  return kSuccess;
}

FAKE_EXPORT uint32_t amdsmi_get_processor_type(void* processor, uint32_t* type) {
  ++g_other_calls;
  if (!IsGpu(processor)) return kInval;
  *type = 1;  // AMDSMI_PROCESSOR_TYPE_AMD_GPU
  return kSuccess;
}

FAKE_EXPORT uint32_t amdsmi_get_gpu_bdf_id(void* processor, uint64_t* bdf_id) {
  ++g_other_calls;
  if (!IsGpu(processor)) return kInval;
  *bdf_id = (uint64_t{0} << 32) | (0x0cu << 8) | (0u << 3) | 0u;  // 0000:0c:00.0, partition 0
  return kSuccess;
}

FAKE_EXPORT uint32_t amdsmi_get_power_info(void* processor, void* out) {
  ++g_other_calls;
  if (!IsGpu(processor)) return kInval;
#if FAKE_AMDSMI_MAJOR == 24
  PowerInfoV24 info{};
  info.current_socket_power = 350;     // MI300 fills the current value
  info.average_socket_power = 0xFFFF;  // 24.x's "unsupported"
#else
  PowerInfoV26 info{};
  info.socket_power = UINT64_MAX;
  info.current_socket_power = 351;
  info.average_socket_power = UINT32_MAX;  // 26.x's "unsupported"
#endif
  std::memcpy(out, &info, sizeof(info));
  return kSuccess;
}

FAKE_EXPORT uint32_t amdsmi_get_temp_metric(void* processor, uint32_t type, uint32_t metric,
                                            int64_t* value) {
  ++g_other_calls;
  if (!IsGpu(processor) || metric != 0) return kInval;
  switch (type) {
    case 1:  // hotspot / junction, °C (the implementation divides the sysfs m°C by 1000)
      *value = 61;
      return kSuccess;
    case 2:  // VRAM
      *value = 54;
      return kSuccess;
    default:  // MI300X has no edge sensor
      return kNotSupported;
  }
}

FAKE_EXPORT uint32_t amdsmi_get_energy_count(void* processor, uint64_t* accumulator,
                                             float* resolution_uj, uint64_t* timestamp_ns) {
  ++g_other_calls;
  if (!IsGpu(processor)) return kInval;
  *accumulator = 6'553'600;
  *resolution_uj = 15.259f;
  *timestamp_ns = 123;
  return kSuccess;
}
