// SlurmJobs: the mapping directory and the processes' jobs, refreshed on a thread of their own.
#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "periodic_thread.h"
#include "xpuperf/core/sysfs_file.h"
#include "xpuperf/exporter/slurm_jobs.h"

namespace xpuperf::exporter {
namespace {

Labels JobLabels(const SlurmJob& job) {
  Labels labels;
  labels.Set("job_id", job.job_id);
  if (!job.user.empty()) labels.Set("user", job.user);
  if (!job.partition.empty()) labels.Set("partition", job.partition);
  labels.Set("source", job.source);
  return labels;
}

// At most this many bytes of a process's environment are read.
constexpr size_t kMaxEnvironBytes = size_t{256} * 1024;
// At most this many processes are followed (the per-process series are bounded by the devices).
constexpr size_t kMaxProcesses = 65536;

}  // namespace

class SlurmJobs::Impl {
 public:
  explicit Impl(SlurmJobsOptions options) : options_(std::move(options)) {}

  // The first refresh before the thread starts; the thread is stopped first on destruction.
  void Run() {
    Refresh();
    thread_ = std::make_unique<PeriodicThread>(options_.refresh_seconds, [this] { Refresh(); });
  }

  void Refresh() {
    SlurmJobsState state;
    JobMapping mapping;
    if (!options_.mapping_dir.empty()) {
      auto read = ReadJobMappingDirectory(options_.mapping_dir, options_.trusted_uid);
      if (read.ok()) {
        mapping = std::move(*read);
      } else {
        state.mapping_error = read.error().message;
      }
      state.devices_mapped = mapping.size();
    }
    std::set<int> asked;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      asked = asked_;
    }
    std::map<int, std::optional<SlurmJob>> processes;
    std::map<int, Labels> identities;
    for (int pid : asked) {
      const std::string proc = JoinRoot(options_.root, fmt::format("/proc/{}", pid));
      auto cgroup = ReadFileToString(proc + "/cgroup");
      if (!cgroup.ok()) continue;  // exited: forgotten
      std::optional<SlurmJob> job;
      if (auto id = SlurmJobIdFromCgroup(*cgroup)) job = SlurmJob{*id, "", "", "cgroup"};
      // The environment adds user and partition (or the job, without a Slurm cgroup); reading it
      // needs the process's user or root, and its absence only leaves them out.
      auto environ = ReadFileToString(proc + "/environ");
      if (!environ.ok()) ++state.environ_unreadable;
      if (environ.ok()) {
        if (environ->size() > kMaxEnvironBytes) environ->resize(kMaxEnvironBytes);
        Labels identity = EnvironmentLabels(*environ, options_.environment_labels);
        if (!identity.empty()) identities[pid] = std::move(identity);
        if (auto from_environ = SlurmJobFromEnviron(*environ)) {
          if (!job) {
            job = std::move(from_environ);
          } else if (from_environ->job_id == job->job_id) {
            job->user = from_environ->user;
            job->partition = from_environ->partition;
          }
        }
      }
      processes[pid] = std::move(job);
    }
    state.processes = processes.size();
    for (const auto& [pid, job] : processes) state.processes_in_jobs += job.has_value();
    const bool mapping_changed = !options_.mapping_dir.empty() &&
                                 (first_refresh_ || state.mapping_error != state_.mapping_error);
    first_refresh_ = false;
    const std::string problem = state.mapping_error;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      mapping_ = std::move(mapping);
      processes_ = std::move(processes);
      identities_ = std::move(identities);
      // What exited is forgotten; what is asked from now on is looked up next time.
      for (auto it = asked_.begin(); it != asked_.end();) {
        it = processes_.count(*it) == 0 && asked.count(*it) != 0 ? asked_.erase(it) : std::next(it);
      }
      state_ = std::move(state);
    }
    if (mapping_changed && options_.on_mapping_change) options_.on_mapping_change(problem);
  }

  std::vector<SlurmJob> ForDevice(const Device& device) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return JobsOfDevice(mapping_, device);
  }

  std::optional<SlurmJob> ForProcess(int pid) const {
    if (!options_.processes) return std::nullopt;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = processes_.find(pid);
    if (it != processes_.end()) return it->second;
    if (asked_.size() < kMaxProcesses) asked_.insert(pid);
    return std::nullopt;
  }

  Labels LabelsOfProcess(int pid) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = identities_.find(pid);
    if (it != identities_.end()) return it->second;
    if (processes_.count(pid) == 0 && asked_.size() < kMaxProcesses) asked_.insert(pid);
    return {};
  }

  SlurmJobsState state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_;
  }

 private:
  SlurmJobsOptions options_;
  mutable std::mutex mutex_;
  JobMapping mapping_;
  std::map<int, std::optional<SlurmJob>> processes_;
  std::map<int, Labels> identities_;
  mutable std::set<int> asked_;
  SlurmJobsState state_;
  bool first_refresh_ = true;  // only the refreshing thread (and Start before it) touches it
  std::unique_ptr<PeriodicThread> thread_;  // last: stopped before the members it uses
};

SlurmJobs::SlurmJobs(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SlurmJobs::~SlurmJobs() = default;

std::unique_ptr<SlurmJobs> SlurmJobs::Start(SlurmJobsOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->Run();
  return std::unique_ptr<SlurmJobs>(new SlurmJobs(std::move(impl)));
}

void SlurmJobs::Refresh() { impl_->Refresh(); }
std::vector<SlurmJob> SlurmJobs::ForDevice(const Device& device) const {
  return impl_->ForDevice(device);
}
std::optional<SlurmJob> SlurmJobs::ForProcess(int pid) const { return impl_->ForProcess(pid); }
Labels SlurmJobs::LabelsOfProcess(int pid) const { return impl_->LabelsOfProcess(pid); }
SlurmJobsState SlurmJobs::state() const { return impl_->state(); }

JobAttribution SlurmJobs::AsAttribution() const {
  JobAttribution jobs;
  jobs.device_jobs = [this](const Device& device) {
    std::vector<Labels> out;
    for (const SlurmJob& job : ForDevice(device)) out.push_back(JobLabels(job));
    return out;
  };
  jobs.process_job = [this](int pid) -> std::optional<Labels> {
    std::optional<SlurmJob> job = ForProcess(pid);
    if (!job) return std::nullopt;
    return JobLabels(*job);
  };
  jobs.process_labels = [this](int pid) { return LabelsOfProcess(pid); };
  return jobs;
}

}  // namespace xpuperf::exporter
