#include "job_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace xpuperf::record {

Result<pid_t> StartJob(const std::vector<std::string>& argv) {
  if (argv.empty()) return MakeError(ErrorCode::kInvalidArgument, "no command to run");
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The child reports an exec failure through a close-on-exec pipe: EOF means exec succeeded.
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    return MakeError(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(report[0]);
    ::close(report[1]);
    return MakeError(ErrorCode::kIo, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // The job gets the default dispositions and an empty mask, whatever xpuperf installed.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(sig, SIG_DFL);
    ::close(report[0]);
    ::execvp(args[0], args.data());
    const int error = errno;
    ssize_t ignored = ::write(report[1], &error, sizeof(error));
    (void)ignored;
    ::_exit(127);
  }
  ::close(report[1]);
  int error = 0;
  ssize_t n;
  do {
    n = ::read(report[0], &error, sizeof(error));
  } while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == sizeof(error)) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return MakeError(error == ENOENT ? ErrorCode::kNotFound : ErrorCode::kUnavailable,
                     "cannot run '" + argv[0] + "': " + std::strerror(error));
  }
  return pid;
}

}  // namespace xpuperf::record
