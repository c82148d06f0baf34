#include "process_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace xpuperf::telemetry {
namespace {

TEST(ProcessTableTest, CpuShareFromTwoScans) {
  const auto root = std::filesystem::temp_directory_path() / "xpuperf-process-table";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "proc" / "77");
  std::filesystem::create_directories(root / "proc" / "self-not-a-pid");
  auto write = [&](uint64_t utime, uint64_t stime) {
    std::ofstream(root / "proc" / "77" / "stat")
        << "77 (worker) R 1 77 77 0 -1 0 0 0 0 0 " << utime << " " << stime
        << " 0 0 20 0 1 0 5 1000 512 0 0\n";
    std::ofstream(root / "proc" / "77" / "status") << "Name:\tworker\nVmRSS:\t    2048 kB\n";
  };
  ManualClock clock;
  ProcessTable table(root.string(), clock, /*ticks_per_second=*/100, /*page_bytes=*/4096);
  write(100, 0);
  ASSERT_TRUE(table.Refresh().ok());
  write(150, 25);                // +75 ticks = 0.75 s of CPU
  clock.AdvanceNs(500'000'000);  // in 0.5 s of wall time
  ASSERT_TRUE(table.Refresh().ok());
  auto top = table.Top(5);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].command, "worker");
  EXPECT_DOUBLE_EQ(top[0].cpu_percent, 150.0);
  EXPECT_EQ(top[0].rss_bytes, 2048u * 1024u);
  std::filesystem::remove_all(root);
}

TEST(ProcessTableTest, MissingProcIsAnError) {
  ManualClock clock;
  ProcessTable table("/no/such/root", clock, 100, 4096);
  auto status = table.Refresh();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kIo);
}

}  // namespace
}  // namespace xpuperf::telemetry
