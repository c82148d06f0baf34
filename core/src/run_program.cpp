#include "xpuperf/core/run_program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/pipe.h"

extern char** environ;

namespace xpuperf {
namespace {

int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

Result<pid_t> SpawnInOwnGroup(const std::vector<std::string>& args, Pipe& out, Pipe& err,
                              const SpawnOptions& options) {
  if (args.empty()) return MakeError(ErrorCode::kInvalidArgument, "no program to run");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.input != nullptr) {
    posix_spawn_file_actions_adddup2(&actions, options.input->read_end(), 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out.write_end(), 1);
  posix_spawn_file_actions_adddup2(&actions, err.write_end(), 2);
  if (!options.working_directory.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, options.working_directory.c_str());
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGCHLD, SIGPIPE, SIGHUP, SIGQUIT}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: killed with whatever it starts
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> argv_text = args;
  std::vector<char*> argv;
  argv.reserve(argv_text.size() + 1);
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text = options.environment;
  std::vector<char*> envp;
  envp.reserve(env_text.size() + 1);
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, argv_text[0].c_str(), &actions, &attr, argv.data(),
                                     env_text.empty() ? environ : envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  out.CloseWrite();
  err.CloseWrite();
  if (options.input != nullptr) options.input->CloseRead();
  if (spawned != 0) return MakeError(ErrorCode::kUnavailable, std::strerror(spawned));
  return pid;
}

Result<ProgramOutput> RunProgram(const std::vector<std::string>& args, const RunOptions& options) {
  if (args.empty()) return MakeError(ErrorCode::kInvalidArgument, "no program to run");
  const std::string& what = args[0];
  Pipe out, err;
  if (!out.ok() || !err.ok())
    return MakeError(ErrorCode::kIo, what + ": no pipe: " + std::strerror(errno));
  auto pid = SpawnInOwnGroup(args, out, err);
  if (!pid.ok()) return MakeError(ErrorCode::kUnavailable, what + ": " + pid.error().message);

  ProgramOutput result;
  const pid_t child = *pid;
  const int64_t deadline_ns = MonotonicNs() + static_cast<int64_t>(options.timeout_seconds * 1e9);
  std::string problem;
  bool out_open = true, err_open = true;
  while ((out_open || err_open) && problem.empty()) {
    if (CancellationRequested()) {
      problem = what + ": interrupted";
      break;
    }
    const int64_t left_ns = deadline_ns - MonotonicNs();
    if (left_ns <= 0) {
      problem =
          what + ": no answer within " + std::to_string(options.timeout_seconds) + " s (killed)";
      break;
    }
    pollfd fds[2] = {{out_open ? out.read_end() : -1, POLLIN, 0},
                     {err_open ? err.read_end() : -1, POLLIN, 0}};
    const int wait_ms = static_cast<int>(std::min<int64_t>(50, left_ns / 1'000'000 + 1));
    if (::poll(fds, 2, wait_ms) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      std::string& text = i == 0 ? result.out : result.err;
      text.append(buffer, static_cast<size_t>(n));
      if (text.size() > options.max_output) problem = what + ": more output than expected";
    }
  }
  int status = 0;
  bool reaped = false;
  while (problem.empty()) {
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) {
      reaped = true;
      break;
    }
    if (done < 0 && errno != EINTR) break;
    if (MonotonicNs() >= deadline_ns || CancellationRequested()) {
      problem = what + ": did not exit in time (killed)";
      break;
    }
    ::usleep(2000);
  }
  if (!problem.empty()) ::kill(-child, SIGKILL);
  while (!reaped) {
    const pid_t done = ::waitpid(child, &status, 0);
    if (done == child || (done < 0 && errno != EINTR)) reaped = true;
  }
  if (!problem.empty()) return MakeError(ErrorCode::kUnavailable, problem);
  if (WIFSIGNALED(status)) {
    return MakeError(ErrorCode::kUnavailable,
                     what + ": killed by signal " + std::to_string(WTERMSIG(status)));
  }
  result.exit_code = WEXITSTATUS(status);
  return result;
}

}  // namespace xpuperf
