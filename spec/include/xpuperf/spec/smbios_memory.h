// The host's rated memory bandwidth from the SMBIOS (DMI) memory device table (type 17), for the
// computed CPU spec sheet: populated modules x configured speed x data width.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::spec {

// One SMBIOS type 17 structure (SMBIOS 3.x, DSP0134 section 7.18).
struct SmbiosMemoryDevice {
  std::string locator;           // "DIMM_A1" (Device Locator string)
  bool installed = false;        // false: an empty slot
  uint64_t size_bytes = 0;       // 0 when empty or unknown
  int data_width_bits = 0;       // 0 when unknown (0xFFFF)
  int speed_mts = 0;             // rated speed, MT/s; 0 when unknown
  int configured_speed_mts = 0;  // speed it runs at, MT/s (SMBIOS 2.7+); 0 when unknown
  std::string type;              // "DDR4", "DDR5", ... or "type 0xNN"
};

// Every type 17 structure of a raw SMBIOS structure table (the contents of
// /sys/firmware/dmi/tables/DMI). kParse when a structure runs past the end of the table.
Result<std::vector<SmbiosMemoryDevice>> ParseSmbiosMemoryDevices(std::span<const uint8_t> table);

struct MemoryBandwidthEstimate {
  double bytes_per_second = 0;  // 0 when no populated module has a known speed and width
  std::string description;      // the factors and where they came from, or why it is unknown
  std::string memory_type;      // of the populated modules, e.g. "DDR4"
};

// Sum over populated modules of speed (configured, else rated) x 1e6 x data width / 8, assuming one
// module per memory channel (two modules sharing a channel share its bandwidth).
MemoryBandwidthEstimate EstimateMemoryBandwidth(const std::vector<SmbiosMemoryDevice>& devices);

// Reads root/sys/firmware/dmi/tables/DMI. kNotFound "no SMBIOS memory device table: <path> is
// absent" when the file is absent, kUnavailable when it cannot be read (it is readable by root
// only), else as ParseSmbiosMemoryDevices + EstimateMemoryBandwidth.
Result<MemoryBandwidthEstimate> ReadSmbiosMemoryBandwidth(const std::string& root);

}  // namespace xpuperf::spec
