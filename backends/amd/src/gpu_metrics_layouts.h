// xpuperf's own declarations of the amdgpu gpu_metrics format-1 layouts, field for field in the
// kernel's order, with the kernel's natural alignment (v1.0 is not naturally packed: the compiler
// pads it exactly as the kernel's compiler does on x86-64 and arm64). The sizes and a few offsets
// are pinned below; tests/data/gpu_metrics/generate.py writes blobs from independent offsets.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpuperf::amd::layout {

struct Header {
  uint16_t structure_size;
  uint8_t format_revision;
  uint8_t content_revision;
};

struct V1_0 {
  Header header;
  uint64_t system_clock_counter;
  uint16_t temperature[6];  // edge, hotspot, mem, vrgfx, vrsoc, vrmem
  uint16_t average_gfx_activity, average_umc_activity, average_mm_activity;
  uint16_t average_socket_power;
  uint32_t energy_accumulator;
  uint16_t average_clocks[7];  // gfx, soc, uclk, vclk0, dclk0, vclk1, dclk1
  uint16_t current_clocks[7];
  uint32_t throttle_status;
  uint16_t current_fan_speed;
  uint8_t pcie_link_width;
  uint8_t pcie_link_speed;  // 0.1 GT/s
};

// 1.1, 1.2 and 1.3 share this prefix.
struct V1_1 {
  Header header;
  uint16_t temperature[6];
  uint16_t average_gfx_activity, average_umc_activity, average_mm_activity;
  uint16_t average_socket_power;
  uint64_t energy_accumulator;
  uint64_t system_clock_counter;
  uint16_t average_clocks[7];
  uint16_t current_clocks[7];
  uint32_t throttle_status;
  uint16_t current_fan_speed;
  uint16_t pcie_link_width;
  uint16_t pcie_link_speed;
  uint16_t padding;
  uint32_t gfx_activity_acc;
  uint32_t mem_activity_acc;
  uint16_t temperature_hbm[4];
};

struct V1_2 {
  V1_1 base;
  uint64_t firmware_timestamp;  // 10 ns
};

struct V1_3 {
  V1_1 base;
  uint64_t firmware_timestamp;
  uint16_t voltage_soc, voltage_gfx, voltage_mem;  // mV
  uint16_t padding1;
  uint64_t indep_throttle_status;
};

// The tail 1.4, 1.5 and 1.6 share after their PCIe counters.
struct V1_4Clocks {
  uint64_t xgmi_read_data_acc[8];  // KB
  uint64_t xgmi_write_data_acc[8];
  uint64_t firmware_timestamp;
  uint16_t current_gfxclk[8];
  uint16_t current_socclk[4];
  uint16_t current_vclk0[4];
  uint16_t current_dclk0[4];
  uint16_t current_uclk;
  uint16_t padding;
};

struct V1_4Link {
  uint16_t pcie_link_width;
  uint16_t pcie_link_speed;  // 0.1 GT/s
  uint16_t xgmi_link_width;
  uint16_t xgmi_link_speed;  // Gb/s
  uint32_t gfx_activity_acc;
  uint32_t mem_activity_acc;
  uint64_t pcie_bandwidth_acc;
  uint64_t pcie_bandwidth_inst;
  uint64_t pcie_l0_to_recov_count_acc;
  uint64_t pcie_replay_count_acc;
  uint64_t pcie_replay_rover_count_acc;
};

struct V1_4 {
  Header header;
  uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;
  uint16_t curr_socket_power;  // W
  uint16_t average_gfx_activity, average_umc_activity;
  uint16_t vcn_activity[4];
  uint64_t energy_accumulator;
  uint64_t system_clock_counter;
  uint32_t throttle_status;
  uint32_t gfxclk_lock_status;
  V1_4Link link;
  V1_4Clocks clocks;
};

struct V1_5 {
  Header header;
  uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;
  uint16_t curr_socket_power;
  uint16_t average_gfx_activity, average_umc_activity;
  uint16_t vcn_activity[4];
  uint16_t jpeg_activity[32];
  uint64_t energy_accumulator;
  uint64_t system_clock_counter;
  uint32_t throttle_status;
  uint32_t gfxclk_lock_status;
  V1_4Link link;
  uint32_t pcie_nak_sent_count_acc;
  uint32_t pcie_nak_rcvd_count_acc;
  V1_4Clocks clocks;
};

struct V1_6 {
  Header header;
  uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;
  uint16_t curr_socket_power;
  uint16_t average_gfx_activity, average_umc_activity;
  uint16_t vcn_activity[4];
  uint16_t jpeg_activity[32];
  uint64_t energy_accumulator;
  uint64_t system_clock_counter;
  uint32_t accumulation_counter;
  uint32_t prochot_residency_acc, ppt_residency_acc, socket_thm_residency_acc, vr_thm_residency_acc,
      hbm_thm_residency_acc;
  uint32_t throttle_status;
  uint32_t gfxclk_lock_status;
  V1_4Link link;
  uint32_t pcie_nak_sent_count_acc;
  uint32_t pcie_nak_rcvd_count_acc;
  V1_4Clocks clocks;
};

static_assert(sizeof(V1_0) == 80 && offsetof(V1_0, energy_accumulator) == 36);
static_assert(sizeof(V1_1) == 96 && offsetof(V1_1, energy_accumulator) == 24);
static_assert(sizeof(V1_2) == 104);
static_assert(sizeof(V1_3) == 120 && offsetof(V1_3, indep_throttle_status) == 112);
static_assert(sizeof(V1_4) == 288 && offsetof(V1_4, clocks) == 104);
static_assert(sizeof(V1_5) == 360 && offsetof(V1_5, clocks) == 176);
static_assert(sizeof(V1_6) == 384 && offsetof(V1_6, link) == 136 && offsetof(V1_6, clocks) == 200);

}  // namespace xpuperf::amd::layout
