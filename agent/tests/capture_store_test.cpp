// The capture directory: only folders the agent created for a capture are prepared again, listed
// or served; a folder someone else put under the root keeps its mode and its files.
#include "xpuperf/agent/capture_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace xpuperf::agent {
namespace {

namespace fs = std::filesystem;

class CaptureStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("xpuperf-store-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  static mode_t ModeOf(const fs::path& path) {
    struct stat info {};
    EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
    return info.st_mode & 07777;
  }
  fs::path root_;
};

TEST_F(CaptureStoreTest, AFolderTheAgentDidNotCreateIsNeitherTakenOverNorServed) {
  CaptureStore store(root_.string());
  ASSERT_TRUE(store.Init().ok());
  // An administrator's folder under the capture directory, holding a private key.
  fs::create_directory(root_ / "keys");
  ::chmod((root_ / "keys").c_str(), 0700);
  std::ofstream(root_ / "keys" / "server.key") << "PRIVATE";
  ::chmod((root_ / "keys" / "server.key").c_str(), 0600);

  auto prepared = store.Prepare("keys");
  ASSERT_FALSE(prepared.ok());
  EXPECT_NE(prepared.error().message.find("that the agent did not create"), std::string::npos)
      << prepared.error().message;
  EXPECT_EQ(ModeOf(root_ / "keys"), 0700u) << "not chmod'ed";
  auto listed = store.List("keys");
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.error().code, ErrorCode::kNotFound);
  auto read = store.Read("keys", "server.key", 0, 1024);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, ErrorCode::kNotFound);
}

TEST_F(CaptureStoreTest, TheAgentsOwnFoldersAreReusedAndServed) {
  CaptureStore store(root_.string());
  ASSERT_TRUE(store.Init().ok());
  auto first = store.Prepare("job-1");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(ModeOf(*first), 01777u);
  std::ofstream(*first + "/trace.json") << "{}";
  auto again = store.Prepare("job-1");
  ASSERT_TRUE(again.ok()) << again.error().message;
  auto listed = store.List("job-1");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u) << "the marker is not listed";
  EXPECT_EQ((*listed)[0].name, "trace.json");
  auto read = store.Read("job-1", "trace.json", 0, 1024);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->data, "{}");
  // The marker itself is never served.
  EXPECT_FALSE(store.Read("job-1", kCaptureMarkerName, 0, 16).ok());
}

TEST_F(CaptureStoreTest, AMarkerPlantedByAnotherUserDoesNotCount) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a file of another user";
  CaptureStore store(root_.string());
  ASSERT_TRUE(store.Init().ok());
  fs::create_directory(root_ / "planted");
  std::ofstream(root_ / "planted" / kCaptureMarkerName) << "";
  ASSERT_EQ(::chown((root_ / "planted" / kCaptureMarkerName).c_str(), 65534, 65534), 0);
  EXPECT_FALSE(store.Prepare("planted").ok());
  EXPECT_FALSE(store.List("planted").ok());
}

}  // namespace
}  // namespace xpuperf::agent

namespace xpuperf::agent {
namespace {

TEST(CaptureStoreLimitTest, NewCaptureFoldersStopAtTheLimit) {
  const fs::path root =
      fs::temp_directory_path() / ("xpuperf-capture-limit-" + std::to_string(::getpid()));
  fs::remove_all(root);
  CaptureStore store(root.string());
  ASSERT_TRUE(store.Init().ok());
  for (int i = 0; i < kMaxCaptureFolders; ++i) {
    ASSERT_TRUE(store.Prepare("c" + std::to_string(i)).ok()) << i;
  }
  const auto refused = store.Prepare("one-more");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("(the limit): remove old ones"), std::string::npos)
      << refused.error().message;
  EXPECT_TRUE(store.Prepare("c7").ok()) << "an existing capture folder is still served";
  fs::remove_all(root / "c0");
  EXPECT_TRUE(store.Prepare("one-more").ok());
  fs::remove_all(root);
}

}  // namespace
}  // namespace xpuperf::agent
