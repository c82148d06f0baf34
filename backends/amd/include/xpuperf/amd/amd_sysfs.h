// Parsers for the amdgpu text files under /sys/class/drm/cardN/device (kernel amdgpu_pm.c,
// amdgpu_ras.c). Pure functions; any input gives a value or nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace xpuperf::amd {

// ras/<block>_err_count: "ue: 0\nce: 12\n" (newer kernels add "de: N").
struct RasCounts {
  uint64_t uncorrectable = 0;
  uint64_t correctable = 0;
  std::optional<uint64_t> deferred;
};
std::optional<RasCounts> ParseRasErrorCount(std::string_view text);

// pp_dpm_sclk / pp_dpm_mclk: lines "1: 1837Mhz *" with the current level marked by '*' (a
// deep-sleep level reads "S: 19Mhz *"). The current level's frequency in MHz.
std::optional<double> ParseCurrentDpmLevelMhz(std::string_view text);
// The highest level of a pp_dpm_* file in MHz (the clock's maximum), or nullopt.
std::optional<double> ParseHighestDpmLevelMhz(std::string_view text);

// A marketing name for well-known PCI device ids of AMD GPUs; empty when unknown.
std::string_view AmdModelName(uint32_t device_id);

}  // namespace xpuperf::amd
