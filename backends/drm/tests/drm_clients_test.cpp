#include "xpuperf/drm/drm_clients.h"

#include <gtest/gtest.h>

#include "drm_test_tree.h"
#include "xpuperf/drm/drm_cards.h"
#include "xpuperf/drm/wrapping_counter.h"

namespace xpuperf::drm {
namespace {

using testing::RecordedFdIsDrm;
using testing::TempTree;

std::string Fdinfo(const std::string& driver, int client, const std::string& pdev,
                   const std::string& body) {
  return "pos:\t0\nflags:\t02100002\ndrm-driver:\t" + driver + "\ndrm-client-id:\t" +
         std::to_string(client) + "\ndrm-pdev:\t" + pdev + "\n" + body;
}

TEST(DrmClients, ScanDedupesClientsAndSumsPerProcess) {
  TempTree tree;
  // pid 10: fds 3 and 4 are one client (dup), fd 5 a second client; fd 0 is not DRM.
  tree.Write("/proc/10/comm", "python3\n");
  for (const char* fd : {"0", "3", "4", "5"}) tree.Write(std::string("/proc/10/fd/") + fd, "");
  tree.Write("/proc/10/fdinfo/0", "pos:\t0\nflags:\t0100002\n");
  const std::string one =
      Fdinfo("amdgpu", 7, "0000:0c:00.0", "drm-memory-vram:\t1024 KiB\ndrm-engine-gfx:\t100 ns\n");
  tree.Write("/proc/10/fdinfo/3", one);
  tree.Write("/proc/10/fdinfo/4", one);
  tree.Write("/proc/10/fdinfo/5", Fdinfo("amdgpu", 8, "0000:0c:00.0",
                                         "drm-memory-vram:\t1 KiB\ndrm-engine-gfx:\t1 ns\n"));
  // pid 11 uses an i915 device: not an amdgpu process.
  tree.Write("/proc/11/comm", "Xorg\n");
  tree.Write("/proc/11/fd/9", "");
  tree.Write("/proc/11/fdinfo/9", Fdinfo("i915", 1, "0000:00:02.0", "drm-engine-render:\t5 ns\n"));
  tree.Write("/proc/self/fd/1", "");  // not a pid directory

  const auto processes = ScanDrmProcesses(tree.root(), "amdgpu", RecordedFdIsDrm);
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes[0].pid, 10);
  EXPECT_EQ(processes[0].command, "python3");
  EXPECT_EQ(processes[0].pdev, "0000:0c:00.0");
  EXPECT_EQ(processes[0].engine_busy_ns.at("gfx"), 101u);
  EXPECT_EQ(processes[0].device_memory_bytes, 1025u * 1024);

  const auto intel = ScanDrmProcesses(tree.root(), "i915", RecordedFdIsDrm);
  ASSERT_EQ(intel.size(), 1u);
  EXPECT_EQ(intel[0].command, "Xorg");
  EXPECT_FALSE(intel[0].device_memory_bytes.has_value());

