// A library file chosen by the user is read before dlopen: truncated files, files that are not
// libraries and libraries that are not the one expected are errors, never a fault in the loader
// or another library's constructors running in this process.
#include "xpuperf/core/shared_library_file.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "xpuperf/core/dynamic_library.h"

namespace xpuperf {
namespace {

namespace fs = std::filesystem;

// The library that defines the strlen this test calls (the C library, or the sanitizer runtime).
std::string LibcPath() {
  Dl_info info{};
  EXPECT_NE(dladdr(reinterpret_cast<void*>(&strlen), &info), 0);
  return info.dli_fname != nullptr ? info.dli_fname : "";
}

class SharedLibraryFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("xpuperf-shlib-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  static std::string Contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }
  fs::path dir_;
};

TEST_F(SharedLibraryFileTest, ACompleteLibraryPassesAndItsSymbolsAreFound) {
  const std::string libc = LibcPath();
  ASSERT_FALSE(libc.empty());
  EXPECT_TRUE(CheckSharedLibraryFile(libc, {}).ok());
  EXPECT_TRUE(CheckSharedLibraryFile(libc, {"xpuperf_missing", "strlen"}).ok());
  const Status other = CheckSharedLibraryFile(libc, {"nvmlInit_v2", "nvmlInit"});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().message, "it defines none of nvmlInit_v2, nvmlInit");
}

TEST_F(SharedLibraryFileTest, FilesThatCannotBeLoadedSayWhy) {
  const std::string whole = Contents(LibcPath());
  ASSERT_GT(whole.size(), 65536u);
  ASSERT_EQ(mkfifo((dir_ / "fifo.so").c_str(), 0600), 0);
  for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
           // A loaded segment or the section headers past the end (which comes first depends on
           // the library: under ASan, strlen is the sanitizer runtime's).
           {Write("half.so", whole.substr(0, whole.size() / 2)), "truncated: "},
           {Write("header.so", whole.substr(0, 100)), "truncated: the program headers end"},
           {Write("text.so", "not a library\n"), "not an ELF file"},
           {Write("empty.so", ""), "not an ELF file"},
           {(dir_ / "fifo.so").string(), "FIFO"},
           {dir_.string(), "is a directory"}}) {
    const Status status = CheckSharedLibraryFile(path, {"strlen"});
    ASSERT_FALSE(status.ok()) << path;
    EXPECT_EQ(status.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(status.error().message.find(why), std::string::npos)
        << path << ": " << status.error().message;
  }
  // A 32-bit or foreign header and an executable that is not position independent.
  std::string foreign = whole.substr(0, 4096);
  foreign[4] = 1;  // ELFCLASS32
  EXPECT_EQ(CheckSharedLibraryFile(Write("elf32.so", foreign), {}).error().message,
            "not a 64-bit little-endian ELF file");
}

TEST_F(SharedLibraryFileTest, DynamicLibraryRefusesAnUnusablePathBeforeLoading) {
  const std::string whole = Contents(LibcPath());
  const std::string truncated = Write("libtruncated.so.1", whole.substr(0, whole.size() / 3));
  auto library = DynamicLibrary::Open(
      {truncated, "libc.so.6"},
      DynamicLibraryOptions{.expected_symbols = {"strlen"}, .kind = "test library"});
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(library.error().message.rfind(
                "unsupported: " + truncated + " is not a usable test library: truncated: ", 0),
            0u)
      << library.error().message;
  // A complete copy that is not the library asked for is never loaded.
  const std::string copy = Write("libcopy.so.6", whole);
  auto wrong =
      DynamicLibrary::Open({copy}, DynamicLibraryOptions{.missing_code = ErrorCode::kUnavailable,
                                                         .expected_symbols = {"nvmlInit_v2"},
                                                         .kind = "NVML library"});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(wrong.error().message,
            copy + " is not a usable NVML library: it defines none of nvmlInit_v2");
  // Names the loader searches for are the system's: not read, loaded as before.
  EXPECT_TRUE(DynamicLibrary::Open({"libc.so.6"}, {.expected_symbols = {"strlen"}}).ok());
}

}  // namespace
}  // namespace xpuperf
