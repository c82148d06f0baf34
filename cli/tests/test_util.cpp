#include "test_util.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace xpuperf::cli::testing {

std::string CompareGolden(const std::string& name, const std::string& actual) {
  const std::filesystem::path path = std::filesystem::path(XPUPERF_TEST_DATA_DIR) / "golden" / name;
  if (const char* update = std::getenv("XPUPERF_UPDATE_GOLDEN");
      update && std::string(update) == "1") {
    std::ofstream(path) << actual;
    return {};
  }
  std::ifstream file(path);
  if (!file) return "missing golden file " + path.string() + " (run with XPUPERF_UPDATE_GOLDEN=1)";
  std::stringstream expected;
  expected << file.rdbuf();
  if (expected.str() == actual) return {};
  return "output differs from " + path.string() + "\n--- expected\n" + expected.str() +
         "--- actual\n" + actual;
}

namespace {
std::string Slurp(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}
}  // namespace

CommandResult RunXpuperf(const std::vector<std::string>& args, double timeout_seconds) {
  return RunXpuperfIn("", args, timeout_seconds);
}

CommandResult RunXpuperfIn(const std::string& working_directory,
                           const std::vector<std::string>& args, double timeout_seconds) {
  char out_path[] = "/tmp/xpuperf-test-out-XXXXXX";
  char err_path[] = "/tmp/xpuperf-test-err-XXXXXX";
  const int out_fd = mkstemp(out_path);
  const int err_fd = mkstemp(err_path);
  CommandResult result;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    const int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, STDIN_FILENO);  // never a terminal: top takes its plain path
    std::vector<char*> argv;
    std::string exe = XPUPERF_EXECUTABLE;
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (!working_directory.empty() && chdir(working_directory.c_str()) != 0) _exit(126);
    alarm(static_cast<unsigned>(timeout_seconds));
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  close(out_fd);
  close(err_fd);
  result.out = Slurp(out_path);
  result.err = Slurp(err_path);
  unlink(out_path);
  unlink(err_path);
  return result;
}

FakeNvml::FakeNvml(const std::string& scenario) {
  ::setenv("XPUPERF_NVML_LIBRARY", Library().c_str(), 1);
  ::setenv("XPUPERF_FAKE_NVML_SCENARIO", scenario.c_str(), 1);
}

FakeNvml::~FakeNvml() {
  ::unsetenv("XPUPERF_NVML_LIBRARY");
  ::unsetenv("XPUPERF_FAKE_NVML_SCENARIO");
}

std::string FakeNvml::Library() {
  return std::string(XPUPERF_BINARY_DIR) +
         "/backends/nvidia/tests/fake_nvml/full/libnvidia-ml.so.1";
}

}  // namespace xpuperf::cli::testing
