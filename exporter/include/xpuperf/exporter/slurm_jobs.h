// Slurm job attribution: which job uses each device, for `xpuperf serve`.
//
// Two sources, both optional and both on by default in `serve --slurm-jobs`:
//  - a mapping directory written by Slurm prolog/epilog scripts (deploy/slurm/), in the layout of
//    dcgm-exporter's --hpc-job-mapping-dir: a file per device named by its index ("0", "1", …;
//    also a UUID or an xpuperf device id), holding the ids of the jobs on it, one per line.
//    xpuperf's prolog also writes `.jobs/<job id>` with `user=` and `partition=` lines, which
//    dcgm-exporter ignores (it reads files with numeric names only), so either exporter reads
//    the other's directory;
//  - the processes that hold each device (the per-process series' pid): the job of a process from
//    its cgroup (`/slurm/uid_<uid>/job_<id>/…` with cgroup v1, `…/slurmstepd.scope/job_<id>/…` with
//    v2), else from SLURM_JOB_ID in its environment where /proc/PID/environ is readable (root),
//    with SLURM_JOB_USER and SLURM_JOB_PARTITION.
// The answers are cached and refreshed on a thread of their own, never during a scrape: a pid met
// for the first time is looked up at the next refresh, and a process that exited is forgotten.
// A daemon running as root trusts no path a user can write: the mapping directory and its files
// must be owned by root (or the exporter's own user) and writable by their owner only, or the
// directory is refused with the reason.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/device.h"
#include "xpuperf/core/sample.h"
#include "xpuperf/core/status.h"
#include "xpuperf/exporter/exporter.h"

namespace xpuperf::exporter {

struct SlurmJob {
  std::string job_id;     // "4711", an array task "4711_3", a het component "4711+1"
  std::string user;       // empty when the source does not say
  std::string partition;  // empty when the source does not say
  std::string source;     // "mapping_dir", "cgroup" or "environment"
  friend bool operator==(const SlurmJob&, const SlurmJob&) = default;
};

// A Slurm job id as the prolog and the cgroup paths write it: digits, optionally followed by
// "_<digits>" (array task) or "+<digits>" (het job component); at most 32 characters.
bool IsSlurmJobId(std::string_view text);
// User and partition names kept as labels: [A-Za-z0-9._-], 1 to 64 characters.
bool IsSlurmName(std::string_view text);

// The job id in a /proc/PID/cgroup text (a path with a component starting with "slurm" followed by
// a "job_<id>" component); nullopt when the process is in no Slurm job's cgroup.
std::optional<std::string> SlurmJobIdFromCgroup(std::string_view cgroup_text);

// SLURM_JOB_ID (else SLURM_JOBID), SLURM_JOB_USER and SLURM_JOB_PARTITION from a
// /proc/PID/environ text (NUL-separated); nullopt without a valid job id.
std::optional<SlurmJob> SlurmJobFromEnviron(std::string_view environ_text);

// The workload identity of a process: the allowed variables of its environment as labels
// "env_<lower-case name>" (RANK -> env_rank). A value is kept when it has 1 to 128 characters of
// [A-Za-z0-9._:/@+=-] (no command lines, no unbounded text); others are left out.
Labels EnvironmentLabels(std::string_view environ_text, const std::vector<std::string>& names);
// A variable name that may be asked for: [A-Za-z_][A-Za-z0-9_]*, at most 64 characters.
bool IsEnvironmentName(std::string_view name);
// What `serve --process-env-labels` asks for: the ranks and ids of PyTorch, torchrun and Slurm.
const std::vector<std::string>& DefaultEnvironmentLabels();

// Device key (the file's name) -> the jobs listed in it, with user and partition from
// `.jobs/<job id>` where it exists. At most 4096 device files of 64 KiB each and 64 jobs per
// device; a line that is not a job id is skipped. kInvalidArgument with the reason when the
// directory or a file fails the ownership rule above (`trusted_uid`: the exporter's own user),
// is a symbolic link or is not a regular file; kNotFound when the directory does not exist.
using JobMapping = std::map<std::string, std::vector<SlurmJob>>;
Result<JobMapping> ReadJobMappingDirectory(const std::string& dir, uid_t trusted_uid);

// The jobs of `mapping` on `device`: the files named by its xpuperf id, its UUID and, for an
// accelerator, its index (a MIG device by its id and UUID only: its index is its parent's).
std::vector<SlurmJob> JobsOfDevice(const JobMapping& mapping, const Device& device);

struct SlurmJobsOptions {
  std::string mapping_dir;  // empty: no mapping directory
  bool processes = true;    // the jobs of the processes holding each device
  // Variables of each such process's environment to put on its series (EnvironmentLabels); empty:
  // none. Reading another user's /proc/PID/environ needs root: without it, those processes get no
  // such labels (counted in the state), and the scrape goes on.
  std::vector<std::string> environment_labels;
  std::string root = "/";           // where /proc is (tests point it at a recorded tree)
  double refresh_seconds = 5;       // between two refreshes
  uid_t trusted_uid = ::geteuid();  // besides root, the owner the mapping directory may have
  // Called on the refreshing thread (the first time before Start returns) whenever the mapping
  // directory's problem changes: its message, or "" once it reads again. May be empty.
  std::function<void(const std::string& problem)> on_mapping_change;
};

struct SlurmJobsState {
  std::string mapping_error;  // why the mapping directory was not read; empty when it was
  size_t devices_mapped = 0;  // device files in the mapping directory
  size_t processes = 0;       // processes asked about and alive
  size_t processes_in_jobs = 0;
  size_t environ_unreadable = 0;  // processes whose environment could not be read
};

class SlurmJobs {
 public:
  // Reads the mapping directory once before returning, then refreshes on its own thread.
  static std::unique_ptr<SlurmJobs> Start(SlurmJobsOptions options);
  ~SlurmJobs();
  SlurmJobs(const SlurmJobs&) = delete;
  SlurmJobs& operator=(const SlurmJobs&) = delete;

  // For ExporterOptions::jobs. The functions hold a reference to this object, which must outlive
  // the exporter using them.
  JobAttribution AsAttribution() const;
  std::vector<SlurmJob> ForDevice(const Device& device) const;
  // The cached job of a process; an unknown pid is noted and looked up at the next refresh.
  std::optional<SlurmJob> ForProcess(int pid) const;
  // The cached identity labels of a process (empty until its first refresh, or without any).
  Labels LabelsOfProcess(int pid) const;
  SlurmJobsState state() const;
  // Refreshes now (tests; the thread does it every refresh_seconds).
  void Refresh();

  class Impl;

 private:
  explicit SlurmJobs(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xpuperf::exporter
