// File helpers and the sysfs sources (cpufreq, powercap RAPL, hwmon, EDAC) on recorded trees.
#include <gtest/gtest.h>

#include "edac.h"
#include "test_tree.h"
#include "xpuperf/core/sysfs_file.h"
#include "xpuperf/cpu/cpufreq.h"
#include "xpuperf/cpu/hwmon.h"
#include "xpuperf/cpu/powercap.h"

namespace xpuperf::cpu {
namespace {

using testing::RecordedTree;
using testing::TempTree;

TEST(SysfsFileTest, JoinRootKeepsRealPathsForTheRealRoot) {
  EXPECT_EQ(JoinRoot("/", "/proc/stat"), "/proc/stat");
  EXPECT_EQ(JoinRoot("", "/proc/stat"), "/proc/stat");
  EXPECT_EQ(JoinRoot("/tmp/tree/", "/proc/stat"), "/tmp/tree/proc/stat");
}

TEST(SysfsFileTest, ErrorsNameThePathAndTheErrnoText) {
  TempTree tree;
  auto missing = ReadFileToString(tree.root() + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().message, tree.root() + "/nope: No such file or directory");
  auto directory = ReadFileToString(tree.root());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().code, ErrorCode::kIo);
  EXPECT_EQ(directory.error().message, tree.root() + ": Is a directory");
}

TEST(SysfsFileTest, NumbersAndListingsInNaturalOrder) {
  TempTree tree;
  for (const char* name : {"/d/cpu10", "/d/cpu2", "/d/cpu1", "/d/cpufreq"}) tree.Write(name, "");
  auto names = ListDirectory(tree.root() + "/d");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"cpu1", "cpu2", "cpu10", "cpufreq"}));
  tree.Write("/n", "  -42000\n");
  EXPECT_EQ(*ReadSignedFile(tree.root() + "/n"), -42000);
  EXPECT_EQ(ReadUnsignedFile(tree.root() + "/n").error().code, ErrorCode::kParse);
  EXPECT_EQ(ParseIndexedName("cpu12", "cpu"), 12);
  EXPECT_FALSE(ParseIndexedName("cpufreq", "cpu").has_value());
  EXPECT_FALSE(ParseIndexedName("cpu", "cpu").has_value());
}

