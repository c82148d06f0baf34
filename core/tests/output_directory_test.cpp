// The new-directory policy: relative paths with or without existing parents from any working
// directory, and one message naming the real reason for each refusal.
#include "xpuperf/core/output_directory.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace xpuperf {
namespace {

namespace fs = std::filesystem;

// Runs each test inside a fresh empty working directory (restored afterwards).
class OutputDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = fs::current_path();
    dir_ = fs::temp_directory_path() /
           ("xpuperf-outdir-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::current_path(dir_);
  }
  void TearDown() override {
    fs::current_path(previous_);
    ::chmod(dir_.c_str(), 0755);
    fs::remove_all(dir_);
  }
  static std::string Message(const Status& status) {
    return status.ok() ? std::string("ok") : status.error().message;
  }
  fs::path previous_;
  fs::path dir_;
};

TEST_F(OutputDirectoryTest, RelativePathsWithAndWithoutParentsAreCreated) {
  for (const std::string path : {"run", "results/run", "./results/deep/er/run", "a/b/"}) {
    EXPECT_TRUE(PrepareNewDirectory(path).ok())
        << path << ": " << Message(PrepareNewDirectory(path));
    // Created as the writers do (missing parents included), the path is then refused as existing.
    ASSERT_TRUE(fs::create_directories(path)) << path;
    EXPECT_EQ(Message(PrepareNewDirectory(path)), "cannot create " + path + ": it already exists");
  }
  // No probe is left behind in any directory walked.
  for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find(".xpuperf-probe"), std::string::npos);
  }
}

TEST_F(OutputDirectoryTest, AbsoluteAndParentRelativePathsWork) {
  EXPECT_TRUE(PrepareNewDirectory((dir_ / "x" / "y").string()).ok());
  fs::create_directories("sub");
  fs::current_path("sub");
  EXPECT_TRUE(PrepareNewDirectory("../up/run").ok()) << Message(PrepareNewDirectory("../up/run"));
}

TEST_F(OutputDirectoryTest, AnExistingPathIsRefusedAsExisting) {
  fs::create_directories("results/run");
  std::ofstream("file") << "x";
  fs::create_symlink("nowhere", "dangling");
  for (const std::string path : {"results/run", "results/run/", "file", "dangling"}) {
    EXPECT_EQ(Message(PrepareNewDirectory(path)), "cannot create " + path + ": it already exists");
  }
}

TEST_F(OutputDirectoryTest, AFileInTheWayIsNamed) {
  std::ofstream("results") << "x";
  EXPECT_EQ(Message(PrepareNewDirectory("results/run")),
            "cannot create results/run: results exists and is not a directory");
  EXPECT_EQ(Message(PrepareNewDirectory("results/a/b/run")),
            "cannot create results/a/b/run: results exists and is not a directory");
}

TEST_F(OutputDirectoryTest, AnUnwritableParentIsNamed) {
  if (::geteuid() == 0) {
    // Root writes anywhere but a read-only mount: /proc is one on every Linux.
    EXPECT_EQ(Message(PrepareNewDirectory("/proc/xpuperf-run"))
                  .rfind("cannot create /proc/xpuperf-run: /proc is not writable (", 0),
              0u)
        << Message(PrepareNewDirectory("/proc/xpuperf-run"));
    return;
  }
  fs::create_directories("locked");
  ::chmod("locked", 0555);
  EXPECT_EQ(Message(PrepareNewDirectory("locked/a/run"))
                .rfind("cannot create locked/a/run: locked is not writable (", 0),
            0u);
}

TEST_F(OutputDirectoryTest, TheWorkingDirectoryItselfUnwritableIsSaidSo) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes a 0555 directory; /proc covers the refusal";
  ::chmod(dir_.c_str(), 0555);
  EXPECT_EQ(Message(PrepareNewDirectory("results/run"))
                .rfind("cannot create results/run: the working directory is not writable (", 0),
            0u);
}

TEST_F(OutputDirectoryTest, EmptyPathIsRefused) {
  EXPECT_EQ(Message(PrepareNewDirectory("")), "cannot create \"\": empty path");
}

}  // namespace
}  // namespace xpuperf
