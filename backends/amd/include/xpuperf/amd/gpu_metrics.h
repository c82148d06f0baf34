// The amdgpu `gpu_metrics` sysfs table (device/gpu_metrics): a binary struct whose 4-byte header
// {u16 structure_size, u8 format_revision, u8 content_revision} says which layout follows
// (kernel drivers/gpu/drm/amd/include/kgd_pp_interface.h). Decoded layouts: format 1 (dGPU)
// content 0-6. Any other revision, or a table shorter than its layout, is refused with the
// reason, never guessed. Fields the firmware does not fill read as all-ones and are left empty.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::amd {

// The SMU's energy unit: 2^-16 J = 15.259 µJ (kernel comment "15.259uJ (2^-16) units").
inline constexpr double kGpuMetricsEnergyJoulesPerUnit = 1.0 / 65536.0;

struct ThrottleResidency {  // v1.6: residency counters per accumulation cycle (PVIOL/TVIOL)
  uint32_t accumulation_counter = 0;
  uint32_t prochot = 0;
  uint32_t ppt = 0;
  uint32_t socket_thermal = 0;
  uint32_t vr_thermal = 0;
  uint32_t hbm_thermal = 0;
};

struct GpuMetrics {
  int format_revision = 0;
  int content_revision = 0;
  // (sensor, °C): "edge", "hotspot", "mem", "vrgfx", "vrsoc", "vrmem", "hbm0".."hbm3".
  std::vector<std::pair<std::string, double>> temperatures_celsius;
  std::optional<double> gfx_activity_percent;
  std::optional<double> umc_activity_percent;  // memory controller
  std::optional<double> mm_activity_percent;   // UVD/VCN (<= 1.3)
  std::optional<double> socket_power_watts;
  bool socket_power_is_average = false;  // <= 1.3: average_socket_power; 1.4+: curr_socket_power
  std::optional<uint64_t> energy_accumulator;  // kGpuMetricsEnergyJoulesPerUnit units
  int energy_accumulator_bits = 64;            // 32 in v1.0 (wraps)
  std::optional<uint64_t> system_clock_counter_ns;
  // (clock, MHz): "gfx", "soc", "mem" (UCLK), "vclk0", "dclk0"; 1.4+ report XCC 0's gfx clock.
  std::vector<std::pair<std::string, double>> clocks_mhz;
  std::optional<uint32_t> throttle_status;        // ASIC-specific bits
  std::optional<uint64_t> indep_throttle_status;  // ASIC-independent bits (1.3 only)
  std::optional<ThrottleResidency> residency;     // 1.6
  std::optional<uint32_t> pcie_link_width;        // lanes
  std::optional<double> pcie_link_speed_gts;      // GT/s
  // 1.4/1.5 say GB/s in the kernel comment, 1.6 Mb/s; converted to bytes/s here.
  std::optional<double> pcie_bandwidth_inst_bytes_per_second;
  std::optional<uint64_t> pcie_replay_count;
  bool has_xgmi = false;  // 1.4+
  std::array<uint64_t, 8> xgmi_read_kb{};
  std::array<uint64_t, 8> xgmi_write_kb{};
  std::optional<uint32_t> fan_rpm;

  std::string revision() const;  // "1.3"
};

// kParse with the reason for: a table shorter than 4 bytes, a structure_size or file shorter than
// the layout ("gpu_metrics 1.6 needs 384 bytes, got 100"), and kUnsupported for a revision
// without a decoder ("gpu_metrics revision 1.7 is not known to xpuperf (decodes 1.0-1.6)";
// "gpu_metrics format 2 (APU) is not decoded").
Result<GpuMetrics> DecodeGpuMetrics(std::span<const uint8_t> table);

}  // namespace xpuperf::amd
