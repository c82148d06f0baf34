// The output-path policy: atomic regular files, links followed, devices and FIFOs written in
// place and never replaced, directories/sockets/missing directories refused before any work.
#include "xpuperf/core/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace xpuperf {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xpuperf-output-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // Entries of the directory other than those named: temporary files left behind.
  size_t EntryCount() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }
  fs::path dir_;
};

TEST_F(OutputFileTest, NewAndExistingRegularFilesAreReplacedAtomically) {
  ASSERT_TRUE(WriteOutputFile(Path("a.html"), "first").ok());
  EXPECT_EQ(Read(Path("a.html")), "first");
  ::chmod(Path("a.html").c_str(), 0600);
  ASSERT_TRUE(WriteOutputFile(Path("a.html"), "second").ok());
  EXPECT_EQ(Read(Path("a.html")), "second");
  struct stat info {};
  ASSERT_EQ(::stat(Path("a.html").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u) << "a replaced file keeps its permissions";
  EXPECT_EQ(EntryCount(), 1u);
}

TEST_F(OutputFileTest, AnUncommittedFileLeavesTheTargetAndNoTemporary) {
  ASSERT_TRUE(WriteOutputFile(Path("r.json"), "old").ok());
  {
    auto file = OutputFile::Open(Path("r.json"));
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(file->Write("half of the new").ok());
    EXPECT_TRUE(fs::exists(file->temporary_path()));
  }
  EXPECT_EQ(Read(Path("r.json")), "old");
  EXPECT_EQ(EntryCount(), 1u);
}

TEST_F(OutputFileTest, SymlinkIsFollowedAndStaysALink) {
  ASSERT_TRUE(WriteOutputFile(Path("real.svg"), "old").ok());
  fs::create_symlink(Path("real.svg"), Path("link.svg"));
  ASSERT_TRUE(WriteOutputFile(Path("link.svg"), "new").ok());
  EXPECT_TRUE(fs::is_symlink(Path("link.svg")));
  EXPECT_EQ(Read(Path("real.svg")), "new");
}

TEST_F(OutputFileTest, DanglingLinksAndLoopsAreRefusedByName) {
  fs::create_symlink(Path("nowhere"), Path("dangling"));
  auto dangling = PrepareOutput(Path("dangling"));
  ASSERT_FALSE(dangling.ok());
  EXPECT_NE(dangling.error().message.find("dangling symbolic link"), std::string::npos);
  fs::create_symlink(Path("loop-b"), Path("loop-a"));
  fs::create_symlink(Path("loop-a"), Path("loop-b"));
  auto loop = PrepareOutput(Path("loop-a"));
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.error().message.find("loop of symbolic links"), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(Path("loop-a")));
}

TEST_F(OutputFileTest, CharacterDevicesAreWrittenInPlaceNeverReplaced) {
  auto null_target = PrepareOutput("/dev/null");
  ASSERT_TRUE(null_target.ok());
  EXPECT_EQ(null_target->kind, OutputKind::kDirect);
  ASSERT_TRUE(WriteOutputFile("/dev/null", "discarded").ok());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // /dev/full: the write error is reported and the device stays a device.
  Status full = WriteOutputFile("/dev/full", std::string(1 << 16, 'x'));
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().code, ErrorCode::kIo);
  EXPECT_NE(full.error().message.find("No space left"), std::string::npos) << full.error().message;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  // A link to a device is followed to the device.
  fs::create_symlink("/dev/null", Path("to-null"));
  ASSERT_TRUE(WriteOutputFile(Path("to-null"), "x").ok());
  EXPECT_TRUE(fs::is_symlink(Path("to-null")));
}

TEST_F(OutputFileTest, FifoIsWrittenDirectly) {
  ASSERT_EQ(::mkfifo(Path("pipe").c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = Read(Path("pipe")); });
  ASSERT_TRUE(WriteOutputFile(Path("pipe"), "through the pipe").ok());
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(Path("pipe")));
}

TEST_F(OutputFileTest, DirectoriesSocketsAndMissingDirectoriesAreRefused) {
  auto directory = PrepareOutput(dir_.string());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.error().message.find("is a directory"), std::string::npos);
  auto missing = PrepareOutput(Path("no/such/dir/report.html"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
  auto under_file = PrepareOutput("/dev/null/report.html");
  EXPECT_FALSE(under_file.ok());
  auto empty = PrepareOutput("");
  EXPECT_FALSE(empty.ok());

  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string socket_path = Path("sock");
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  auto socket_target = PrepareOutput(socket_path);
  ::close(sock);
  ASSERT_FALSE(socket_target.ok());
  EXPECT_NE(socket_target.error().message.find("socket"), std::string::npos);
}

TEST_F(OutputFileTest, UnwritableDirectoryIsRefusedBeforeTheWork) {
  // Even root cannot create files in /proc.
  auto proc = PrepareOutput("/proc/xpuperf-report.html");
  ASSERT_FALSE(proc.ok());
  EXPECT_NE(proc.error().message.find("not writable"), std::string::npos);
  if (::geteuid() == 0) return;  // root ignores the mode bits below
  fs::create_directories(Path("ro"));
  ::chmod(Path("ro").c_str(), 0500);
  auto target = PrepareOutput(Path("ro/report.html"));
  ::chmod(Path("ro").c_str(), 0700);
  ASSERT_FALSE(target.ok());
  EXPECT_NE(target.error().message.find("not writable"), std::string::npos);
}

TEST_F(OutputFileTest, DashIsStandardOutput) {
  auto target = PrepareOutput("-");
  ASSERT_TRUE(target.ok());
  EXPECT_EQ(target->kind, OutputKind::kStdout);
}

}  // namespace
}  // namespace xpuperf
