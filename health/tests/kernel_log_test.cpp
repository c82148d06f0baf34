// XIDs from the kernel log in both of its forms, and PCI addresses in every spelling.
#include "xpuperf/health/kernel_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace xpuperf::health {
namespace {

TEST(KernelLogTest, BusIdsOfEverySpellingMeetInOneForm) {
  EXPECT_EQ(NormalizeBusId("00000000:3B:00.0"), "0000:3b:00");  // NVML
  EXPECT_EQ(NormalizeBusId("0000:3b:00.0"), "0000:3b:00");      // sysfs
  EXPECT_EQ(NormalizeBusId("PCI:0000:3b:00"), "0000:3b:00");    // an XID line
  EXPECT_EQ(NormalizeBusId("3b:00.0"), "0000:3b:00");           // no domain
  EXPECT_EQ(NormalizeBusId("0001:81:00.1"), "0001:81:00");
}

TEST(KernelLogTest, XidsFromKmsgRecordsAndDmesgLines) {
  const std::string log =
      "6,1001,5000000,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15\n"
      "4,1002,7123456,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen "
      "off the bus.\n"
      " SUBSYSTEM=pci\n"  // a continuation line of the record
      "[  812.345678] NVRM: Xid (PCI:0000:86:00): 63, pid='<unknown>', name=<unknown>, Row "
      "Remapper: New row marked for remapping, reset gpu to activate.\n"
      "3,1004,9000000,-;NVRM: Xid (PCI:0000:3b:00): notanumber\n"
      "3,1005,9000001,-;some other driver: Xid (PCI:0000:3b:00): 48\n";
  const std::vector<KernelEvent> events = ParseKernelLog(log);
  ASSERT_EQ(events.size(), 2u);  // not the malformed XID, not another driver's "Xid"
  EXPECT_EQ(events[0].bus_id, "0000:3b:00");
  EXPECT_EQ(events[0].xid, 79);
  EXPECT_EQ(events[0].since_boot_us, 7123456);
  EXPECT_NE(events[0].message.find("fallen off the bus"), std::string::npos);
  EXPECT_EQ(events[1].bus_id, "0000:86:00");
  EXPECT_EQ(events[1].xid, 63);
  EXPECT_EQ(events[1].since_boot_us, 812345678);
}

TEST(KernelLogTest, MachineChecksAndMemoryFailures) {
  const auto events = ParseKernelLog(
      "4,812,9000001,-;mce: [Hardware Error]: Machine check events logged\n"
      "[ 12.5] mce: [Hardware Error]: CPU 3: Machine Check Exception: 5 Bank 4: b200000000070005\n"
      "3,900,9100000,-;Memory failure: 0x3f2a1: recovery action for dirty LRU page: Recovered\n"
      "6,901,9100001,-;mce: CPU0: Thermal monitoring enabled (TM1)\n");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].kind, KernelEventKind::kCorrectedMachineCheck);
  EXPECT_EQ(events[0].since_boot_us, 9000001);
  EXPECT_EQ(events[1].kind, KernelEventKind::kMachineCheck);
  EXPECT_NE(events[1].message.find("Bank 4"), std::string::npos);
  EXPECT_EQ(events[2].kind, KernelEventKind::kMemoryFailure);
  EXPECT_TRUE(events[2].bus_id.empty());
}

// A dmesg stamp too large for microseconds (found by the fuzzer: it overflowed) is no timestamp;
// a short fraction is tenths, not microseconds.
TEST(KernelLogTest, DmesgStampsAreBoundedAndScaled) {
  auto events = ParseKernelLog(
      "[499999999999999999.5] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n"
      "[ 12.5] NVRM: Xid (PCI:0000:3b:00): 13, pid=1, Graphics Exception\n"
      "[  3.000250] NVRM: Xid (PCI:0000:3b:00): 31, pid=1, MMU Fault\n");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].since_boot_us, 0);
  EXPECT_EQ(events[1].since_boot_us, 12'500'000);
  EXPECT_EQ(events[2].since_boot_us, 3'000'250);
}

TEST(KernelLogTest, HostileTextIsBounded) {
  EXPECT_TRUE(ParseKernelLog("").empty());
  EXPECT_TRUE(ParseKernelLog("NVRM: Xid (").empty());
  EXPECT_TRUE(ParseKernelLog("NVRM: Xid (PCI:0000:3b:00): -5\n").empty());
  const std::string long_line = "NVRM: Xid (PCI:0000:3b:00): 13, " + std::string(100000, 'x');
  const auto events = ParseKernelLog(long_line);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_LE(events[0].message.size(), 240u);
}

TEST(KernelLogTest, AMissingLogSaysWhy) {
  auto events = ReadKernelLog("/nonexistent-root");
  ASSERT_FALSE(events.ok());
  EXPECT_NE(events.error().message.find("/nonexistent-root/dev/kmsg"), std::string::npos);
}

TEST(KernelLogTest, ARecordedLogIsRead) {
  auto events = ReadKernelLog(std::string(XPUPERF_HEALTH_TREES) + "/gpu-xid79");
  ASSERT_TRUE(events.ok()) << events.error().message;
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].xid, 79);
}

TEST(KernelLogTest, AWatchReadsOnlyWhatWasAddedAndWholeLines) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("xpuperf-kmsg-" + std::to_string(getpid()));
  std::filesystem::create_directories(root / "dev");
  const std::string path = (root / "dev" / "kmsg").string();
  { std::ofstream(path) << "4,1,10,-;NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=a\n"; }
  KernelLogWatch watch(root.string());
  ASSERT_TRUE(watch.Events().ok());
  EXPECT_EQ(watch.Events()->size(), 1u);
  {
    // Half a record, then its end: counted once, when whole.
    std::ofstream(path, std::ios::app) << "4,2,20,-;NVRM: Xid (PCI:0000:3b:00): 7";
  }
  watch.Poll();
  EXPECT_EQ(watch.Events()->size(), 1u);
  { std::ofstream(path, std::ios::app) << "9, pid=2, name=b\n"; }
  watch.Poll();
  ASSERT_EQ(watch.Events()->size(), 2u);
  EXPECT_EQ(watch.Events()->back().xid, 79);
  watch.Poll();
  EXPECT_EQ(watch.Events()->size(), 2u);  // nothing new, nothing counted twice
  std::filesystem::remove_all(root);
  // A log that is not there: the reason, not an empty list.
  KernelLogWatch missing(root.string());
  ASSERT_FALSE(missing.Events().ok());
  EXPECT_NE(missing.Events().error().message.find("kmsg"), std::string::npos);
}

}  // namespace
}  // namespace xpuperf::health
