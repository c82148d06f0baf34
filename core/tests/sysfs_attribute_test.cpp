// Kept-open attributes: procfs and regular files are read with pread on one descriptor and see
// values rewritten in place (as sysfs changes them); a file replaced by rename is seen after
// Reopen(); bad contents are errors, never a value.
#include "xpuperf/core/sysfs_attribute.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace xpuperf {
namespace {

namespace fs = std::filesystem;

class SysfsAttributeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xpuperf-attribute-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  // Replaced whole: write a new file, rename it into place (a new inode).
  void Replace(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name + ".new")) << text;
    fs::rename(Path(name + ".new"), Path(name));
  }
  // Rewritten in place (same inode), as the recorded-tree harnesses stand in for sysfs.
  void Rewrite(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name), std::ios::in | std::ios::out) << text;
  }
  fs::path dir_;
};

TEST_F(SysfsAttributeTest, RegularFileRewrittenInPlaceIsSeenOnTheKeptDescriptor) {
  // Padded to one width, so that a shorter value overwrites a longer one whole.
  Replace("energy_uj", "1000                \n");
  Result<SysfsAttribute> file = SysfsAttribute::Open(Path("energy_uj"));
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_FALSE(file->pseudo_file());
  EXPECT_EQ(*file->ReadUnsigned(), 1000u);
  Rewrite("energy_uj", "18446744073709551615\n");
  EXPECT_EQ(*file->ReadUnsigned(), 18446744073709551615u);
  Rewrite("energy_uj", "-42                 \n");
  EXPECT_EQ(*file->ReadSigned(), -42);
}

TEST_F(SysfsAttributeTest, FileReplacedByRenameIsSeenAfterReopen) {
  Replace("energy_uj", "1000\n");
  Result<SysfsAttribute> file = SysfsAttribute::Open(Path("energy_uj"));
  ASSERT_TRUE(file.ok()) << file.error().message;
  Replace("energy_uj", "2000\n");
  EXPECT_EQ(*file->ReadUnsigned(), 1000u);  // the kept descriptor still reads the old inode
  ASSERT_TRUE(file->Reopen().ok());
  EXPECT_EQ(*file->ReadUnsigned(), 2000u);
  fs::remove(Path("energy_uj"));
  EXPECT_EQ(file->Reopen().error().code, ErrorCode::kNotFound);
  EXPECT_EQ(*file->ReadUnsigned(), 2000u);  // a failed reopen keeps the descriptor it had
}

TEST_F(SysfsAttributeTest, ProcfsIsKeptOpenAndRereadAtOffsetZero) {
  // /proc/sys/kernel/pid_max holds one integer on every Linux; the descriptor is kept and each
  // read is a pread at offset 0, which makes procfs generate the text again.
  Result<SysfsAttribute> file = SysfsAttribute::Open("/proc/sys/kernel/pid_max");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_TRUE(file->pseudo_file());
  Result<uint64_t> first = file->ReadUnsigned();
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_GT(*first, 0u);
  Result<uint64_t> again = file->ReadUnsigned();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *first);
}

TEST_F(SysfsAttributeTest, BadContentsAreErrors) {
  Replace("value", "12 apples\n");
  Result<SysfsAttribute> file = SysfsAttribute::Open(Path("value"));
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->ReadUnsigned().error().code, ErrorCode::kParse);
  Rewrite("value", "18446744073709551616\n");  // 2^64: overflows
  EXPECT_EQ(file->ReadUnsigned().error().code, ErrorCode::kParse);
  Rewrite("value", std::string(200, '1'));  // longer than any integer attribute
  EXPECT_EQ(file->ReadUnsigned().error().code, ErrorCode::kParse);
  fs::resize_file(Path("value"), 0);
  EXPECT_EQ(file->ReadSigned().error().code, ErrorCode::kParse);
  EXPECT_EQ(SysfsAttribute::Open(Path("absent")).error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace xpuperf
