#include "xpuperf/spec/smbios_memory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace xpuperf::spec {
namespace {

void PutWord(std::vector<uint8_t>& s, size_t offset, uint16_t value) {
  s[offset] = static_cast<uint8_t>(value & 0xFF);
  s[offset + 1] = static_cast<uint8_t>(value >> 8);
}

// A type 17 structure of SMBIOS 2.8 (formatted length 0x28) with one string, the locator.
std::vector<uint8_t> MemoryDevice(uint16_t size, uint16_t data_width, uint16_t speed,
                                  uint16_t configured_speed, uint8_t type,
                                  const std::string& locator) {
  std::vector<uint8_t> s(0x28, 0);
  s[0] = 17;
  s[1] = 0x28;
  PutWord(s, 0x08, 72);  // total width: 64 data + 8 ECC bits
  PutWord(s, 0x0A, data_width);
  PutWord(s, 0x0C, size);
  s[0x10] = 1;  // device locator: string 1
  s[0x12] = type;
  PutWord(s, 0x15, speed);
  PutWord(s, 0x20, configured_speed);
  s.insert(s.end(), locator.begin(), locator.end());
  s.push_back(0);
  s.push_back(0);
  return s;
}

std::vector<uint8_t> Table(const std::vector<std::vector<uint8_t>>& structures) {
  std::vector<uint8_t> table;
  // A BIOS information structure (type 0) without strings comes first, as on real tables.
  std::vector<uint8_t> bios(0x12, 0);
  bios[1] = 0x12;
  table.insert(table.end(), bios.begin(), bios.end());
  table.push_back(0);
  table.push_back(0);
  for (const auto& s : structures) table.insert(table.end(), s.begin(), s.end());
  const std::vector<uint8_t> end = {127, 4, 0, 0, 0, 0};
  table.insert(table.end(), end.begin(), end.end());
  return table;
}

TEST(SmbiosMemoryTest, ParsesMemoryDevicesAndSkipsOtherStructures) {
  const auto table = Table({MemoryDevice(16384, 64, 3200, 2933, 0x1A, "DIMM_A1"),
                            MemoryDevice(0, 0xFFFF, 0, 0, 0x02, "DIMM_A2"),
                            MemoryDevice(0x8000 | 512, 64, 3200, 0, 0x22, "DIMM_B1")});
  auto devices = ParseSmbiosMemoryDevices(table);
  ASSERT_TRUE(devices.ok()) << devices.error().ToString();
  ASSERT_EQ(devices->size(), 3u);
  const SmbiosMemoryDevice& a1 = (*devices)[0];
  EXPECT_EQ(a1.locator, "DIMM_A1");
  EXPECT_TRUE(a1.installed);
  EXPECT_EQ(a1.size_bytes, 16384ull << 20);  // MiB granularity
  EXPECT_EQ(a1.data_width_bits, 64);
  EXPECT_EQ(a1.speed_mts, 3200);
  EXPECT_EQ(a1.configured_speed_mts, 2933);
  EXPECT_EQ(a1.type, "DDR4");
  EXPECT_FALSE((*devices)[1].installed);
  EXPECT_EQ((*devices)[1].data_width_bits, 0);        // 0xFFFF: unknown
  EXPECT_EQ((*devices)[2].size_bytes, 512ull << 10);  // bit 15: KiB granularity
  EXPECT_EQ((*devices)[2].type, "DDR5");
}

TEST(SmbiosMemoryTest, BandwidthIsSpeedTimesWidthOverInstalledModules) {
  const auto table = Table({MemoryDevice(16384, 64, 3200, 2933, 0x1A, "DIMM_A1"),
                            MemoryDevice(0, 64, 3200, 3200, 0x1A, "DIMM_A2"),
                            MemoryDevice(16384, 64, 3200, 0, 0x1A, "DIMM_B1")});
  auto devices = ParseSmbiosMemoryDevices(table);
  ASSERT_TRUE(devices.ok());
  const MemoryBandwidthEstimate estimate = EstimateMemoryBandwidth(*devices);
  // 2933 MT/s (configured) x 8 bytes + 3200 MT/s (rated; no configured speed) x 8 bytes.
  EXPECT_DOUBLE_EQ(estimate.bytes_per_second, 2933e6 * 8 + 3200e6 * 8);
  EXPECT_EQ(estimate.memory_type, "DDR4");
  EXPECT_NE(estimate.description.find("2 of 2 installed modules"), std::string::npos)
      << estimate.description;
  EXPECT_NE(estimate.description.find("DIMM_A1 2933 MT/s (configured speed) x 8 bytes"),
            std::string::npos)
      << estimate.description;
  EXPECT_NE(estimate.description.find("= 49.1 GB/s"), std::string::npos) << estimate.description;
}

TEST(SmbiosMemoryTest, UnknownWhenNoModuleHasSpeedAndWidth) {
  auto devices = ParseSmbiosMemoryDevices(Table({MemoryDevice(16384, 64, 0, 0, 0x1A, "DIMM")}));
  ASSERT_TRUE(devices.ok());
  const MemoryBandwidthEstimate estimate = EstimateMemoryBandwidth(*devices);
  EXPECT_EQ(estimate.bytes_per_second, 0);
  EXPECT_NE(estimate.description.find("unknown"), std::string::npos);
  EXPECT_NE(EstimateMemoryBandwidth({}).description.find("no installed module"), std::string::npos);
}

TEST(SmbiosMemoryTest, TruncatedTablesAreParseErrors) {
  auto table = Table({MemoryDevice(16384, 64, 3200, 2933, 0x1A, "DIMM_A1")});
  table.resize(0x12 + 2 + 0x20);  // cut inside the memory device's formatted area
  EXPECT_EQ(ParseSmbiosMemoryDevices(table).error().code, ErrorCode::kParse);
  std::vector<uint8_t> no_strings_end = {17, 4, 0, 0, 'a'};
  EXPECT_EQ(ParseSmbiosMemoryDevices(no_strings_end).error().code, ErrorCode::kParse);
}

TEST(SmbiosMemoryTest, ReadsTheTableUnderRoot) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("xpuperf-smbios-" + std::to_string(getpid()));
  std::filesystem::create_directories(root / "sys/firmware/dmi/tables");
  {
    const auto table = Table({MemoryDevice(8192, 64, 2400, 2400, 0x1A, "A"),
                              MemoryDevice(8192, 64, 2400, 2400, 0x1A, "B")});
    std::ofstream file(root / "sys/firmware/dmi/tables/DMI", std::ios::binary);
    file.write(reinterpret_cast<const char*>(table.data()),
               static_cast<std::streamsize>(table.size()));
  }
  auto estimate = ReadSmbiosMemoryBandwidth(root.string());
  ASSERT_TRUE(estimate.ok()) << estimate.error().ToString();
  EXPECT_DOUBLE_EQ(estimate->bytes_per_second, 2 * 2400e6 * 8);
  std::filesystem::remove_all(root);

  auto missing = ReadSmbiosMemoryBandwidth("/no/such/root");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find("no SMBIOS memory device table"), std::string::npos);
}

}  // namespace
}  // namespace xpuperf::spec
