// The cancellation token: set by SIGINT/SIGTERM, polled by loops; a second signal removes the
// registered temporary files and ends the process with 128 + signal.
#include "xpuperf/core/cancellation.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "xpuperf/core/output_file.h"

namespace xpuperf {
namespace {

TEST(CancellationTest, SignalsSetTheTokenAndNameTheSignal) {
  InstallCancellationHandlers();
  for (int signal : {SIGINT, SIGTERM}) {
    ResetCancellationForTesting();
    EXPECT_TRUE(CheckCancelled().ok());
    std::raise(signal);
    EXPECT_TRUE(CancellationRequested());
    Status status = CheckCancelled();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::kUnavailable);
    EXPECT_NE(status.error().message.find(signal == SIGINT ? "SIGINT" : "SIGTERM"),
              std::string::npos);
    EXPECT_EQ(CancellationExitCode(), 128 + signal);
  }
  ResetCancellationForTesting();
}

TEST(CancellationTest, SleepWakesEarly) {
  ResetCancellationForTesting();
  RequestCancellation(SIGTERM);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(SleepUnlessCancelled(30));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15)) << "slept on";
  ResetCancellationForTesting();
  EXPECT_TRUE(SleepUnlessCancelled(0.01));
}

TEST(CancellationTest, SecondSignalRemovesTemporaryFilesAndExits) {
  const std::string target = std::filesystem::temp_directory_path() /
                             ("xpuperf-cancel-" + std::to_string(::getpid()) + ".json");
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(20);  // never hang the test if a signal went missing
    ResetCancellationForTesting();
    InstallCancellationHandlers();
    auto file = OutputFile::Open(target);
    if (!file.ok()) ::_exit(3);
    (void)file->Write("partial");
    const std::string temporary = file->temporary_path();
    (void)!::write(pipe_fds[1], temporary.c_str(), temporary.size());
    ::close(pipe_fds[1]);
    for (;;) ::pause();
  }
  ::close(pipe_fds[1]);
  char buffer[4096];
  const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
  ::close(pipe_fds[0]);
  ASSERT_GT(got, 0);
  const std::string temporary(buffer, static_cast<size_t>(got));
  EXPECT_TRUE(std::filesystem::exists(temporary));
  ::kill(child, SIGINT);
  // Signals of one kind do not queue: let the first be delivered before the second.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(child, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_FALSE(std::filesystem::exists(temporary));
  EXPECT_FALSE(std::filesystem::exists(target));
}

}  // namespace
}  // namespace xpuperf
