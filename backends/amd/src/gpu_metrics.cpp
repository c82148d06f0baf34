#include "xpuperf/amd/gpu_metrics.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>

#include "gpu_metrics_layouts.h"

namespace xpuperf::amd {
namespace {

// The SMU leaves fields it does not fill at all-ones (smu_cmn_init_soft_gpu_metrics memsets 0xFF).
template <typename T>
std::optional<T> Filled(T value) {
  if (value == std::numeric_limits<T>::max()) return std::nullopt;
  return value;
}

void AddTemperature(GpuMetrics& m, const char* sensor, uint16_t value) {
  if (auto v = Filled(value)) m.temperatures_celsius.emplace_back(sensor, *v);
}

void AddClock(GpuMetrics& m, const char* clock, uint16_t value) {
  if (auto v = Filled(value); v && *v != 0) m.clocks_mhz.emplace_back(clock, *v);
}

void SetPercent(std::optional<double>& out, uint16_t value) {
  if (auto v = Filled(value); v && *v <= 100) out = *v;
}

void SetLink(GpuMetrics& m, uint32_t width, uint32_t speed_tenths, uint32_t unfilled) {
  if (width != unfilled) m.pcie_link_width = width;
  if (speed_tenths != unfilled) m.pcie_link_speed_gts = speed_tenths / 10.0;
}

template <typename T>
T Copy(std::span<const uint8_t> table) {
  T out;
  std::memcpy(&out, table.data(), sizeof(T));
  return out;
}

void DecodeV1_0(const layout::V1_0& t, GpuMetrics& m) {
  static constexpr const char* kSensors[6] = {"edge", "hotspot", "mem", "vrgfx", "vrsoc", "vrmem"};
  for (int i = 0; i < 6; ++i) AddTemperature(m, kSensors[i], t.temperature[i]);
  SetPercent(m.gfx_activity_percent, t.average_gfx_activity);
  SetPercent(m.umc_activity_percent, t.average_umc_activity);
  SetPercent(m.mm_activity_percent, t.average_mm_activity);
  if (auto w = Filled(t.average_socket_power)) m.socket_power_watts = *w;
  m.socket_power_is_average = true;
  if (auto e = Filled(t.energy_accumulator)) m.energy_accumulator = *e;
  m.energy_accumulator_bits = 32;
  if (auto c = Filled(t.system_clock_counter)) m.system_clock_counter_ns = *c;
  AddClock(m, "gfx", t.current_clocks[0]);
  AddClock(m, "soc", t.current_clocks[1]);
  AddClock(m, "mem", t.current_clocks[2]);
  AddClock(m, "vclk0", t.current_clocks[3]);
  AddClock(m, "dclk0", t.current_clocks[4]);
  if (auto s = Filled(t.throttle_status)) m.throttle_status = *s;
  if (auto f = Filled(t.current_fan_speed)) m.fan_rpm = *f;
  SetLink(m, t.pcie_link_width, t.pcie_link_speed, 0xFF);
}

void DecodeV1_1(const layout::V1_1& t, GpuMetrics& m) {
  static constexpr const char* kSensors[6] = {"edge", "hotspot", "mem", "vrgfx", "vrsoc", "vrmem"};
  for (int i = 0; i < 6; ++i) AddTemperature(m, kSensors[i], t.temperature[i]);
  static constexpr const char* kHbm[4] = {"hbm0", "hbm1", "hbm2", "hbm3"};
  for (int i = 0; i < 4; ++i) AddTemperature(m, kHbm[i], t.temperature_hbm[i]);
  SetPercent(m.gfx_activity_percent, t.average_gfx_activity);
  SetPercent(m.umc_activity_percent, t.average_umc_activity);
  SetPercent(m.mm_activity_percent, t.average_mm_activity);
  if (auto w = Filled(t.average_socket_power)) m.socket_power_watts = *w;
  m.socket_power_is_average = true;
  if (auto e = Filled(t.energy_accumulator)) m.energy_accumulator = *e;
  if (auto c = Filled(t.system_clock_counter)) m.system_clock_counter_ns = *c;
  AddClock(m, "gfx", t.current_clocks[0]);
  AddClock(m, "soc", t.current_clocks[1]);
  AddClock(m, "mem", t.current_clocks[2]);
  AddClock(m, "vclk0", t.current_clocks[3]);
  AddClock(m, "dclk0", t.current_clocks[4]);
  if (auto s = Filled(t.throttle_status)) m.throttle_status = *s;
  if (auto f = Filled(t.current_fan_speed)) m.fan_rpm = *f;
  SetLink(m, t.pcie_link_width, t.pcie_link_speed, 0xFFFF);
}

// 1.4, 1.5 and 1.6 differ only in what sits between the energy counter and the link block.
template <typename T>
void DecodeV1_4Family(const T& t, GpuMetrics& m) {
  AddTemperature(m, "hotspot", t.temperature_hotspot);
  AddTemperature(m, "mem", t.temperature_mem);
  AddTemperature(m, "vrsoc", t.temperature_vrsoc);
  if (auto w = Filled(t.curr_socket_power)) m.socket_power_watts = *w;
  SetPercent(m.gfx_activity_percent, t.average_gfx_activity);
  SetPercent(m.umc_activity_percent, t.average_umc_activity);
  if (auto e = Filled(t.energy_accumulator)) m.energy_accumulator = *e;
  if (auto c = Filled(t.system_clock_counter)) m.system_clock_counter_ns = *c;
  if (auto s = Filled(t.throttle_status)) m.throttle_status = *s;
  SetLink(m, t.link.pcie_link_width, t.link.pcie_link_speed, 0xFFFF);
  if (auto bw = Filled(t.link.pcie_bandwidth_inst)) {
    // GB/s in 1.4/1.5 (kernel comment), Mb/s from 1.6.
    m.pcie_bandwidth_inst_bytes_per_second = m.content_revision >= 6
                                                 ? static_cast<double>(*bw) * 1e6 / 8.0
                                                 : static_cast<double>(*bw) * 1e9;
  }
  if (auto r = Filled(t.link.pcie_replay_count_acc)) m.pcie_replay_count = *r;
  m.has_xgmi = true;
  for (int i = 0; i < 8; ++i) {
    m.xgmi_read_kb[i] = Filled(t.clocks.xgmi_read_data_acc[i]).value_or(0);
    m.xgmi_write_kb[i] = Filled(t.clocks.xgmi_write_data_acc[i]).value_or(0);
  }
  AddClock(m, "gfx", t.clocks.current_gfxclk[0]);
  AddClock(m, "soc", t.clocks.current_socclk[0]);
  AddClock(m, "mem", t.clocks.current_uclk);
  AddClock(m, "vclk0", t.clocks.current_vclk0[0]);
  AddClock(m, "dclk0", t.clocks.current_dclk0[0]);
}

size_t LayoutSize(int content) {
  switch (content) {
    case 0:
      return sizeof(layout::V1_0);
    case 1:
      return sizeof(layout::V1_1);
    case 2:
      return sizeof(layout::V1_2);
    case 3:
      return sizeof(layout::V1_3);
    case 4:
      return sizeof(layout::V1_4);
    case 5:
      return sizeof(layout::V1_5);
    case 6:
      return sizeof(layout::V1_6);
    default:
      return 0;
  }
}

}  // namespace

std::string GpuMetrics::revision() const {
  return fmt::format("{}.{}", format_revision, content_revision);
}

Result<GpuMetrics> DecodeGpuMetrics(std::span<const uint8_t> table) {
  if (table.size() < sizeof(layout::Header)) {
    return MakeError(
        ErrorCode::kParse,
        fmt::format("gpu_metrics has {} bytes, fewer than its 4-byte header", table.size()));
  }
  const auto header = Copy<layout::Header>(table);
  GpuMetrics m;
  m.format_revision = header.format_revision;
  m.content_revision = header.content_revision;
  if (header.format_revision == 2 || header.format_revision == 3) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("gpu_metrics format {} (APU) is not decoded", m.revision()));
  }
  const size_t needed = header.format_revision == 1 ? LayoutSize(header.content_revision) : 0;
  if (needed == 0) {
    return MakeError(
        ErrorCode::kUnsupported,
        fmt::format("gpu_metrics revision {} is not known to xpuperf (decodes 1.0-1.6)",
                    m.revision()));
  }
  if (table.size() < needed || header.structure_size < needed) {
    return MakeError(ErrorCode::kParse,
                     fmt::format("gpu_metrics {} needs {} bytes, got {} (header says {})",
                                 m.revision(), needed, table.size(), header.structure_size));
  }
  switch (header.content_revision) {
    case 0:
      DecodeV1_0(Copy<layout::V1_0>(table), m);
      break;
    case 1:
    case 2:
      DecodeV1_1(Copy<layout::V1_1>(table), m);
      break;
    case 3: {
      const auto t = Copy<layout::V1_3>(table);
      DecodeV1_1(t.base, m);
      if (auto s = Filled(t.indep_throttle_status)) m.indep_throttle_status = *s;
      break;
    }
    case 4:
      DecodeV1_4Family(Copy<layout::V1_4>(table), m);
      break;
    case 5:
      DecodeV1_4Family(Copy<layout::V1_5>(table), m);
      break;
    case 6: {
      const auto t = Copy<layout::V1_6>(table);
      DecodeV1_4Family(t, m);
      m.residency = ThrottleResidency{t.accumulation_counter, t.prochot_residency_acc,
                                      t.ppt_residency_acc,    t.socket_thm_residency_acc,
                                      t.vr_thm_residency_acc, t.hbm_thm_residency_acc};
      break;
    }
  }
  return m;
}

}  // namespace xpuperf::amd
