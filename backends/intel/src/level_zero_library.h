// Internal to the Intel backend: Level Zero Sysman through dlopen of the loader
// (libze_loader.so.1), used for what i915/xe sysfs lacks: device-level engine activity, device
// memory in use, RAS error counters. The driver's API version is read (zeDriverGetApiVersion)
// before any Sysman struct, and only major 1 is accepted. Sysman is initialised with zesInit where
// the loader has it (spec 1.5+, loader 1.9.4+), else with ZES_ENABLE_SYSMAN=1 before zeInit
// (Debian bookworm's loader 1.8). Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "level_zero_abi.h"
#include "xpuperf/core/dynamic_library.h"
#include "xpuperf/core/status.h"

namespace xpuperf::intel {

// Explicit path, else $XPUPERF_LEVEL_ZERO_LIBRARY, else libze_loader.so.1, libze_loader.so.
std::vector<std::string> LevelZeroLibraryCandidates(const std::string& explicit_path);

class LevelZeroLibrary {
 public:
  // kUnavailable "libze_loader.so.1 not found (…)", "zeInit failed: 0x78000001 (…)", "no Level
  // Zero driver"; kUnsupported "Level Zero API 2.0 of <path>: xpuperf reads the Sysman structs of
  // the 1.x spec only" (no Sysman call is made then).
  static Result<std::unique_ptr<LevelZeroLibrary>> Open(const std::vector<std::string>& candidates);
  ~LevelZeroLibrary();  // Sysman has no shutdown; the loader stays loaded (its driver threads)
  LevelZeroLibrary(const LevelZeroLibrary&) = delete;
  LevelZeroLibrary& operator=(const LevelZeroLibrary&) = delete;

  std::string description() const;  // "Level Zero 1.5 (zesInit)"
  bool HasDevice(const std::string& bus_id) const { return devices_.count(bus_id) != 0; }

  // ΔactiveTime / Δtimestamp of the device-level ALL engine group (else the busiest of the
  // COMPUTE/RENDER/MEDIA/COPY groups) since the previous call, in percent; nullopt on the first
  // call or when the driver reports no group. `why` says why when nullopt.
  std::optional<double> EngineBusyPercent(const std::string& bus_id, std::string* why);
  // (physical size, free) bytes of the device-located memory modules.
  std::optional<std::pair<uint64_t, uint64_t>> DeviceMemory(const std::string& bus_id,
                                                            std::string* why) const;
  // ("correctable_cache", n) … per RAS error set and category.
  std::vector<std::pair<std::string, uint64_t>> RasCounts(const std::string& bus_id,
                                                          std::string* why) const;

  struct Api;

 private:
  LevelZeroLibrary() = default;
  std::unique_ptr<DynamicLibrary> library_;
  std::unique_ptr<Api> api_;
  uint32_t api_version_ = 0;
  bool zes_init_ = false;
  std::map<std::string, ze::Handle> devices_;  // "0000:03:00.0" -> Sysman device handle
  // bus id -> engine group type -> last stats.
  std::map<std::string, std::map<uint32_t, ze::EngineStats>> previous_engine_;
};

// "0x70010000 (insufficient permissions)".
std::string DescribeZeResult(ze::Result result);

}  // namespace xpuperf::intel
