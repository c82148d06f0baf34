// A fake libze_loader.so.1 for the Intel backend's tests, written from the Level Zero Sysman fact
// sheet: one driver with one GPU at PCI 0000:03:00.0 (the recorded Arc A770). FAKE_ZE_VARIANT:
//   1 "current": API 1.5, exports zesInit/zesDriverGet/zesDeviceGet;
//   2 "legacy":  API 1.4, no zesInit; Sysman answers only when ZES_ENABLE_SYSMAN=1 was set before
//                zeInit (Debian bookworm's loader 1.8);
//   3 "v2":      API 2.0, a major whose structs xpuperf does not declare: it must be refused before
//                any Sysman call.
// Engine activity advances by 400 active per 1000 timestamp units on each call (40% busy); one
// device memory module of 16 GiB with 12 GiB free; RAS: correctable compute 3 and cache 1, the
// uncorrectable set refused as without root, unless FAKE_ZE_RAS_UNCORRECTABLE scripts it as
// "<category>:<count>,..." (zes_ras_error_cat_t numbers: 0 reset, 2 driver, 5 cache, ...), as root
// would read it.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifndef FAKE_ZE_VARIANT
#error "define FAKE_ZE_VARIANT"
#endif

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr uint32_t kSuccess = 0, kUninitialized = 0x78000001, kInvalidArgument = 0x78000004,
                   kInsufficientPermissions = 0x70010000;

int g_sysman_calls = 0;
bool g_core_initialized = false;
bool g_sysman_enabled = false;
int g_driver = 0, g_device = 0, g_engine_all = 0, g_engine_compute_sub = 0, g_memory = 0,
    g_ras_correctable = 0, g_ras_uncorrectable = 0;
uint64_t g_engine_calls = 0;

struct Header {
  uint32_t stype;
  void* pNext;
};
struct PciProperties {
  Header h;
  uint32_t domain, bus, device, function;
  int32_t gen, width;
  int64_t max_bandwidth;
  uint8_t have_bandwidth, have_packets, have_replay;
};
struct EngineProperties {
  Header h;
  uint32_t type;
  uint8_t on_subdevice;
  uint32_t subdevice_id;
};
struct MemProperties {
  Header h;
  uint32_t type;
  uint8_t on_subdevice;
  uint32_t subdevice_id;
  uint32_t location;
  uint64_t physical_size;
  int32_t bus_width, num_channels;
};
struct MemState {
  Header h;
  uint32_t health;
  uint64_t free, size;
};
struct RasProperties {
  Header h;
  uint32_t type;
  uint8_t on_subdevice;
  uint32_t subdevice_id;
};
struct RasState {
  Header h;
  uint64_t category[7];
};
struct EngineStats {
  uint64_t active_time, timestamp;
};

// Sysman calls need Sysman enabled; counted so the "v2" test can prove none was made.
bool SysmanReady() {
  ++g_sysman_calls;
  return g_sysman_enabled;
}

template <typename T>
uint32_t Fill(uint32_t* count, T** out, T* const* items, uint32_t n) {
  if (*count == 0 || out == nullptr) {
    *count = n;
    return kSuccess;
  }
  const uint32_t k = *count < n ? *count : n;
  for (uint32_t i = 0; i < k; ++i) out[i] = items[i];
  *count = k;
  return kSuccess;
}

}  // namespace

FAKE_EXPORT int fake_ze_sysman_calls() { return g_sysman_calls; }

FAKE_EXPORT uint32_t zeInit(uint32_t flags) {
  g_core_initialized = true;
#if FAKE_ZE_VARIANT == 2
  const char* env = std::getenv("ZES_ENABLE_SYSMAN");
  g_sysman_enabled = env != nullptr && std::strcmp(env, "1") == 0;
#endif
  return kSuccess;
}

FAKE_EXPORT uint32_t zeDriverGet(uint32_t* count, void** drivers) {
  if (!g_core_initialized) return kUninitialized;
  void* items[] = {&g_driver};
  return Fill(count, drivers, items, 1);
}

FAKE_EXPORT uint32_t zeDriverGetApiVersion(void* driver, uint32_t* version) {
  if (driver != &g_driver) return kInvalidArgument;
#if FAKE_ZE_VARIANT == 1
  *version = (1u << 16) | 5u;
#elif FAKE_ZE_VARIANT == 2
  *version = (1u << 16) | 4u;
#else
  *version = (2u << 16) | 0u;
#endif
  return kSuccess;
}

FAKE_EXPORT uint32_t zeDeviceGet(void* driver, uint32_t* count, void** devices) {
  if (driver != &g_driver) return kInvalidArgument;
  void* items[] = {&g_device};
  return Fill(count, devices, items, 1);
}

