// The pure /proc parsers: exact values from well-formed text, kParse (never a crash) otherwise.
#include <gtest/gtest.h>

#include "xpuperf/core/cpuinfo.h"
#include "xpuperf/cpu/meminfo.h"
#include "xpuperf/cpu/proc_stat.h"
#include "xpuperf/cpu/process_stats.h"

namespace xpuperf::cpu {
namespace {

TEST(ProcStatTest, ParsesAggregatePerCpuAndRunQueue) {
  auto stat = ParseProcStat(
      "cpu  10 1 5 100 2 3 4 7 6 0\n"
      "cpu0 6 1 2 50 1 2 2 3 6 0\n"
      "cpu3 4 0 3 50 1 1 2 4 0 0\n"
      "intr 1 2 3\n"
      "procs_running 5\n"
      "procs_blocked 2\n");
  ASSERT_TRUE(stat.ok()) << stat.error().ToString();
  EXPECT_EQ(stat->total.user, 10u);
  EXPECT_EQ(stat->total.steal, 7u);
  EXPECT_EQ(stat->total.guest, 6u);
  ASSERT_EQ(stat->per_cpu.size(), 2u);
  EXPECT_EQ(stat->per_cpu[1].cpu, 3);
  EXPECT_EQ(stat->per_cpu[1].times.system, 3u);
  EXPECT_EQ(stat->procs_running, 5u);
  EXPECT_EQ(stat->procs_blocked, 2u);
}

TEST(ProcStatTest, OldKernelsWithFourCountersParse) {
  auto stat = ParseProcStat("cpu 1 2 3 4\ncpu0 1 2 3 4\n");
  ASSERT_TRUE(stat.ok());
  EXPECT_EQ(stat->total.idle, 4u);
  EXPECT_EQ(stat->total.iowait, 0u);
  EXPECT_FALSE(stat->procs_running.has_value());
}

TEST(ProcStatTest, MalformedInputIsAParseError) {
  for (const char* text : {"", "intr 5\n", "cpu 1 2 3\n", "cpu 1 2 x 4\n", "cpu 1 2 3 -4\n",
                           "cpu 1 2 3 4\nprocs_running\n", "cpu 1 2 3 4\nprocs_running 1 2\n",
                           "cpu 1 2 3 4\ncpu7 1 2\n", "cpu 99999999999999999999999 2 3 4\n"}) {
    auto stat = ParseProcStat(text);
    ASSERT_FALSE(stat.ok()) << text;
    EXPECT_EQ(stat.error().code, ErrorCode::kParse) << text;
  }
}

TEST(BusyPercentTest, ExcludesIdleIowaitAndStealAndDoesNotCountGuestTwice) {
  CpuTimes before{.user = 100, .system = 50, .idle = 800, .iowait = 50, .steal = 10};
  // +300 user (of which 100 guest), +100 system, +500 idle, +100 iowait, +400 steal, +100 guest.
  CpuTimes after{
      .user = 400, .system = 150, .idle = 1300, .iowait = 150, .steal = 410, .guest = 100};
  // busy 400 of total 400 + 600.
  EXPECT_DOUBLE_EQ(*BusyPercent(before, after), 40.0);
  EXPECT_FALSE(BusyPercent(after, after).has_value());
  // iowait that went backwards counts as 0 instead of wrapping.
  CpuTimes iowait_back = after;
  iowait_back.iowait = 140;
  iowait_back.user = 500;
  iowait_back.idle = 1400;
  EXPECT_DOUBLE_EQ(*BusyPercent(after, iowait_back), 50.0);
}

TEST(MemInfoTest, ParsesKibAsBytes) {
  auto info = ParseMemInfo(
      "MemTotal:       16000 kB\nMemFree:         4000 kB\nMemAvailable:    9000 kB\n"
      "Buffers:          500 kB\nCached:          2500 kB\nHugePages_Total:       0\n");
  ASSERT_TRUE(info.ok()) << info.error().ToString();
  EXPECT_EQ(info->total_bytes, 16000u * 1024);
  EXPECT_EQ(UsedMemoryBytes(*info), (16000u - 9000u) * 1024);
}

TEST(MemInfoTest, WithoutMemAvailableUsedSubtractsFreeBuffersAndCached) {
  auto info =
      ParseMemInfo("MemTotal: 16000 kB\nMemFree: 4000 kB\nBuffers: 500 kB\nCached: 2500 kB\n");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(UsedMemoryBytes(*info), (16000u - 4000u - 500u - 2500u) * 1024);
}

TEST(MemInfoTest, MalformedInputIsAParseError) {
  for (const char* text : {"", "MemFree: 4 kB\n", "MemTotal 16000 kB\n", "MemTotal: lots kB\n",
                           "MemTotal: 16000 MB\n", "MemTotal: 1 kB extra\n", "MemTotal:\n"}) {
    auto info = ParseMemInfo(text);
    ASSERT_FALSE(info.ok()) << text;
    EXPECT_EQ(info.error().code, ErrorCode::kParse) << text;
  }
}

TEST(CpuInfoTest, ParsesX86Blocks) {
  auto info = ParseCpuInfo(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 33\n"
      "model name\t: AMD Ryzen 5 5600X 6-Core Processor\ncpu MHz\t\t: 3700.125\n"
      "physical id\t: 0\ncore id\t\t: 5\nflags\t\t: fpu avx2 fma\npower management:\n\n"
      "processor\t: 1\nvendor_id\t: AuthenticAMD\ncore id\t\t: 0\n");
  ASSERT_TRUE(info.ok()) << info.error().ToString();
  ASSERT_EQ(info->cpus.size(), 2u);
  const LogicalCpuInfo& cpu0 = info->cpus[0];
  EXPECT_EQ(cpu0.vendor, "AuthenticAMD");
  EXPECT_EQ(cpu0.model_name, "AMD Ryzen 5 5600X 6-Core Processor");
  EXPECT_EQ(cpu0.family, 25);
  EXPECT_EQ(cpu0.model, 33);
  EXPECT_DOUBLE_EQ(*cpu0.mhz, 3700.125);
  EXPECT_EQ(cpu0.core_id, 5);
  EXPECT_EQ(cpu0.flags, (std::vector<std::string>{"fpu", "avx2", "fma"}));
  EXPECT_EQ(info->cpus[1].processor, 1);
  EXPECT_FALSE(info->cpus[1].mhz.has_value());
}

TEST(CpuInfoTest, ParsesArmFeaturesAndImplementer) {
  auto info = ParseCpuInfo(
      "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd sve bf16 i8mm\n"
      "CPU implementer\t: 0x41\nCPU part\t: 0xd40\n");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->cpus[0].vendor, "ARM");
  EXPECT_EQ(info->cpus[0].cpu_part, "0xd40");
  EXPECT_EQ(info->cpus[0].flags.size(), 5u);
}

TEST(CpuInfoTest, TopologyFromPhysicalAndCoreIds) {
  auto info = ParseCpuInfo(
      "processor: 0\nphysical id: 0\ncore id: 0\n\nprocessor: 1\nphysical id: 0\ncore id: 0\n\n"
      "processor: 2\nphysical id: 1\ncore id: 0\n\nprocessor: 3\nphysical id: 1\ncore id: 1\n");
  ASSERT_TRUE(info.ok());
  Topology topology = TopologyFromCpuInfo(*info);
  EXPECT_EQ(topology.packages, 2);
  EXPECT_EQ(topology.cores, 3);
  EXPECT_EQ(topology.threads, 4);
  EXPECT_EQ(topology.source, "cpuinfo");
  // Without ids every logical CPU is its own core in one package.
  Topology bare = TopologyFromCpuInfo(*ParseCpuInfo("processor: 0\n\nprocessor: 1\n"));
  EXPECT_EQ(bare.packages, 1);
  EXPECT_EQ(bare.cores, 2);
}

TEST(CpuInfoTest, MalformedInputIsAParseError) {
  for (const char* text : {"", "vendor_id : GenuineIntel\n", "processor : zero\n",
                           "processor : 0\ngarbage line\n", "processor : 0\ncore id : -3\n",
                           "processor : 0\ncpu MHz : fast\n", "processor : 0\nphysical id :\n"}) {
    auto info = ParseCpuInfo(text);
    ASSERT_FALSE(info.ok()) << text;
    EXPECT_EQ(info.error().code, ErrorCode::kParse) << text;
  }
}

TEST(ProcessStatTest, CommMayContainSpacesAndParentheses) {
  auto stat = ParseProcessStat(
      "77 (my (odd) name) R 1 77 77 0 -1 4194304 10 0 0 0 250 125 0 0 20 0 3 0 9876 1000 50 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0");
  ASSERT_TRUE(stat.ok()) << stat.error().ToString();
  EXPECT_EQ(stat->pid, 77);
  EXPECT_EQ(stat->comm, "my (odd) name");
  EXPECT_EQ(stat->utime_ticks, 250u);
  EXPECT_EQ(stat->stime_ticks, 125u);
  EXPECT_EQ(stat->start_time_ticks, 9876u);
}

TEST(ProcessStatTest, ResidentMemoryFromStatusOrStatm) {
  auto rss = ParseStatusResidentBytes("Name:\tx\nVmRSS:\t  2136 kB\nThreads:\t1\n");
  ASSERT_TRUE(rss.ok());
  EXPECT_EQ(**rss, 2136u * 1024);
  auto kernel_thread = ParseStatusResidentBytes("Name:\tkworker/0:1\nThreads:\t1\n");
  ASSERT_TRUE(kernel_thread.ok());
  EXPECT_FALSE(kernel_thread->has_value());
  auto pages = ParseStatmResidentPages("765 409 381 5 0 123 0\n");
  ASSERT_TRUE(pages.ok());
  EXPECT_EQ(*pages, 409u);
}

TEST(ProcessStatTest, MalformedInputIsAParseError) {
  for (const char* text : {"", "77 no-parens R 1", "x (a) R 1 2 3", "77 (a) R 1 2 3",
                           "77 (a) R 1 1 1 0 -1 0 0 0 0 0 x 1 0 0 20 0 1 0 5",
                           "77 )a( R 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5"}) {
    auto stat = ParseProcessStat(text);
    ASSERT_FALSE(stat.ok()) << text;
    EXPECT_EQ(stat.error().code, ErrorCode::kParse) << text;
  }
  EXPECT_EQ(ParseStatusResidentBytes("VmRSS: many kB\n").error().code, ErrorCode::kParse);
  EXPECT_EQ(ParseStatmResidentPages("765\n").error().code, ErrorCode::kParse);
}

}  // namespace
}  // namespace xpuperf::cpu
