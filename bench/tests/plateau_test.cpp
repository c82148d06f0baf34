// Plateau detection on sweeps recorded with `xpuperf bench memory -b cache_sweep` (read GB/s of one
// thread) on a 2-vCPU AMD EPYC (Zen 3) VM: L1d 32 KiB, L2 512 KiB per core, L3 32 MiB.
#include "plateau.h"

#include <gtest/gtest.h>

namespace xpuperf::bench {
namespace {

Topology EpycVmTopology() {
  Topology topology;
  topology.caches = {{1, "data", 32 * 1024, 2, 64},
                     {1, "instruction", 32 * 1024, 2, 64},
                     {2, "unified", 512 * 1024, 2, 64},
                     {3, "unified", 32 * 1024 * 1024, 1, 64}};
  return topology;
}

const std::vector<SweepPoint> kEpycSweep = {
    {4096, 148.6},     {5760, 126.0},    {8192, 169.0},    {11584, 146.6},   {16384, 165.2},
    {23168, 168.5},    {32768, 172.4},   {46336, 98.2},    {65536, 99.5},    {92672, 99.1},
    {131072, 100.5},   {185344, 100.3},  {262144, 94.5},   {370688, 86.5},   {524288, 79.5},
    {741440, 77.8},    {1048576, 77.8},  {1482880, 76.7},  {2097152, 75.8},  {2965760, 75.7},
    {4194304, 77.1},   {5931584, 51.4},  {8388608, 49.3},  {11863232, 46.4}, {16777216, 38.5},
    {23726528, 20.7},  {33554432, 16.9}, {47453120, 15.4}, {67108864, 15.8}, {94906240, 15.8},
    {134217728, 14.2},
};

TEST(PlateauTest, FindsAndNamesTheLevelsOfARecordedSweep) {
  std::vector<Plateau> plateaus = FindPlateaus(kEpycSweep, PlateauOptions{});
  NamePlateaus(plateaus, EpycVmTopology());
  ASSERT_EQ(plateaus.size(), 4u);
  // The noisy smallest sets (call overhead dominates at 4-11 KiB) do not join the L1 plateau.
  EXPECT_EQ(plateaus[0].level, "L1");
  EXPECT_EQ(plateaus[0].min_bytes, 16384u);
  EXPECT_EQ(plateaus[0].max_bytes, 32768u);
  EXPECT_NEAR(plateaus[0].median_bandwidth, 168.5, 1e-9);
  EXPECT_EQ(plateaus[1].level, "L2");
  EXPECT_NEAR(plateaus[1].median_bandwidth, 99.5, 1e-9);
  EXPECT_EQ(plateaus[2].level, "L3");
  EXPECT_NEAR(plateaus[2].median_bandwidth, 77.1, 1e-9);
  EXPECT_EQ(plateaus[2].max_bytes, 4194304u);  // the VM's usable share of the 32 MiB L3
  EXPECT_EQ(plateaus[3].level, "DRAM");
  EXPECT_NEAR(plateaus[3].median_bandwidth, 15.8, 1e-9);
}

TEST(PlateauTest, ShortRunsAreTransitionsNotLevels) {
  const std::vector<SweepPoint> sweep = {{1, 100}, {2, 101}, {3, 99},   {4, 60},
                                         {5, 30},  {6, 10},  {7, 10.2}, {8, 9.9}};
  const std::vector<Plateau> plateaus = FindPlateaus(sweep, PlateauOptions{});
  ASSERT_EQ(plateaus.size(), 2u);
  EXPECT_EQ(plateaus[0].first, 0u);
  EXPECT_EQ(plateaus[0].last, 2u);
  EXPECT_EQ(plateaus[1].first, 5u);
  EXPECT_EQ(plateaus[1].last, 7u);
  EXPECT_TRUE(FindPlateaus(std::vector<SweepPoint>{}, PlateauOptions{}).empty());
}

TEST(PlateauTest, LevelsComeFromCacheSizesNotOrder) {
  const Topology topology = EpycVmTopology();
  EXPECT_EQ(LevelHolding(16 * 1024, topology), "L1");
  EXPECT_EQ(LevelHolding(32 * 1024, topology), "L1");
  EXPECT_EQ(LevelHolding(33 * 1024, topology), "L2");
  EXPECT_EQ(LevelHolding(8 << 20, topology), "L3");
  EXPECT_EQ(LevelHolding(64 << 20, topology), "DRAM");
  // A sweep that starts beyond L1 names its first plateau L2, not L1.
  std::vector<Plateau> plateaus = {{0, 5, 128 * 1024, 256 * 1024, 99, ""}};
  NamePlateaus(plateaus, topology);
  EXPECT_EQ(plateaus[0].level, "L2");
}

}  // namespace
}  // namespace xpuperf::bench
