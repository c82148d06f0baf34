// xpuperf's own declarations of the Level Zero Sysman calls it uses (zes_api.h, spec 1.4-1.17):
// handles are opaque pointers, every call returns a 4-byte ze_result_t (0 = success), and each
// properties/state struct starts with {u32 stype, void* pNext} with stype set by the caller. Only
// fields at the offsets below are read; out-structs are passed as zeroed buffers far larger than
// any spec version's struct, so a newer driver cannot write past them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpuperf::intel::ze {

using Result = uint32_t;
using Handle = void*;

inline constexpr Result kSuccess = 0;
inline constexpr Result kInsufficientPermissions = 0x70010000;
inline constexpr Result kUnsupportedFeature = 0x78000003;

// ZE_MAKE_VERSION(major, minor) = major << 16 | minor.
inline constexpr uint32_t ApiMajor(uint32_t version) { return version >> 16; }
inline constexpr uint32_t ApiMinor(uint32_t version) { return version & 0xffff; }

// zes_structure_type_t values.
inline constexpr uint32_t kPciProperties = 0x2;
inline constexpr uint32_t kEngineProperties = 0x5;
inline constexpr uint32_t kMemProperties = 0xb;
inline constexpr uint32_t kRasProperties = 0xf;
inline constexpr uint32_t kMemState = 0x1e;
inline constexpr uint32_t kRasState = 0x22;

// Offsets (bytes) of the fields read, after {u32 stype; pad; void* pNext} = 16 bytes.
inline constexpr size_t kHeaderBytes = 16;
// zes_pci_properties_t: address {u32 domain, bus, device, function}.
inline constexpr size_t kPciDomain = 16, kPciBus = 20, kPciDevice = 24, kPciFunction = 28;
// zes_engine_properties_t: {type u32, onSubdevice u8, subdeviceId u32}.
inline constexpr size_t kEngineType = 16, kEngineOnSubdevice = 20;
// zes_mem_properties_t: {type u32, onSubdevice u8, subdeviceId u32, location u32, physicalSize
// u64}.
inline constexpr size_t kMemOnSubdevice = 20, kMemLocation = 28, kMemPhysicalSize = 32;
// zes_mem_state_t: {health u32, pad, free u64, size u64}.
inline constexpr size_t kMemFree = 24;
// zes_ras_properties_t: {type u32 (0 correctable, 1 uncorrectable), onSubdevice u8, …}.
inline constexpr size_t kRasType = 16, kRasOnSubdevice = 20;
// zes_ras_state_t: {u64 category[7]}.
inline constexpr size_t kRasCategories = 16;
inline constexpr int kRasCategoryCount = 7;

inline constexpr uint32_t kEngineGroupAll = 0, kEngineGroupComputeAll = 1, kEngineGroupMediaAll = 2,
                          kEngineGroupCopyAll = 3, kEngineGroupRenderAll = 12;
inline constexpr uint32_t kMemLocationDevice = 1;

inline constexpr size_t kOutBufferBytes = 1024;

struct EngineStats {  // zes_engine_stats_t (no stype): ratio only, units are driver-specific
  uint64_t active_time;
  uint64_t timestamp;
};

using InitFn = Result (*)(uint32_t flags);
using DriverGetFn = Result (*)(uint32_t* count, Handle* drivers);
using DeviceGetFn = Result (*)(Handle driver, uint32_t* count, Handle* devices);
using DriverGetApiVersionFn = Result (*)(Handle driver, uint32_t* version);
using GetPropertiesFn = Result (*)(Handle object, void* properties);
using EnumFn = Result (*)(Handle device, uint32_t* count, Handle* objects);
using EngineGetActivityFn = Result (*)(Handle engine, EngineStats* stats);
using RasGetStateFn = Result (*)(Handle ras, uint8_t clear, void* state);

}  // namespace xpuperf::intel::ze
