#include "xpuperf/cli/process_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace xpuperf::cli {
namespace {

TEST(ProcessStatTest, ParsesCommandWithSpacesAndParens) {
  auto stat = ParseProcessStat(
      "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 12345 "
      "1000000 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n");
  ASSERT_TRUE(stat.ok()) << stat.error().message;
  EXPECT_EQ(stat->pid, 4242);
  EXPECT_EQ(stat->command, "my (odd) cmd");
  EXPECT_EQ(stat->cpu_ticks, 300u);
  EXPECT_EQ(stat->rss_pages, 2048u);
}

TEST(ProcessStatTest, RejectsMalformedText) {
  for (const char* text : {"", "garbage", "12 (x S 1", "x (cmd) S 1 2 3", "1 (cmd) S 1 2"}) {
    auto stat = ParseProcessStat(text);
    EXPECT_FALSE(stat.ok()) << text;
    if (!stat.ok()) {
      EXPECT_EQ(stat.error().code, ErrorCode::kParse);
    }
  }
}

TEST(ProcessTableTest, CpuShareFromTwoScans) {
  const auto root = std::filesystem::temp_directory_path() / "xpuperf-process-table";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "proc" / "77");
  std::filesystem::create_directories(root / "proc" / "self-not-a-pid");
  auto write = [&](uint64_t utime, uint64_t stime) {
    std::ofstream(root / "proc" / "77" / "stat")
        << "77 (worker) R 1 77 77 0 -1 0 0 0 0 0 " << utime << " " << stime
        << " 0 0 20 0 1 0 5 1000 512 0 0\n";
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
  EXPECT_EQ(top[0].rss_bytes, 512u * 4096u);
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
}  // namespace xpuperf::cli
