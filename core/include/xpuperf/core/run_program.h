// Runs another program (scontrol, a vendor tool) the way a daemon must: no shell, standard input
// from /dev/null, its output captured up to a bound, in its own process group, killed with that
// group at a deadline or on SIGINT/SIGTERM (core/cancellation.h).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "xpuperf/core/pipe.h"
#include "xpuperf/core/status.h"

namespace xpuperf {

struct ProgramOutput {
  int exit_code = 0;  // the program's exit status
  std::string out;    // standard output (at most max_output bytes)
  std::string err;    // standard error (at most max_output bytes)
};

struct RunOptions {
  double timeout_seconds = 30;
  size_t max_output = 1 << 20;  // per stream; more is an error
};

// argv[0] is looked up in PATH when it has no '/'. Fails (kUnavailable) when it cannot start, is
// killed by a signal, overruns its deadline (killed) or is interrupted; a non-zero exit is not a
// failure here: the caller reads exit_code.
Result<ProgramOutput> RunProgram(const std::vector<std::string>& argv,
                                 const RunOptions& options = {});

// The start RunProgram and record's ipmitool calls share: argv[0] (looked up in PATH when it has
// no '/') with standard input from /dev/null, standard output and error into the write ends of
// `out` and `err` (closed here afterwards), an empty signal mask, default dispositions and its own
// process group. The error's message is the reason alone ("No such file or directory").
// What a long-lived child needs beyond that (the TPU backend's libtpu reader): standard input from
// the read end of `input` (closed here afterwards), another working directory, another
// environment ("NAME=value" entries; empty: this process's).
struct SpawnOptions {
  Pipe* input = nullptr;
  std::string working_directory;
  std::vector<std::string> environment;
};
Result<pid_t> SpawnInOwnGroup(const std::vector<std::string>& argv, Pipe& out, Pipe& err,
                              const SpawnOptions& options = {});

}  // namespace xpuperf
