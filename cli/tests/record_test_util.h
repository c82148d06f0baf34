// Helpers of the `xpuperf record` end-to-end tests: files, xpuperf in the background, a fixture
// with a fresh directory per test.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "test_util.h"

namespace xpuperf::cli::record_testing {

namespace fs = std::filesystem;
using nlohmann::json;

inline const std::string kTrees = XPUPERF_CPU_TREES;
inline const std::string kData = std::string(XPUPERF_TEST_DATA_DIR) + "/record";
inline const std::string kFakeNvml =
    std::string(XPUPERF_BINARY_DIR) + "/backends/nvidia/tests/fake_nvml/full/libnvidia-ml.so.1";

inline std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void Write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

inline json Summary(const fs::path& dir) { return json::parse(ReadAll(dir / "summary.json")); }

inline const json* Find(const json& rows, const std::string& device, const std::string& key,
                        const std::string& value) {
  for (const json& row : rows) {
    if (row["device"] == device && row[key] == value) return &row;
  }
  return nullptr;
}

// xpuperf started in the background, for the signal tests.
struct Background {
  pid_t pid = -1;
  std::string err_path;
};

inline Background Start(const std::vector<std::string>& args) {
  Background b;
  b.err_path =
      (fs::temp_directory_path() / ("xpuperf-record-err-" + std::to_string(::getpid()))).string();
  b.pid = ::fork();
  if (b.pid == 0) {
    const int err = ::open(b.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(err, STDERR_FILENO);
    const int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(null_fd, STDOUT_FILENO);
    // Its own process group, as a batch scheduler would start it: a signal sent to xpuperf
    // reaches only xpuperf, which has to pass it on.
    ::setpgid(0, 0);
    std::vector<char*> argv;
    std::string exe = XPUPERF_EXECUTABLE;
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::alarm(60);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  return b;
}

inline int Wait(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline bool WaitForFile(const fs::path& path, double seconds) {
  for (int i = 0; i < seconds * 100; ++i) {
    if (fs::exists(path) && fs::file_size(path) > 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class RecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("xpuperf-record-") + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

}  // namespace xpuperf::cli::record_testing
