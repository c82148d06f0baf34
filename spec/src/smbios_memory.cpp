#include "xpuperf/spec/smbios_memory.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace xpuperf::spec {
namespace {

constexpr uint8_t kMemoryDeviceType = 17;
constexpr uint8_t kEndOfTableType = 127;

// A structure's formatted area; fields past its length read as absent (older SMBIOS versions).
class Formatted {
 public:
  explicit Formatted(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  bool Has(size_t offset, size_t width) const { return offset + width <= bytes_.size(); }
  uint8_t Byte(size_t offset) const { return Has(offset, 1) ? bytes_[offset] : 0; }
  uint16_t Word(size_t offset) const {
    return Has(offset, 2) ? static_cast<uint16_t>(bytes_[offset] | (bytes_[offset + 1] << 8)) : 0;
  }
  uint32_t Dword(size_t offset) const {
    if (!Has(offset, 4)) return 0;
    return static_cast<uint32_t>(bytes_[offset]) |
           (static_cast<uint32_t>(bytes_[offset + 1]) << 8) |
           (static_cast<uint32_t>(bytes_[offset + 2]) << 16) |
           (static_cast<uint32_t>(bytes_[offset + 3]) << 24);
  }

 private:
  std::span<const uint8_t> bytes_;
};

std::string MemoryTypeName(uint8_t type) {
  static const std::map<uint8_t, std::string> kNames = {
      {0x12, "DDR"},    {0x13, "DDR2"},   {0x18, "DDR3"},   {0x1A, "DDR4"}, {0x1B, "LPDDR"},
      {0x1C, "LPDDR2"}, {0x1D, "LPDDR3"}, {0x1E, "LPDDR4"}, {0x20, "HBM"},  {0x21, "HBM2"},
      {0x22, "DDR5"},   {0x23, "LPDDR5"}, {0x24, "HBM3"}};
  auto it = kNames.find(type);
  if (it != kNames.end()) return it->second;
  char text[16];
  std::snprintf(text, sizeof(text), "type 0x%02X", type);
  return text;
}

// Size field (offset 0x0C): 0 = empty slot, 0xFFFF = unknown, 0x7FFF = see Extended Size (MiB at
// 0x1C), else bit 15 selects KiB (1) or MiB (0) granularity.
uint64_t ModuleSize(const Formatted& f, bool* installed) {
  const uint16_t size = f.Word(0x0C);
  *installed = size != 0;
  if (size == 0 || size == 0xFFFF) return 0;
  if (size == 0x7FFF) return static_cast<uint64_t>(f.Dword(0x1C) & 0x7FFFFFFF) << 20;
  if (size & 0x8000) return static_cast<uint64_t>(size & 0x7FFF) << 10;
  return static_cast<uint64_t>(size) << 20;
}

// Speed words (0 = unknown); 0xFFFF points at the 32-bit extended field of SMBIOS 3.3.
int Speed(const Formatted& f, size_t offset, size_t extended_offset) {
  const uint16_t speed = f.Word(offset);
  if (speed == 0xFFFF) return static_cast<int>(f.Dword(extended_offset) & 0x7FFFFFFF);
  return speed;
}

}  // namespace

Result<std::vector<SmbiosMemoryDevice>> ParseSmbiosMemoryDevices(std::span<const uint8_t> table) {
  std::vector<SmbiosMemoryDevice> devices;
  size_t pos = 0;
  while (pos + 4 <= table.size()) {
    const uint8_t type = table[pos];
    const uint8_t length = table[pos + 1];
    if (length < 4 || pos + length > table.size()) {
      return MakeError(ErrorCode::kParse, "SMBIOS structure at byte " + std::to_string(pos) +
                                              " runs past the end of the table");
    }
    // The string set follows the formatted area and ends with two NUL bytes.
    std::vector<std::string> strings;
    size_t cursor = pos + length;
    std::string current;
    bool terminated = false;
    while (cursor < table.size()) {
      const uint8_t c = table[cursor++];
      if (c != 0) {
        current += static_cast<char>(c);
        continue;
      }
      if (current.empty()) {
        // An empty string ends the set; a structure without strings has two NULs right away.
        if (strings.empty() && cursor < table.size() && table[cursor] == 0) ++cursor;
        terminated = true;
        break;
      }
      strings.push_back(current);
      current.clear();
    }
    if (!terminated) {
      return MakeError(ErrorCode::kParse, "SMBIOS structure at byte " + std::to_string(pos) +
                                              " has no end of its strings");
    }
    if (type == kMemoryDeviceType) {
      const Formatted f(table.subspan(pos, length));
      SmbiosMemoryDevice device;
      const uint8_t locator = f.Byte(0x10);
      if (locator > 0 && locator <= strings.size()) device.locator = strings[locator - 1];
      device.size_bytes = ModuleSize(f, &device.installed);
      const uint16_t width = f.Word(0x0A);
      device.data_width_bits = width == 0xFFFF ? 0 : width;
      device.speed_mts = Speed(f, 0x15, 0x54);
      device.configured_speed_mts = Speed(f, 0x20, 0x58);
      device.type = MemoryTypeName(f.Byte(0x12));
      devices.push_back(device);
    }
    pos = cursor;
    if (type == kEndOfTableType) break;
  }
  return devices;
}

MemoryBandwidthEstimate EstimateMemoryBandwidth(const std::vector<SmbiosMemoryDevice>& devices) {
  MemoryBandwidthEstimate estimate;
  int populated = 0;
  int counted = 0;
  std::string factors;
  for (const SmbiosMemoryDevice& d : devices) {
    if (!d.installed) continue;
    ++populated;
    const bool configured = d.configured_speed_mts > 0;
    const int speed = configured ? d.configured_speed_mts : d.speed_mts;
    if (speed <= 0 || d.data_width_bits <= 0) continue;
    ++counted;
    const double bytes_per_second = speed * 1e6 * d.data_width_bits / 8.0;
    estimate.bytes_per_second += bytes_per_second;
    if (estimate.memory_type.empty()) estimate.memory_type = d.type;
    char text[160];
    std::snprintf(text, sizeof(text), "%s%s %d MT/s (%s) x %d bytes", factors.empty() ? "" : " + ",
                  d.locator.empty() ? "module" : d.locator.c_str(), speed,
                  configured ? "configured speed" : "rated speed", d.data_width_bits / 8);
    factors += text;
  }
  if (populated == 0) {
    estimate.description = "unknown: the SMBIOS memory device table lists no installed module";
    return estimate;
  }
  if (counted == 0) {
    estimate.description =
        "unknown: no installed module in the SMBIOS memory device table has a known speed and "
        "data width";
    return estimate;
  }
  char total[96];
  std::snprintf(total, sizeof(total), " = %.1f GB/s", estimate.bytes_per_second / 1e9);
  estimate.description =
      std::to_string(counted) + " of " + std::to_string(populated) +
      " installed modules (SMBIOS type 17, one module per channel assumed): " + factors + total;
  return estimate;
}

Result<MemoryBandwidthEstimate> ReadSmbiosMemoryBandwidth(const std::string& root) {
  const std::string path = (root == "/" ? std::string() : root) + "/sys/firmware/dmi/tables/DMI";
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return MakeError(ErrorCode::kNotFound, "no SMBIOS memory device table: " + path + " is absent");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot read " + path + ": " + std::strerror(errno) + " (readable by root)");
  }
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                                   std::istreambuf_iterator<char>());
  XPUPERF_ASSIGN_OR_RETURN(const std::vector<SmbiosMemoryDevice> devices,
                           ParseSmbiosMemoryDevices(bytes));
  return EstimateMemoryBandwidth(devices);
}

}  // namespace xpuperf::spec
