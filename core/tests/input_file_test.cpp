// Safe input: non-regular files refused without blocking, causes named, gzip bombs stopped.
#include "xpuperf/core/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "gzip_test_data.h"

namespace xpuperf {
namespace {

namespace fs = std::filesystem;

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xpuperf-input-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  void Write(const std::string& name, const std::string& bytes) const {
    std::ofstream(Path(name), std::ios::binary) << bytes;
  }
  fs::path dir_;
};

TEST_F(InputFileTest, NonRegularFilesAreRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  auto fifo = ReadInputFile(Path("fifo"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20)) << "blocked";
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message.find("FIFO"), std::string::npos) << fifo.error().message;

  auto device = ReadInputFile("/dev/zero");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().message.find("character device"), std::string::npos);

  auto directory = ReadInputFile(dir_.string());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.error().message.find("directory"), std::string::npos);
}

TEST_F(InputFileTest, CausesAreNamed) {
  fs::create_symlink(Path("b"), Path("a"));
  fs::create_symlink(Path("a"), Path("b"));
  auto loop = ReadInputFile(Path("a"));
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.error().message.find("loop of symbolic links"), std::string::npos)
      << loop.error().message;
  fs::create_symlink(Path("gone"), Path("dangling"));
  auto dangling = ReadInputFile(Path("dangling"));
  ASSERT_FALSE(dangling.ok());
  EXPECT_NE(dangling.error().message.find("dangling symbolic link"), std::string::npos);
  auto missing = ReadInputFile(Path("missing.yaml"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find("no such file"), std::string::npos);

  Status loop_dir = CheckInputDirectory(Path("a"));
  ASSERT_FALSE(loop_dir.ok());
  EXPECT_NE(loop_dir.error().message.find("loop"), std::string::npos);
  Write("file", "x");
  Status file_dir = CheckInputDirectory(Path("file"));
  ASSERT_FALSE(file_dir.ok());
  EXPECT_NE(file_dir.error().message.find("not a directory"), std::string::npos);
  EXPECT_TRUE(CheckInputDirectory(dir_.string()).ok());
}

TEST_F(InputFileTest, SizeCapsAreEnforced) {
  Write("big.yaml", std::string(4096, 'x'));
  auto capped = ReadInputFile(Path("big.yaml"), 1000);
  ASSERT_FALSE(capped.ok());
  EXPECT_NE(capped.error().message.find("larger than"), std::string::npos);
  auto read = ReadInputFile(Path("big.yaml"), 4096);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->size(), 4096u);
}

TEST_F(InputFileTest, GzipBombStopsAtTheCap) {
  // 64 MiB of zeros compress to ~64 KiB; a 1 MiB cap stops it after one step.
  const std::string bomb = Gzip(std::string(64 << 20, '\0'), 9);
  ASSERT_LT(bomb.size(), 1u << 20);
  auto inflated = InflateGzip(bomb, "bomb.json.gz", 1 << 20);
  ASSERT_FALSE(inflated.ok());
  EXPECT_EQ(inflated.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(inflated.error().message.find("--max-decompressed-bytes"), std::string::npos);
  auto allowed = InflateGzip(bomb, "bomb.json.gz", 64 << 20);
  ASSERT_TRUE(allowed.ok()) << allowed.error().message;
  EXPECT_EQ(allowed->size(), size_t{64} << 20);
}

TEST_F(InputFileTest, GzipMembersTruncationAndCorruption) {
  const std::string two = Gzip("hello ") + Gzip("world");
  auto both = InflateGzip(two, "two.gz", 1 << 20);
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(*both, "hello world");
  const std::string whole = Gzip(std::string(100000, 'a') + "end");
  auto truncated =
      InflateGzip(std::string_view(whole).substr(0, whole.size() / 2), "t.gz", 1 << 20);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos);
  std::string corrupt = whole;
  corrupt[12] = static_cast<char>(corrupt[12] ^ 0xff);
  corrupt[13] = static_cast<char>(corrupt[13] ^ 0xff);
  auto bad = InflateGzip(corrupt, "c.gz", 1 << 20);
  EXPECT_FALSE(bad.ok() && *bad == std::string(100000, 'a') + "end");
}

TEST(ByteSizeTest, ParsesUnitsAndRefusesNonsense) {
  EXPECT_EQ(*ParseByteSize("1048576", "x"), 1048576u);
  EXPECT_EQ(*ParseByteSize("8GiB", "x"), 8ull << 30);
  EXPECT_EQ(*ParseByteSize("500MB", "x"), 500000000u);
  EXPECT_EQ(*ParseByteSize("1.5KiB", "x"), 1536u);
  for (const char* bad : {"", "abc", "-1", "0", "nan", "1XB", "1e99", "99999999999EiB"}) {
    EXPECT_FALSE(ParseByteSize(bad, "--max-decompressed-bytes").ok()) << bad;
  }
}

}  // namespace
}  // namespace xpuperf
