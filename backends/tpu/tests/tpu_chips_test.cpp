#include "tpu_chips.h"

#include <gtest/gtest.h>

#include <string>

namespace xpuperf::tpu {
namespace {

const std::string kTrees = std::string(XPUPERF_TEST_DATA_DIR) + "/trees";
constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(ChipGenerationTest, MapsEveryKnownDeviceId) {
  EXPECT_EQ(LookupChipGeneration(0x0027, 0x004e)->name, "v2");
  EXPECT_EQ(LookupChipGeneration(0x0027, 0x004f)->name, "v3");
  EXPECT_FALSE(LookupChipGeneration(0x0027, 0x0001).has_value());
  EXPECT_EQ(LookupChipGeneration(0x005e, 0)->hbm_bytes, 32 * kGiB);
  EXPECT_EQ(LookupChipGeneration(0x0062, 0)->hbm_bytes, 95 * kGiB);
  EXPECT_EQ(LookupChipGeneration(0x006f, 0)->name, "v6e");
  const auto ironwood = LookupChipGeneration(0x0076, 0);
  ASSERT_TRUE(ironwood.has_value());
  EXPECT_EQ(ironwood->name, "7x");
  EXPECT_EQ(ironwood->cores_per_chip, 2);
  EXPECT_EQ(ironwood->hbm_bytes, 192 * kGiB);
  EXPECT_FALSE(LookupChipGeneration(0x0042, 0).has_value());  // gVNIC
}

TEST(DiscoverTpuChipsTest, V4HostHasFourChipsWithAccelNodes) {
  auto chips = DiscoverTpuChips(kTrees + "/v4-4chip");
  ASSERT_TRUE(chips.ok()) << chips.error().ToString();
  ASSERT_EQ(chips->size(), 4u);  // the Intel bridge and the gVNIC are skipped
  for (int i = 0; i < 4; ++i) {
    const TpuChip& chip = (*chips)[static_cast<size_t>(i)];
    EXPECT_EQ(chip.index, i);
    EXPECT_EQ(chip.generation.name, "v4");
    EXPECT_EQ(chip.device_node, "/dev/accel" + std::to_string(i));
    EXPECT_EQ(chip.functions.size(), 1u);
  }
  EXPECT_EQ((*chips)[0].bus_id, "0000:00:04.0");
  EXPECT_EQ((*chips)[0].owner_pids, std::vector<int>{1234});
  EXPECT_EQ((*chips)[1].owner_pids, std::vector<int>{1234});
  EXPECT_TRUE((*chips)[2].owner_pids.empty());
}

TEST(DiscoverTpuChipsTest, V5eHostHasEightChipsBehindVfio) {
  auto chips = DiscoverTpuChips(kTrees + "/v5e-8chip");
  ASSERT_TRUE(chips.ok()) << chips.error().ToString();
  ASSERT_EQ(chips->size(), 8u);
  EXPECT_EQ((*chips)[0].generation.name, "v5e");
  EXPECT_EQ((*chips)[0].generation.hbm_bytes, 16 * kGiB);
  EXPECT_EQ((*chips)[0].device_node, "/dev/vfio/10");
  EXPECT_EQ((*chips)[7].device_node, "/dev/vfio/17");
  EXPECT_EQ((*chips)[7].bus_id, "0000:00:0c.0");
  EXPECT_EQ((*chips)[0].owner_pids, std::vector<int>{4242});
  EXPECT_EQ((*chips)[7].owner_pids, (std::vector<int>{4242, 4243}));
}

TEST(DiscoverTpuChipsTest, Tpu7xFunctionsGroupIntoDualCoreChips) {
  auto chips = DiscoverTpuChips(kTrees + "/tpu7x-2chip");
  ASSERT_TRUE(chips.ok()) << chips.error().ToString();
  ASSERT_EQ(chips->size(), 2u);
  EXPECT_EQ((*chips)[0].functions, (std::vector<std::string>{"0000:00:04.0", "0000:00:04.1"}));
  EXPECT_EQ((*chips)[1].bus_id, "0000:00:05.0");
  EXPECT_EQ((*chips)[1].generation.cores_per_chip, 2);
  EXPECT_EQ((*chips)[0].device_node, "/dev/vfio/3");
  EXPECT_EQ((*chips)[1].device_node, "/dev/vfio/5");
  EXPECT_TRUE((*chips)[0].owner_pids.empty());  // no /proc in this recording
}

TEST(DiscoverTpuChipsTest, MissingPciDirectoryIsNotFound) {
  auto chips = DiscoverTpuChips(kTrees + "/does-not-exist");
  ASSERT_FALSE(chips.ok());
  EXPECT_EQ(chips.error().code, ErrorCode::kNotFound);
}

TEST(FindDeviceOwnersTest, MatchesOnlyTheExactNode) {
  EXPECT_EQ(FindDeviceOwners(kTrees + "/v5e-8chip", "/dev/vfio/1"), std::vector<int>{});
  EXPECT_EQ(FindDeviceOwners(kTrees + "/v5e-8chip", "/dev/vfio/vfio"), std::vector<int>{4242});
}

}  // namespace
}  // namespace xpuperf::tpu
