// Starting the job: CMD runs as a child in xpuperf's own process group, with the same
// environment, working directory and terminal (so the terminal's Ctrl-C reaches it directly).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::record {

// fork + execvp. Fails (kNotFound / kUnavailable) when the program cannot be executed; the child
// then never ran the job.
Result<pid_t> StartJob(const std::vector<std::string>& argv);

}  // namespace xpuperf::record
