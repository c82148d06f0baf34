#include "xpuperf/cpu/topology.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace xpuperf::cpu {
namespace {

const std::string kTrees = std::string(XPUPERF_TEST_DATA_DIR) + "/topology";

bool SameCache(const CacheLevel& a, const CacheLevel& b) {
  return a.level == b.level && a.type == b.type && a.size_bytes == b.size_bytes &&
         a.instances == b.instances && a.line_bytes == b.line_bytes;
}

// Recorded 2 packages x 2 cores x 2 threads, caches L1d 48K, L1i 32K, L2 1280K per core and
// L3 36608K per package, 2 NUMA nodes (see data/topology/README.md).
void ExpectTwoSocketSmt(const Topology& topology) {
  EXPECT_EQ(topology.packages, 2);
  EXPECT_EQ(topology.numa_nodes, 2);
  EXPECT_EQ(topology.cores, 4);
  EXPECT_EQ(topology.threads, 8);
  const std::vector<CacheLevel> expected = {
      {1, "data", uint64_t{48} * 1024, 4, 64},
      {1, "instruction", uint64_t{32} * 1024, 4, 64},
      {2, "unified", uint64_t{1280} * 1024, 4, 64},
      {3, "unified", uint64_t{36608} * 1024, 2, 64},
  };
  ASSERT_EQ(topology.caches.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(SameCache(topology.caches[i], expected[i]))
        << "cache " << i << ": L" << topology.caches[i].level << " " << topology.caches[i].type
        << " " << topology.caches[i].size_bytes << " B x" << topology.caches[i].instances;
  }
}

TEST(TopologyTest, RecordedTreeReadsThroughHwlocFsroot) {
  auto topology = ReadTopology(kTrees + "/two_socket_smt");
  ASSERT_TRUE(topology.ok()) << topology.error().ToString();
  EXPECT_EQ(topology->source, "hwloc");
  ExpectTwoSocketSmt(*topology);
}

TEST(TopologyTest, SysfsReaderAgreesWithHwlocOnTheSameTree) {
  auto topology = ReadTopologyFromSysfs(kTrees + "/two_socket_smt");
  ASSERT_TRUE(topology.ok()) << topology.error().ToString();
  EXPECT_EQ(topology->source, "sysfs");
  ExpectTwoSocketSmt(*topology);
}

TEST(TopologyTest, TreeWithoutCpumasksFallsBackToSysfs) {
  // hwloc's Linux backend needs cpu0/topology/*_siblings or *_cpus masks; this tree has only ids
  // and lists. cpu4 exists but is offline (not in the online list).
  auto topology = ReadTopology(kTrees + "/sparse_no_cpumasks");
  ASSERT_TRUE(topology.ok()) << topology.error().ToString();
  EXPECT_EQ(topology->source, "sysfs");
  EXPECT_EQ(topology->packages, 1);
  EXPECT_EQ(topology->numa_nodes, 1);  // no node directory: one node
  EXPECT_EQ(topology->cores, 4);
  EXPECT_EQ(topology->threads, 4);
  const std::vector<CacheLevel> expected = {
      {1, "data", uint64_t{32} * 1024, 4, 64},
      {1, "instruction", uint64_t{32} * 1024, 4, 64},
      {2, "unified", uint64_t{512} * 1024, 4, 64},
      {3, "unified", uint64_t{16} * 1024 * 1024, 1, 64},
  };
  ASSERT_EQ(topology->caches.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(SameCache(topology->caches[i], expected[i])) << "cache " << i;
  }
}

// The sparse tree copied to a temporary root, with one file overwritten.
std::string CorruptedCopy(const std::string& relative, const std::string& contents) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() /
      ("xpuperf_topology_" + std::to_string(getpid()) + "_" +
       std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  std::filesystem::remove_all(root);
  std::filesystem::copy(kTrees + "/sparse_no_cpumasks", root,
                        std::filesystem::copy_options::recursive);
  std::ofstream(root / relative) << contents;
  return root.string();
}

TEST(TopologyTest, MalformedCacheSizeIsAParseErrorNamingTheFile) {
  const std::string root = CorruptedCopy("sys/devices/system/cpu/cpu1/cache/index2/size", "lots\n");
  auto topology = ReadTopology(root);
  std::filesystem::remove_all(root);
  ASSERT_FALSE(topology.ok());
  EXPECT_EQ(topology.error().code, ErrorCode::kParse);
  EXPECT_NE(topology.error().message.find("cpu1/cache/index2/size: bad size 'lots'"),
            std::string::npos)
      << topology.error().message;
}

TEST(TopologyTest, MalformedSharedCpuListIsAParseError) {
  const std::string root =
      CorruptedCopy("sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", "0-\n");
  auto topology = ReadTopologyFromSysfs(root);
  std::filesystem::remove_all(root);
  ASSERT_FALSE(topology.ok());
  EXPECT_EQ(topology.error().code, ErrorCode::kParse);
  EXPECT_NE(topology.error().message.find("index3/shared_cpu_list"), std::string::npos);
}

TEST(TopologyTest, MalformedCoreIdIsAParseError) {
  const std::string root = CorruptedCopy("sys/devices/system/cpu/cpu2/topology/core_id", "x\n");
  auto topology = ReadTopologyFromSysfs(root);
  std::filesystem::remove_all(root);
  ASSERT_FALSE(topology.ok());
  EXPECT_EQ(topology.error().code, ErrorCode::kParse);
}

TEST(TopologyTest, MissingTreeIsAnErrorNotThisHost) {
  // An empty root must not come back as the live machine (hwloc's x86 and no-OS fallbacks would).
  auto topology = ReadTopology(kTrees + "/does_not_exist");
  ASSERT_FALSE(topology.ok());
  EXPECT_EQ(topology.error().code, ErrorCode::kNotFound);
  EXPECT_NE(topology.error().message.find("does_not_exist"), std::string::npos);
}

TEST(TopologyTest, RestoresUserHwlocFsroot) {
  setenv("HWLOC_FSROOT", "/user/choice", 1);
  auto topology = ReadTopology(kTrees + "/two_socket_smt");
  ASSERT_TRUE(topology.ok()) << topology.error().ToString();
  ASSERT_NE(getenv("HWLOC_FSROOT"), nullptr);
  EXPECT_STREQ(getenv("HWLOC_FSROOT"), "/user/choice");
  unsetenv("HWLOC_FSROOT");
  ASSERT_TRUE(ReadTopology(kTrees + "/two_socket_smt").ok());
  EXPECT_EQ(getenv("HWLOC_FSROOT"), nullptr);
}

TEST(TopologyTest, LiveMachine) {
  auto topology = ReadTopology("/");
  ASSERT_TRUE(topology.ok()) << topology.error().ToString();
  EXPECT_GT(topology->threads, 0);
  // Both count online CPUs (the topology includes CPUs outside this process's cgroup).
  if (std::thread::hardware_concurrency() > 0) {
    EXPECT_EQ(topology->threads, static_cast<int>(std::thread::hardware_concurrency()));
  }
  EXPECT_GE(topology->packages, 1);
  EXPECT_GE(topology->numa_nodes, 1);
  EXPECT_GE(topology->cores, 1);
  EXPECT_LE(topology->cores, topology->threads);
  EXPECT_FALSE(topology->caches.empty());
  for (const CacheLevel& cache : topology->caches) {
    EXPECT_GE(cache.level, 1);
    EXPECT_GT(cache.size_bytes, 0u);
    EXPECT_GT(cache.instances, 0);
  }
}

TEST(TopologyParseSizeTest, Units) {
  EXPECT_EQ(ParseSysfsSize("32K").value(), 32u * 1024);
  EXPECT_EQ(ParseSysfsSize("36608K\n").value(), 36608u * 1024);
  EXPECT_EQ(ParseSysfsSize("1M").value(), 1u << 20);
  EXPECT_EQ(ParseSysfsSize("2G").value(), uint64_t{2} << 30);
  EXPECT_EQ(ParseSysfsSize(" 512 ").value(), 512u);
  EXPECT_EQ(ParseSysfsSize("0K").value(), 0u);
}

TEST(TopologyParseSizeTest, MalformedIsParseError) {
  for (const char* bad : {"", "K", "32KB", "-32K", "+32K", "3 2K", "32.5K", "0x20K", "32T",
                          "99999999999999999999K", "18014398509481984K"}) {
    auto size = ParseSysfsSize(bad);
    ASSERT_FALSE(size.ok()) << "'" << bad << "'";
    EXPECT_EQ(size.error().code, ErrorCode::kParse) << bad;
  }
}

TEST(TopologyParseCpuListTest, RangesAndSingles) {
  EXPECT_EQ(ParseSysfsCpuList("0-3,8-11").value(), (std::vector<int>{0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(ParseSysfsCpuList("5\n").value(), (std::vector<int>{5}));
  EXPECT_EQ(ParseSysfsCpuList("4,0-1,1").value(), (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(ParseSysfsCpuList("2-2").value(), (std::vector<int>{2}));
  EXPECT_TRUE(ParseSysfsCpuList("").value().empty());
  EXPECT_TRUE(ParseSysfsCpuList("\n").value().empty());
}

TEST(TopologyParseCpuListTest, MalformedIsParseError) {
  for (const char* bad : {",", "0,", ",0", "0-", "-3", "3-1", "0--3", "a", "0-3,x", "1 2", "0-3:2",
                          "0-4000000000", "99999999999", "0-1-2"}) {
    auto cpus = ParseSysfsCpuList(bad);
    ASSERT_FALSE(cpus.ok()) << "'" << bad << "'";
    EXPECT_EQ(cpus.error().code, ErrorCode::kParse) << bad;
  }
}

}  // namespace
}  // namespace xpuperf::cpu
