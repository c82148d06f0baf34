// Starting MPI programs from a process that is not one: finding mpirun, telling whether this
// process was itself started by an MPI launcher, and running a command line. Needs no MPI library,
// so every build has it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::collectives {

// The first executable `name` in the ':'-separated directories of `path_env` (a PATH value); ""
// when there is none.
std::string FindProgramOnPath(std::string_view name, std::string_view path_env);

// mpirun from this process's PATH, or "".
std::string FindMpirun();

// True when an MPI launcher started this process (Open MPI's OMPI_COMM_WORLD_SIZE, PMIx's
// PMIX_RANK, or PMI_RANK/PMI_SIZE from MPICH's Hydra and Slurm).
bool StartedByMpiLauncher();

// This process's rank as its launcher set it (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK), before
// MPI is initialised; -1 when there is none.
int LauncherRank();

// This process's executable: $XPUPERF_EXECUTABLE when set (a wrapper that starts xpuperf through
// another program names itself there), else /proc/self/exe; "" when unknown.
std::string SelfExecutable();

// CPUs this process may run on (its affinity mask), at least 1.
int AllowedCpus();

// mpirun --allow-run-as-root --oversubscribe -np <ranks> <program> <args...>. Both flags are Open
// MPI's: root is the usual user in containers, and more ranks than cores must be allowed on small
// machines.
std::vector<std::string> MpirunCommand(const std::string& mpirun, int ranks,
                                       const std::string& program,
                                       const std::vector<std::string>& args);

// Runs argv[0] with argv (no shell) and waits for it. stdout and stderr go to the given files, or
// to this process's when a path is empty. Returns the exit code (128 + signal when it was killed);
// kUnavailable when it cannot be started.
Result<int> RunProgram(const std::vector<std::string>& argv, const std::string& stdout_path = "",
                       const std::string& stderr_path = "");

}  // namespace xpuperf::collectives