#if FAKE_ZE_VARIANT != 2
FAKE_EXPORT uint32_t zesInit(uint32_t flags) {
  ++g_sysman_calls;
  g_sysman_enabled = true;
  return kSuccess;
}
FAKE_EXPORT uint32_t zesDriverGet(uint32_t* count, void** drivers) {
  if (!SysmanReady()) return kUninitialized;
  void* items[] = {&g_driver};
  return Fill(count, drivers, items, 1);
}
FAKE_EXPORT uint32_t zesDeviceGet(void* driver, uint32_t* count, void** devices) {
  if (!SysmanReady()) return kUninitialized;
  void* items[] = {&g_device};
  return Fill(count, devices, items, 1);
}
#endif

FAKE_EXPORT uint32_t zesDevicePciGetProperties(void* device, PciProperties* p) {
  if (!SysmanReady()) return kUninitialized;
  if (device != &g_device || p->h.stype != 0x2) return kInvalidArgument;
  p->domain = 0;
  p->bus = 3;
  p->device = 0;
  p->function = 0;
  p->gen = 4;
  p->width = 16;
  return kSuccess;
}

FAKE_EXPORT uint32_t zesDeviceEnumEngineGroups(void* device, uint32_t* count, void** engines) {
  if (!SysmanReady()) return kUninitialized;
  void* items[] = {&g_engine_all, &g_engine_compute_sub};
  return Fill(count, engines, items, 2);
}

FAKE_EXPORT uint32_t zesEngineGetProperties(void* engine, EngineProperties* p) {
  if (!SysmanReady()) return kUninitialized;
  if (p->h.stype != 0x5) return kInvalidArgument;
  if (engine == &g_engine_all) {
    p->type = 0;  // ZES_ENGINE_GROUP_ALL, device level
    p->on_subdevice = 0;
  } else {
    p->type = 1;  // COMPUTE_ALL of sub-device 0: must not be taken for the device
    p->on_subdevice = 1;
  }
  return kSuccess;
}

FAKE_EXPORT uint32_t zesEngineGetActivity(void* engine, EngineStats* stats) {
  if (!SysmanReady()) return kUninitialized;
  if (engine == &g_engine_all) {
    ++g_engine_calls;
    stats->active_time = 400 * g_engine_calls;
    stats->timestamp = 1000 * g_engine_calls;
  } else {
    stats->active_time = 999;  // a sub-device at 99.9%
    stats->timestamp = 1000;
  }
  return kSuccess;
}

FAKE_EXPORT uint32_t zesDeviceEnumMemoryModules(void* device, uint32_t* count, void** modules) {
  if (!SysmanReady()) return kUninitialized;
  void* items[] = {&g_memory};
  return Fill(count, modules, items, 1);
}

FAKE_EXPORT uint32_t zesMemoryGetProperties(void* module, MemProperties* p) {
  if (!SysmanReady()) return kUninitialized;
  if (p->h.stype != 0xb) return kInvalidArgument;
  p->location = 1;  // ZES_MEM_LOC_DEVICE
  p->physical_size = uint64_t{16} << 30;
  return kSuccess;
}

FAKE_EXPORT uint32_t zesMemoryGetState(void* module, MemState* s) {
  if (!SysmanReady()) return kUninitialized;
  if (s->h.stype != 0x1e) return kInvalidArgument;
  s->free = uint64_t{12} << 30;
  s->size = uint64_t{16} << 30;
  return kSuccess;
}

FAKE_EXPORT uint32_t zesDeviceEnumRasErrorSets(void* device, uint32_t* count, void** sets) {
  if (!SysmanReady()) return kUninitialized;
  void* items[] = {&g_ras_correctable, &g_ras_uncorrectable};
  return Fill(count, sets, items, 2);
}

FAKE_EXPORT uint32_t zesRasGetProperties(void* set, RasProperties* p) {
  if (!SysmanReady()) return kUninitialized;
  if (p->h.stype != 0xf) return kInvalidArgument;
  p->type = set == &g_ras_correctable ? 0 : 1;
  return kSuccess;
}

FAKE_EXPORT uint32_t zesRasGetState(void* set, uint8_t clear, RasState* s) {
  if (!SysmanReady()) return kUninitialized;
  if (s->h.stype != 0x22 || clear != 0) return kInvalidArgument;
  if (set == &g_ras_uncorrectable) {
    const char* script = std::getenv("FAKE_ZE_RAS_UNCORRECTABLE");
    if (script == nullptr) return kInsufficientPermissions;
    for (const char* p = script; *p != '\0';) {
      char* end = nullptr;
      const unsigned long category = std::strtoul(p, &end, 10);
      if (end == p || *end != ':' || category >= 7) return kInvalidArgument;
      p = end + 1;
      s->category[category] = std::strtoull(p, &end, 10);
      if (end == p) return kInvalidArgument;
      p = *end == ',' ? end + 1 : end;
    }
    return kSuccess;
  }
  s->category[3] = 3;  // compute
  s->category[5] = 1;  // cache
  return kSuccess;
}
