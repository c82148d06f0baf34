// Internal to the AMD backend: AMD SMI (libamd_smi.so, ROCm) opened with dlopen, used only for what
// the kernel files do not give on a device (power without a hwmon sensor, temperatures without
// hwmon, energy when the gpu_metrics revision is unknown to xpuperf). The library's version is read
// first, into a zeroed buffer, and any other call is made only for the majors whose struct layouts
// xpuperf declares (24.x and 26.x; amdsmi_power_info_t changed between them). Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/core/dynamic_library.h"
#include "xpuperf/core/status.h"

namespace xpuperf::amd {

// Explicit path, else $XPUPERF_AMDSMI_LIBRARY, else libamd_smi.so, libamd_smi.so.26,
// libamd_smi.so.24, /opt/rocm/lib/libamd_smi.so (ROCm's directory is often not on the loader path).
std::vector<std::string> AmdSmiLibraryCandidates(const std::string& explicit_path);

class AmdSmiLibrary {
 public:
  // kUnavailable "libamd_smi.so not found (<dlerror>)", "amdsmi_init failed: status N";
  // kUnsupported "AMD SMI <path> is version 25.1: xpuperf reads the structs of 24.x and 26.x only"
  // (nothing but amdsmi_get_lib_version is called then).
  static Result<std::unique_ptr<AmdSmiLibrary>> Open(const std::vector<std::string>& candidates);
  ~AmdSmiLibrary();
  AmdSmiLibrary(const AmdSmiLibrary&) = delete;
  AmdSmiLibrary& operator=(const AmdSmiLibrary&) = delete;

  std::string version() const;  // "26.5.0"
  bool HasDevice(const std::string& bus_id) const { return processors_.count(bus_id) != 0; }

  // Socket power in W (current, else average); nullopt when unsupported.
  std::optional<double> PowerWatts(const std::string& bus_id) const;
  // °C for AMDSMI_TEMPERATURE_TYPE edge (0), hotspot/junction (1), vram (2).
  std::optional<double> TemperatureCelsius(const std::string& bus_id, int type) const;
  // Energy counter × its resolution, in J.
  std::optional<double> EnergyJoules(const std::string& bus_id) const;

  struct Api;

 private:
  AmdSmiLibrary() = default;
  std::unique_ptr<DynamicLibrary> library_;
  bool initialized_ = false;
  int major_ = 0, minor_ = 0, release_ = 0;
  std::unique_ptr<Api> api_;
  std::map<std::string, void*> processors_;  // bus id "0000:0c:00.0" -> processor handle
};

// "0000:0c:00.0" from an amdsmi BDF id (domain<<32 | partition<<28 | bus<<8 | device<<3 | fn).
std::string BdfIdToBusId(uint64_t bdf_id);

}  // namespace xpuperf::amd
