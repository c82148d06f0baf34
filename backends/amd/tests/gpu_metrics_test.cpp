// Decodes the blobs tests/data/gpu_metrics/generate.py writes from the kernel layouts.
#include "xpuperf/amd/gpu_metrics.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>

namespace xpuperf::amd {
namespace {

std::vector<uint8_t> Blob(const std::string& name) {
  std::ifstream in(std::string(XPUPERF_TEST_DATA_DIR) + "/gpu_metrics/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Result<GpuMetrics> Decode(const std::string& name) {
  const std::vector<uint8_t> blob = Blob(name);
  return DecodeGpuMetrics(blob);
}

std::map<std::string, double> AsMap(const std::vector<std::pair<std::string, double>>& pairs) {
  return {pairs.begin(), pairs.end()};
}

TEST(GpuMetrics, V1_0IsReadWithItsPadding) {
  auto m = Decode("v1_0.bin");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->revision(), "1.0");
  EXPECT_EQ(AsMap(m->temperatures_celsius), (std::map<std::string, double>{{"edge", 40},
                                                                           {"hotspot", 52},
                                                                           {"mem", 48},
                                                                           {"vrgfx", 39},
                                                                           {"vrsoc", 38},
                                                                           {"vrmem", 37}}));
  EXPECT_EQ(m->gfx_activity_percent, 25);
  EXPECT_EQ(m->umc_activity_percent, 10);
  EXPECT_EQ(m->mm_activity_percent, 0);
  EXPECT_EQ(m->socket_power_watts, 150);
  EXPECT_TRUE(m->socket_power_is_average);
  EXPECT_EQ(m->energy_accumulator, 4'294'000'000u);
  EXPECT_EQ(m->energy_accumulator_bits, 32);
  EXPECT_EQ(m->system_clock_counter_ns, 5'000'000'000u);
  EXPECT_EQ(AsMap(m->clocks_mhz),
            (std::map<std::string, double>{{"gfx", 1600}, {"soc", 1000}, {"mem", 875}}));
  EXPECT_EQ(m->throttle_status, 5u);
  EXPECT_EQ(m->fan_rpm, 1200u);
  EXPECT_EQ(m->pcie_link_width, 16u);
  EXPECT_EQ(m->pcie_link_speed_gts, 8.0);
  EXPECT_FALSE(m->indep_throttle_status.has_value());
  EXPECT_FALSE(m->has_xgmi);
}

TEST(GpuMetrics, V1_3ConsumerPart) {
  auto m = Decode("v1_3-navi31.bin");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->revision(), "1.3");
  // No HBM on a Radeon: temperature_hbm is all-ones and left out.
  EXPECT_EQ(AsMap(m->temperatures_celsius), (std::map<std::string, double>{{"edge", 45},
                                                                           {"hotspot", 58},
                                                                           {"mem", 50},
                                                                           {"vrgfx", 44},
                                                                           {"vrsoc", 42},
                                                                           {"vrmem", 40}}));
  EXPECT_EQ(m->gfx_activity_percent, 35);
  EXPECT_EQ(m->socket_power_watts, 212);
  EXPECT_DOUBLE_EQ(*m->energy_accumulator * kGpuMetricsEnergyJoulesPerUnit, 50.0);
  EXPECT_EQ(m->energy_accumulator_bits, 64);
  EXPECT_EQ(AsMap(m->clocks_mhz),
            (std::map<std::string, double>{{"gfx", 2500}, {"soc", 1100}, {"mem", 1249}}));
  EXPECT_EQ(m->throttle_status, 0x100u);
  EXPECT_EQ(m->indep_throttle_status, (uint64_t{1} << 0) | (uint64_t{1} << 35));
  EXPECT_EQ(m->pcie_link_speed_gts, 16.0);
  EXPECT_FALSE(m->pcie_bandwidth_inst_bytes_per_second.has_value());
}

TEST(GpuMetrics, V1_3DatacenterPartWithHbm) {
  auto m = Decode("v1_3-mi250x.bin");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const auto temps = AsMap(m->temperatures_celsius);
  EXPECT_EQ(temps.size(), 7u);  // edge, hotspot, mem, hbm0-3 (VR sensors unfilled)
  EXPECT_EQ(temps.at("hbm0"), 52);
  EXPECT_EQ(temps.at("hbm3"), 50);
  EXPECT_FALSE(m->mm_activity_percent.has_value());
  EXPECT_FALSE(m->fan_rpm.has_value());
  EXPECT_DOUBLE_EQ(*m->energy_accumulator * kGpuMetricsEnergyJoulesPerUnit, 200000.0);
  EXPECT_EQ(m->indep_throttle_status, 0u);
}

void ExpectMi300Family(const GpuMetrics& m) {
  EXPECT_EQ(AsMap(m.temperatures_celsius),
            (std::map<std::string, double>{{"hotspot", 62}, {"mem", 55}, {"vrsoc", 48}}));
  EXPECT_EQ(m.socket_power_watts, 356);
  EXPECT_FALSE(m.socket_power_is_average);
  EXPECT_EQ(m.gfx_activity_percent, 87);
  EXPECT_EQ(m.umc_activity_percent, 41);
  EXPECT_DOUBLE_EQ(*m.energy_accumulator * kGpuMetricsEnergyJoulesPerUnit, 100000.0);
  EXPECT_EQ(m.system_clock_counter_ns, 2'000'000'000u);
  EXPECT_EQ(m.pcie_link_width, 16u);
  EXPECT_EQ(m.pcie_link_speed_gts, 32.0);
  EXPECT_EQ(m.pcie_bandwidth_inst_bytes_per_second, 8e9);  // 8 GB/s and 64000 Mb/s
  EXPECT_EQ(m.pcie_replay_count, 3u);
  EXPECT_TRUE(m.has_xgmi);
  EXPECT_EQ(m.xgmi_read_kb[0], 1000u);
  EXPECT_EQ(m.xgmi_read_kb[7], 8000u);
  EXPECT_EQ(m.xgmi_write_kb[7], 4000u);
  EXPECT_EQ(AsMap(m.clocks_mhz),
            (std::map<std::string, double>{{"gfx", 2100}, {"soc", 1200}, {"mem", 1300}}));
  EXPECT_FALSE(m.indep_throttle_status.has_value());
}

TEST(GpuMetrics, V1_4V1_5V1_6) {
  for (const char* name : {"v1_4.bin", "v1_5.bin", "v1_6-mi300x-a.bin"}) {
    SCOPED_TRACE(name);
    auto m = Decode(name);
    ASSERT_TRUE(m.ok()) << m.error().message;
    ExpectMi300Family(*m);
  }
  auto v16 = Decode("v1_6-mi300x-a.bin");
  ASSERT_TRUE(v16->residency.has_value());
  EXPECT_EQ(v16->residency->accumulation_counter, 1000u);
  EXPECT_EQ(v16->residency->ppt, 250u);
  EXPECT_FALSE(Decode("v1_5.bin")->residency.has_value());
}

TEST(GpuMetrics, RefusesWhatItCannotDecode) {
  auto truncated = Decode("v1_6-truncated.bin");
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().code, ErrorCode::kParse);
  EXPECT_EQ(truncated.error().message,
            "gpu_metrics 1.6 needs 384 bytes, got 100 (header says 384)");

  auto unknown = Decode("v1_9-unknown.bin");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(unknown.error().message,
            "gpu_metrics revision 1.9 is not known to xpuperf (decodes 1.0-1.6)");

  auto apu = Decode("v2_1-apu.bin");
  ASSERT_FALSE(apu.ok());
  EXPECT_EQ(apu.error().message, "gpu_metrics format 2.1 (APU) is not decoded");

  EXPECT_FALSE(DecodeGpuMetrics({}).ok());
  const uint8_t short_header[] = {0x78, 0x00, 0x01};
  EXPECT_FALSE(DecodeGpuMetrics(short_header).ok());
  // A header whose structure_size is smaller than the layout, in a file big enough.
  std::vector<uint8_t> lying = Blob("v1_3-navi31.bin");
  lying[0] = 100;
  EXPECT_FALSE(DecodeGpuMetrics(lying).ok());
}

}  // namespace
}  // namespace xpuperf::amd
