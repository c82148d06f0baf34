#include "xpuperf/collectives/mpirun.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace xpuperf::collectives {

std::string FindProgramOnPath(std::string_view name, std::string_view path_env) {
  size_t begin = 0;
  while (begin <= path_env.size()) {
    size_t end = path_env.find(':', begin);
    if (end == std::string_view::npos) end = path_env.size();
    const std::string_view directory = path_env.substr(begin, end - begin);
    if (!directory.empty()) {
      std::string candidate = std::string(directory) + "/" + std::string(name);
      struct stat info {};
      if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
          access(candidate.c_str(), X_OK) == 0) {
        return candidate;
      }
    }
    begin = end + 1;
  }
  return "";
}

std::string FindMpirun() {
  const char* path = std::getenv("PATH");
  return FindProgramOnPath("mpirun", path != nullptr ? path : "");
}

bool StartedByMpiLauncher() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(variable) != nullptr) return true;
  }
  return false;
}

int LauncherRank() {
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* value = std::getenv(variable); value != nullptr) {
      // A rank is a small non-negative integer; anything else is not a launcher's rank.
      char* end = nullptr;
      errno = 0;
      const long rank = std::strtol(value, &end, 10);
      if (errno != 0 || end == value || *end != '\0' || rank < 0 || rank > 1000000000) return -1;
      return static_cast<int>(rank);
    }
  }
  return -1;
}

std::string SelfExecutable() {
  // A wrapper that starts xpuperf through another program (the GPU bundle's packed loader) names
  // the command that starts it again.
  if (const char* self = std::getenv("XPUPERF_EXECUTABLE"); self != nullptr && *self != '\0') {
    return self;
  }
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "" : self.string();
}

int AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

std::vector<std::string> MpirunCommand(const std::string& mpirun, int ranks,
                                       const std::string& program,
                                       const std::vector<std::string>& args) {
  std::vector<std::string> argv = {mpirun, "--allow-run-as-root", "--oversubscribe",
                                   "-np",  std::to_string(ranks), program};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Result<int> RunProgram(const std::vector<std::string>& argv, const std::string& stdout_path,
                       const std::string& stderr_path) {
  if (argv.empty()) return MakeError(ErrorCode::kInvalidArgument, "no program to run");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!stdout_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  if (!stderr_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  std::vector<char*> pointers;
  pointers.reserve(argv.size() + 1);
  for (const std::string& arg : argv) pointers.push_back(const_cast<char*>(arg.c_str()));
  pointers.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return MakeError(ErrorCode::kUnavailable,
                     fmt::format("cannot start {}: {}", argv[0], std::strerror(spawned)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("waiting for {} failed: {}", argv[0], std::strerror(errno)));
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace xpuperf::collectives
