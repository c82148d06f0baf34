#include "xpuperf/drm/fdinfo.h"

#include <gtest/gtest.h>

namespace xpuperf::drm {
namespace {

TEST(DrmFdinfo, AmdgpuCurrentFormat) {
  auto usage = ParseDrmFdinfo(
      "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
      "drm-pdev:\t0000:0c:00.0\npasid:\t32769\ndrm-memory-vram:\t8388608 KiB\n"
      "drm-memory-gtt:\t2048 KiB\namd-memory-visible-vram:\t4 MiB\ndrm-engine-gfx:\t1000 ns\n"
      "drm-engine-compute:\t25 ns\n");
  ASSERT_TRUE(usage.ok()) << usage.error().message;
  EXPECT_EQ(usage->driver, "amdgpu");
  EXPECT_EQ(usage->pdev, "0000:0c:00.0");
  EXPECT_EQ(usage->client_id, 7u);
  EXPECT_EQ(usage->engine_busy_ns.at("gfx"), 1000u);
  EXPECT_EQ(usage->engine_busy_ns.at("compute"), 25u);
  EXPECT_EQ(usage->memory_bytes.at("memory-vram"), 8388608ull * 1024);
  EXPECT_EQ(usage->memory_bytes.at("memory-visible-vram"), 4ull << 20);
  EXPECT_EQ(DeviceMemoryBytes(*usage), 8388608ull * 1024);
  EXPECT_FALSE(usage->legacy_format);
}

TEST(DrmFdinfo, AmdgpuBefore519) {
  auto usage = ParseDrmFdinfo(
      "pos:\t0\npdev:\t0000:03:00.0\npasid:\t32770\nvram mem:\t1024 kB\ngtt mem:\t8 kB\n"
      "cpu mem:\t0 kB\ngfx0:\t 12.50%\ncomp_1.0.0:\t  0.00%\nsdma0:\t101.00%\n");
  ASSERT_TRUE(usage.ok());
  EXPECT_TRUE(usage->legacy_format);
  EXPECT_EQ(usage->driver, "amdgpu");
  EXPECT_EQ(usage->pdev, "0000:03:00.0");
  EXPECT_EQ(DeviceMemoryBytes(*usage), 1024u * 1024);
  EXPECT_DOUBLE_EQ(usage->legacy_ring_percent.at("gfx0"), 12.5);
  EXPECT_DOUBLE_EQ(usage->legacy_ring_percent.at("comp_1.0.0"), 0.0);
  EXPECT_EQ(usage->legacy_ring_percent.count("sdma0"), 0u);  // over 100: not a percentage
}

TEST(DrmFdinfo, I915) {
  auto usage = ParseDrmFdinfo(
      "drm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t43\n"
      "drm-engine-render:\t9288864723 ns\ndrm-engine-copy:\t0 ns\ndrm-engine-video:\t0 ns\n"
      "drm-engine-capacity-video:\t2\ndrm-engine-video-enhance:\t0 ns\n"
      "drm-total-local0:\t65536 KiB\ndrm-resident-local0:\t32768 KiB\n"
      "drm-total-system0:\t512 KiB\n");
  ASSERT_TRUE(usage.ok());
  EXPECT_EQ(usage->engine_busy_ns.size(), 4u);  // capacity is not an engine time
  EXPECT_EQ(usage->engine_capacity.at("video"), 2u);
  EXPECT_EQ(usage->engine_busy_ns.at("render"), 9288864723u);
  EXPECT_EQ(DeviceMemoryBytes(*usage), 65536u * 1024);
}

TEST(DrmFdinfo, XeCycles) {
  auto usage = ParseDrmFdinfo(
      "drm-driver:\txe\ndrm-client-id:\t5\ndrm-pdev:\t0000:03:00.0\n"
      "drm-total-vram0:\t2048 KiB\ndrm-cycles-rcs:\t28257900\ndrm-total-cycles-rcs:\t7655183225\n"
      "drm-cycles-ccs:\t0\ndrm-total-cycles-ccs:\t7655183225\ndrm-engine-capacity-ccs:\t4\n");
  ASSERT_TRUE(usage.ok());
  EXPECT_EQ(usage->engine_cycles.at("rcs"), 28257900u);
  EXPECT_EQ(usage->total_cycles.at("rcs"), 7655183225u);
  EXPECT_EQ(usage->engine_busy_ns.size(), 0u);
  EXPECT_EQ(DeviceMemoryBytes(*usage), 2048u * 1024);
}

TEST(DrmFdinfo, NotADrmClient) {
  auto usage = ParseDrmFdinfo("pos:\t0\nflags:\t0100002\nmnt_id:\t25\nino:\t6\n");
  ASSERT_FALSE(usage.ok());
  EXPECT_EQ(usage.error().code, ErrorCode::kParse);
  EXPECT_FALSE(ParseDrmFdinfo("").ok());
}

TEST(DrmFdinfo, MalformedValuesAreSkipped) {
  auto usage = ParseDrmFdinfo(
      "drm-driver: amdgpu\ndrm-engine-gfx: lots ns\ndrm-engine-dma: 5 us\n"
      "drm-memory-vram: 12 PiB\ndrm-client-id: x\ndrm-engine-: 4 ns\nno colon here\n");
  ASSERT_TRUE(usage.ok());
  EXPECT_TRUE(usage->engine_busy_ns.empty());
  EXPECT_TRUE(usage->memory_bytes.empty());
  EXPECT_FALSE(usage->client_id.has_value());
}

TEST(DrmFdinfo, MemoryAmounts) {
  EXPECT_EQ(ParseMemoryAmount("12"), 12u);
  EXPECT_EQ(ParseMemoryAmount("3 MiB"), 3u << 20);
  EXPECT_EQ(ParseMemoryAmount("2 GiB"), 2ull << 30);
  EXPECT_EQ(ParseMemoryAmount("18446744073709551615 KiB"), std::nullopt);  // overflows
  EXPECT_EQ(ParseMemoryAmount(""), std::nullopt);
  EXPECT_EQ(ParseMemoryAmount("-1 KiB"), std::nullopt);
}

}  // namespace
}  // namespace xpuperf::drm
