// The IPC endpoint under a socket directory shared with other users (KINETO_IPC_SOCKET_DIR): the
// root agent binds there, so nothing found at the path is followed, chmod'ed or deleted unless it
// is a stale socket, and the socket's mode comes from bind itself.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "xpuperf/core/kineto_ipc.h"

namespace xpuperf::kineto {
namespace {

namespace fs = std::filesystem;

class IpcEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xpuperf-ipc-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "shared");
    ::chmod((dir_ / "shared").c_str(), 01777);  // as /tmp: every user writes, sticky
    std::ofstream(Target()) << "secret";
    ::chmod(Target().c_str(), 0600);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Shared() const { return (dir_ / "shared").string(); }
  std::string Path() const { return (dir_ / "shared" / "dynolog").string(); }
  std::string Target() const { return (dir_ / "key").string(); }
  static mode_t ModeOf(const std::string& path) {
    struct stat info {};
    EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
    return info.st_mode;
  }
  fs::path dir_;
};

TEST_F(IpcEndpointTest, TheAgentsSocketIsWorldWritableFromBindItself) {
  auto endpoint = IpcEndpoint::Bind("dynolog", Shared(), IpcSocketAccess::kAnyUser);
  ASSERT_TRUE(endpoint.ok()) << endpoint.error().message;
  EXPECT_TRUE(S_ISSOCK(ModeOf(Path())));
  EXPECT_EQ(ModeOf(Path()) & 0777, 0666u);
  // The process umask is back as it was.
  const mode_t now = ::umask(022);
  ::umask(now);
  EXPECT_NE(now, 0111u);
}

TEST_F(IpcEndpointTest, ASymbolicLinkAtThePathIsNeitherFollowedNorRemoved) {
  fs::create_symlink(Target(), Path());
  auto endpoint = IpcEndpoint::Bind("dynolog", Shared(), IpcSocketAccess::kAnyUser);
  ASSERT_FALSE(endpoint.ok());
  EXPECT_EQ(endpoint.error().message,
            "IPC socket path '" + Path() +
                "' exists and is a symbolic link; it is neither removed nor followed: remove it, "
                "or choose another KINETO_IPC_SOCKET_DIR");
  EXPECT_TRUE(fs::is_symlink(Path()));
  EXPECT_EQ(ModeOf(Target()) & 0777, 0600u);
}

TEST_F(IpcEndpointTest, ARegularFileOrDirectoryAtThePathIsKept) {
  std::ofstream(Path()) << "a user's file";
  auto file = IpcEndpoint::Bind("dynolog", Shared(), IpcSocketAccess::kAnyUser);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().message.find("exists and is a regular file"), std::string::npos);
  EXPECT_EQ(ModeOf(Path()) & S_IFMT, static_cast<mode_t>(S_IFREG));
  fs::remove(Path());
  fs::create_directory(Path());
  auto directory = IpcEndpoint::Bind("dynolog", Shared(), IpcSocketAccess::kAnyUser);
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.error().message.find("exists and is a directory"), std::string::npos);
}

TEST_F(IpcEndpointTest, AStaleSocketIsReplacedAndALiveOneRefused) {
  {
    // A socket left behind by a process that ended: bound, then its descriptor closed without
    // unlinking.
    const int stale = ::socket(AF_UNIX, SOCK_DGRAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", Path().c_str());
    ASSERT_EQ(::bind(stale, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    ::close(stale);
  }
  auto first = IpcEndpoint::Bind("dynolog", Shared(), IpcSocketAccess::kAnyUser);
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto second = IpcEndpoint::Bind("dynolog", Shared(), IpcSocketAccess::kAnyUser);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(second.error().message.find("a process is bound there"), std::string::npos);
  EXPECT_TRUE(S_ISSOCK(ModeOf(Path()))) << "the live socket stays";
}

TEST_F(IpcEndpointTest, ASharedDirectoryWithoutTheStickyBitIsRefusedForTheAgent) {
  ::chmod(Shared().c_str(), 0777);
  auto endpoint = IpcEndpoint::Bind("dynolog", Shared(), IpcSocketAccess::kAnyUser);
  ASSERT_FALSE(endpoint.ok());
  EXPECT_NE(endpoint.error().message.find("without the sticky bit"), std::string::npos);
  fs::create_symlink(Shared(), dir_ / "link");
  ::chmod(Shared().c_str(), 01777);
  auto through_link =
      IpcEndpoint::Bind("dynolog", (dir_ / "link").string(), IpcSocketAccess::kAnyUser);
  ASSERT_FALSE(through_link.ok());
  EXPECT_NE(through_link.error().message.find("is a symbolic link"), std::string::npos);
}

TEST_F(IpcEndpointTest, CloseRemovesOnlyItsOwnSocket) {
  {
    auto endpoint = IpcEndpoint::Bind("dynolog", Shared(), IpcSocketAccess::kAnyUser);
    ASSERT_TRUE(endpoint.ok());
    // Someone replaced the socket with a file of theirs: closing leaves it alone.
    fs::remove(Path());
    std::ofstream(Path()) << "theirs";
  }
  EXPECT_TRUE(fs::is_regular_file(Path()));
  fs::remove(Path());
  {
    auto endpoint = IpcEndpoint::Bind("dynolog", Shared(), IpcSocketAccess::kAnyUser);
    ASSERT_TRUE(endpoint.ok());
  }
  EXPECT_FALSE(fs::exists(fs::symlink_status(Path()))) << "its own socket is removed";
}

// The attack of the security probe: a link swapped in at the path while the agent (re)binds, in a
// loop. Before the fix, bind then chmod(path) made the link's target 0666 in 2 of 40 starts.
TEST_F(IpcEndpointTest, ALinkRacedInDuringBindNeverRedirectsAChmod) {
  std::atomic<bool> stop{false};
  std::thread attacker([&] {
    const std::string temporary = Path() + ".swap";
    while (!stop.load()) {
      ::symlink(Target().c_str(), temporary.c_str());
      ::rename(temporary.c_str(), Path().c_str());  // replaces a socket or link atomically
    }
    ::unlink(temporary.c_str());
  });
  for (int i = 0; i < 400; ++i) {
    auto endpoint = IpcEndpoint::Bind("dynolog", Shared(), IpcSocketAccess::kAnyUser);
    if (!endpoint.ok()) continue;  // refused: a link was there; fine
  }
  stop.store(true);
  attacker.join();
  EXPECT_EQ(ModeOf(Target()) & 0777, 0600u);
  EXPECT_TRUE(fs::is_regular_file(Target()));
}

}  // namespace
}  // namespace xpuperf::kineto