  // The real test refuses plain files.
  EXPECT_TRUE(ScanDrmProcesses(tree.root(), "amdgpu", IsDrmCharacterDevice).empty());
  EXPECT_TRUE(ScanDrmProcesses("/nonexistent-root", "amdgpu", RecordedFdIsDrm).empty());
}

ProcessGpuUsage Process(int pid, uint64_t gfx_ns) {
  ProcessGpuUsage p;
  p.pid = pid;
  p.pdev = "0000:03:00.0";
  p.engine_busy_ns["gfx"] = gfx_ns;
  return p;
}

TEST(DrmClients, BusyIsDeltaNanosecondsOverWallTime) {
  ProcessBusyTracker tracker;
  EXPECT_TRUE(tracker.Update({Process(1, 1'000'000'000), Process(2, 0)}, 0)
                  .at({"0000:03:00.0", 1})
                  .empty());
  // 1 s later: pid 1 was busy 0.25 s, pid 2 0.9 s; pid 3 is new (no rate yet).
  auto busy = tracker.Update({Process(1, 1'250'000'000), Process(2, 900'000'000), Process(3, 5)},
                             1'000'000'000);
  EXPECT_DOUBLE_EQ(busy.at({"0000:03:00.0", 1}).at("gfx"), 25.0);
  EXPECT_DOUBLE_EQ(busy.at({"0000:03:00.0", 2}).at("gfx"), 90.0);
  EXPECT_TRUE(busy.at({"0000:03:00.0", 3}).empty());
  // The device: the sum over its clients, capped at 100 (nvtop's rule).
  EXPECT_DOUBLE_EQ(DeviceBusyFromClients(busy).at("0000:03:00.0").at("gfx"), 100.0);

  // A counter that went backwards gives no value; one beyond wall time is capped.
  busy = tracker.Update({Process(1, 5), Process(2, 3'900'000'000)}, 2'000'000'000);
  EXPECT_EQ(busy.at({"0000:03:00.0", 1}).count("gfx"), 0u);
  EXPECT_DOUBLE_EQ(busy.at({"0000:03:00.0", 2}).at("gfx"), 100.0);
}

TEST(DrmClients, XeBusyIsCyclesOverTotalCycles) {
  ProcessBusyTracker tracker;
  ProcessGpuUsage p;
  p.pid = 4;
  p.pdev = "0000:03:00.0";
  p.engine_cycles["rcs"] = 1000;
  p.total_cycles["rcs"] = 10'000;
  tracker.Update({p}, 0);
  p.engine_cycles["rcs"] = 1500;
  p.total_cycles["rcs"] = 12'000;
  const auto busy = tracker.Update({p}, 10);
  EXPECT_DOUBLE_EQ(busy.at({"0000:03:00.0", 4}).at("rcs"), 25.0);
  // Four compute engines behind "ccs": busy cycles are shared out over their capacity.
  p.engine_capacity["rcs"] = 4;
  p.engine_cycles["rcs"] = 2500;
  p.total_cycles["rcs"] = 13'000;
  EXPECT_DOUBLE_EQ(tracker.Update({p}, 20).at({"0000:03:00.0", 4}).at("rcs"), 25.0);
}

TEST(DrmCards, ListsCardsOfTheDriversAsked) {
  TempTree tree;
  tree.Write("/sys/class/drm/card0/device/uevent", "DRIVER=i915\nPCI_SLOT_NAME=0000:00:02.0\n");
  tree.Write("/sys/class/drm/card0/device/vendor", "0x8086\n");
  tree.Write("/sys/class/drm/card0/device/device", "0x56a0\n");
  tree.Write("/sys/class/drm/card0/device/hwmon/hwmon4/name", "i915\n");
  tree.Write("/sys/class/drm/card1/device/uevent", "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:03:00.0\n");
  tree.Write("/sys/class/drm/card1/device/vendor", "0x1002\n");
  tree.Write("/sys/class/drm/card1/device/device", "zz\n");
  tree.Write("/sys/class/drm/card0-DP-1/device/uevent", "DRIVER=i915\n");
  tree.Write("/sys/class/drm/renderD128/device/uevent", "DRIVER=i915\n");

  const auto intel = ListDrmCards(tree.root(), {"i915", "xe"});
  ASSERT_EQ(intel.size(), 1u);
  EXPECT_EQ(intel[0].name, "card0");
  EXPECT_EQ(intel[0].minor, 0);
  EXPECT_EQ(intel[0].driver, "i915");
  EXPECT_EQ(intel[0].pci_slot, "0000:00:02.0");
  EXPECT_EQ(intel[0].vendor_id, 0x8086u);
  EXPECT_EQ(intel[0].device_id, 0x56a0u);
  EXPECT_EQ(intel[0].hwmon_dir, tree.root() + "/sys/class/drm/card0/device/hwmon/hwmon4");

  const auto amd = ListDrmCards(tree.root(), {"amdgpu"});
  ASSERT_EQ(amd.size(), 1u);
  EXPECT_EQ(amd[0].device_id, 0u);  // malformed id
  EXPECT_TRUE(amd[0].hwmon_dir.empty());
  EXPECT_TRUE(ListDrmCards("/nonexistent-root", {"amdgpu"}).empty());
}

TEST(DrmCards, HexIds) {
  uint32_t id = 7;
  EXPECT_TRUE(ParseHexId("0x74A1\n", &id));
  EXPECT_EQ(id, 0x74a1u);
  EXPECT_TRUE(ParseHexId("1002", &id));
  EXPECT_EQ(id, 0x1002u);
  EXPECT_FALSE(ParseHexId("0x", &id));
  EXPECT_FALSE(ParseHexId("0x123456789", &id));
  EXPECT_FALSE(ParseHexId("0xg", &id));
  EXPECT_EQ(id, 0x1002u);
}

TEST(WrappingCounter, WrapsAt32BitsAndResetsAbove) {
  WrappingCounter counter(32);
  EXPECT_EQ(counter.Add(4'294'967'000), 0u);
  EXPECT_EQ(counter.Add(4'294'967'295), 295u);
  EXPECT_EQ(counter.Add(704), 295u + 1 + 704);  // wrapped through 2^32
  WrappingCounter wide(32);
  wide.Add(uint64_t{1} << 40);  // already past 32 bits: a drop is a reset, not a wrap
  EXPECT_EQ(wide.Add(10), 10u);
}

}  // namespace
}  // namespace xpuperf::drm