TEST(CpufreqTest, KilohertzBecomeHertz) {
  EXPECT_EQ(*ParseScalingCurFreqHertz("2100000\n"), 2'100'000'000u);
  for (const char* text : {"", "0", "fast", "-5", "99999999999999999999"}) {
    EXPECT_EQ(ParseScalingCurFreqHertz(text).error().code, ErrorCode::kParse) << text;
  }
  EXPECT_EQ(*ReadScalingCurFreqHertz(RecordedTree("intel-2s"), 1), 3'775'000'000u);
  EXPECT_EQ(ReadScalingCurFreqHertz(RecordedTree("vm"), 0).error().code, ErrorCode::kNotFound);
}

TEST(PowercapTest, ZoneIds) {
  EXPECT_EQ(ParseRaplZoneId("intel-rapl:3")->first, 3);
  EXPECT_FALSE(ParseRaplZoneId("intel-rapl:3")->second.has_value());
  EXPECT_EQ(ParseRaplZoneId("intel-rapl:3:1")->second, 1);
  for (const char* id : {"intel-rapl", "intel-rapl-mmio:0", "intel-rapl:", "intel-rapl:a",
                         "intel-rapl:0:", "intel-rapl:0:1:2", "dtpm"}) {
    EXPECT_FALSE(ParseRaplZoneId(id).has_value()) << id;
  }
}

TEST(PowercapTest, TwoSocketTreeGetsUniqueDomainLabels) {
  std::vector<RaplZone> zones = ListRaplZones(RecordedTree("intel-2s"));
  ASSERT_EQ(zones.size(), 4u);
  std::vector<std::string> domains;
  for (const RaplZone& zone : zones) domains.push_back(zone.domain);
  EXPECT_EQ(domains, (std::vector<std::string>{"package-0", "dram-0", "package-1", "dram-1"}));
  EXPECT_EQ(zones[0].max_energy_range_uj, 262143328850u);
  EXPECT_EQ(*ReadRaplEnergyMicrojoules(zones[1]), 31255871234u);
}

TEST(PowercapTest, SubZoneNamesStayPlainWhenUniqueAndDieNamesCarryOver) {
  auto zone = [](std::string id, std::string name) {
    RaplZone zone;
    auto numbers = ParseRaplZoneId(id);
    zone.id = std::move(id);
    zone.name = std::move(name);
    zone.zone = numbers->first;
    zone.subzone = numbers->second;
    return zone;
  };
  std::vector<RaplZone> zones = {
      zone("intel-rapl:0", "package-0-die-0"),
      zone("intel-rapl:0:0", "dram"),
      zone("intel-rapl:0:1", "core"),
      zone("intel-rapl:1", "package-0-die-1"),
      zone("intel-rapl:1:0", "dram"),
      zone("intel-rapl:2", "psys"),
      zone("intel-rapl:3", "psys"),
  };
  AssignRaplDomainLabels(zones);
  EXPECT_EQ(zones[1].domain, "dram-0-die-0");
  EXPECT_EQ(zones[2].domain, "core");
  EXPECT_EQ(zones[4].domain, "dram-0-die-1");
  EXPECT_EQ(zones[5].domain, "intel-rapl:2");  // a repeated top-level name falls back to the id
  EXPECT_EQ(zones[6].domain, "intel-rapl:3");
}

TEST(PowercapTest, EnergyDeltaWrapsAtTheStatedRange) {
  constexpr uint64_t kRange = 262143328850;
  EXPECT_EQ(RaplEnergyDeltaMicrojoules(1000, 5000, kRange), 4000u);
  // 499999 µJ to the top, 1 to wrap to 0, then 1500000.
  EXPECT_EQ(RaplEnergyDeltaMicrojoules(kRange - 499999, 1500000, kRange), 2000000u);
  EXPECT_EQ(RaplEnergyDeltaMicrojoules(UINT64_MAX, 9, UINT64_MAX), 10u);
}

TEST(PowercapTest, UnreadableCounterReasons) {
  EXPECT_EQ(DescribeRaplReadFailure("/sys/class/powercap/intel-rapl:0/energy_uj",
                                    Error{ErrorCode::kUnavailable, "x: Permission denied"}),
            "unsupported: /sys/class/powercap/intel-rapl:0/energy_uj not readable (root only "
            "since CVE-2020-8694)");
  EXPECT_EQ(DescribeRaplReadFailure("/e", Error{ErrorCode::kIo, "/e: Is a directory"}),
            "unsupported: /e: Is a directory");
}

TEST(HwmonTest, ChannelFilesPreferInstantaneousPower) {
  std::vector<HwmonChannel> channels = ParseHwmonChannelFiles(
      {"name", "temp1_input", "temp1_label", "temp1_crit", "temp10_input", "power1_average",
       "power1_input", "power2_average", "energy1_input", "tempx_input", "uevent"});
  ASSERT_EQ(channels.size(), 5u);
  EXPECT_EQ(channels[0].file, "temp1_input");
  EXPECT_EQ(channels[0].label, "temp1");
  EXPECT_EQ(channels[1].file, "temp10_input");
  EXPECT_EQ(channels[2].file, "power1_input");
  EXPECT_EQ(channels[3].file, "power2_average");
  EXPECT_EQ(channels[4].kind, HwmonChannelKind::kEnergy);
}

TEST(HwmonTest, RecordedK10tempChipsWithLabels) {
  std::vector<HwmonChip> chips = ListHwmonChips(RecordedTree("amd-zen"));
  ASSERT_EQ(chips.size(), 2u);
  EXPECT_EQ(chips[0].name, "k10temp");
  ASSERT_EQ(chips[0].channels.size(), 2u);
  EXPECT_EQ(chips[0].channels[0].label, "Tctl");
  EXPECT_EQ(chips[0].channels[1].label, "Tccd1");
  EXPECT_EQ(*ReadHwmonChannel(chips[0], chips[0].channels[0]), 61250);
  EXPECT_TRUE(ListHwmonChips(RecordedTree("vm")).empty());
}

TEST(EdacTest, SumsControllersOrSaysThereAreNone) {
  auto counts = ReadEdacCounts(RecordedTree("intel-2s"));
  ASSERT_TRUE(counts.ok()) << counts.error().ToString();
  EXPECT_EQ(counts->corrected, 3u);
  EXPECT_EQ(counts->uncorrected, 0u);
  EXPECT_EQ(counts->controllers, 2);
  auto none = ReadEdacCounts(RecordedTree("vm"));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "no EDAC memory controller under /sys/devices/system/edac/mc");
}

}  // namespace
}  // namespace xpuperf::cpu
