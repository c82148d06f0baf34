// The pure parts of Slurm job attribution: job ids, cgroup paths, environments and the mapping
// directory (slurm_jobs.h).
#include "xpuperf/exporter/slurm_jobs.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "text_pieces.h"

namespace xpuperf::exporter {
namespace {

constexpr size_t kMaxDeviceFiles = 4096;
constexpr size_t kMaxFileBytes = size_t{64} * 1024;
constexpr size_t kMaxJobsPerDevice = 64;

bool AllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// Writable by its owner only, and owned by root or `trusted_uid`.
std::string OwnershipProblem(const struct stat& st, uid_t trusted_uid) {
  if (st.st_uid != 0 && st.st_uid != trusted_uid) {
    return fmt::format("owned by uid {}, not by root or this exporter's user (uid {})", st.st_uid,
                       trusted_uid);
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return fmt::format("writable by its group or others (mode {:o})", st.st_mode & 07777);
  }
  return "";
}

// A file of the directory, opened without following a link, checked, read (at most
// kMaxFileBytes + 1 to tell an oversized one).
Result<std::string> ReadTrustedFile(int dir_fd, const std::string& dir, const std::string& name,
                                    uid_t trusted_uid) {
  const std::string path = dir + "/" + name;
  const int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: {}", path,
                    error == ELOOP ? "a symbolic link (refused)" : std::strerror(error)));
  }
  struct stat st {};
  std::string problem;
  if (::fstat(fd, &st) != 0) {
    problem = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    problem = "not a regular file";
  } else {
    problem = OwnershipProblem(st, trusted_uid);
  }
  std::string text;
  if (problem.empty()) {
    text.resize(kMaxFileBytes + 1);
    size_t used = 0;
    while (used < text.size()) {
      const ssize_t n = ::read(fd, text.data() + used, text.size() - used);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      used += static_cast<size_t>(n);
    }
    text.resize(used);
    if (used > kMaxFileBytes) problem = fmt::format("larger than {} bytes", kMaxFileBytes);
  }
  ::close(fd);
  if (!problem.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, fmt::format("{}: {}", path, problem));
  }
  return text;
}

// user= and partition= of `.jobs/<job id>`, where the file exists and passes the rule.
void ReadJobDetails(const std::string& dir, uid_t trusted_uid, SlurmJob& job) {
  const std::string jobs_dir = dir + "/.jobs";
  const int fd = ::open(jobs_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && OwnershipProblem(st, trusted_uid).empty()) {
    if (auto text = ReadTrustedFile(fd, jobs_dir, job.job_id, trusted_uid); text.ok()) {
      ForEachPiece(*text, '\n', [&job](std::string_view line) {
        const auto entry = SplitKeyValue(Trimmed(line));
        if (!entry || !IsSlurmName(entry->second)) return true;
        if (entry->first == "user") job.user = std::string(entry->second);
        if (entry->first == "partition") job.partition = std::string(entry->second);
        return true;
      });
    }
  }
  ::close(fd);
}

}  // namespace

bool IsSlurmJobId(std::string_view text) {
  if (text.empty() || text.size() > 32) return false;
  const size_t separator = text.find_first_of("_+");
  if (separator == std::string_view::npos) return AllDigits(text);
  return AllDigits(text.substr(0, separator)) && AllDigits(text.substr(separator + 1));
}

bool IsSlurmName(std::string_view text) {
  return !text.empty() && text.size() <= 64 && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::optional<std::string> SlurmJobIdFromCgroup(std::string_view cgroup_text) {
  std::optional<std::string> job;
  ForEachPiece(cgroup_text, '\n', [&job](std::string_view line) {
    const std::optional<std::string_view> path = CgroupPath(line);
    if (!path) return true;
    bool in_slurm = false;
    ForEachPiece(*path, '/', [&](std::string_view component) {
      if (component.starts_with("slurm")) in_slurm = true;
      if (in_slurm && component.starts_with("job_") && IsSlurmJobId(component.substr(4))) {
        job = std::string(component.substr(4));
      }
      return !job;
    });
    return !job;
  });
  return job;
}

std::optional<SlurmJob> SlurmJobFromEnviron(std::string_view environ_text) {
  SlurmJob job;
  job.source = "environment";
  std::string job_id, jobid;
  ForEachPiece(environ_text, '\0', [&](std::string_view piece) {
    const auto entry = SplitKeyValue(piece);
    if (!entry) return true;
    const auto [key, value] = *entry;
    if (key == "SLURM_JOB_ID" && IsSlurmJobId(value)) job_id = std::string(value);
    if (key == "SLURM_JOBID" && IsSlurmJobId(value)) jobid = std::string(value);
    if (key == "SLURM_JOB_USER" && IsSlurmName(value)) job.user = std::string(value);
    if (key == "SLURM_JOB_PARTITION" && IsSlurmName(value)) job.partition = std::string(value);
    return true;
  });
  job.job_id = !job_id.empty() ? job_id : jobid;
  if (job.job_id.empty()) return std::nullopt;
  return job;
}

bool IsEnvironmentName(std::string_view name) {
  if (name.empty() || name.size() > 64 || std::isdigit(static_cast<unsigned char>(name[0]))) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

const std::vector<std::string>& DefaultEnvironmentLabels() {
  static const std::vector<std::string> names = {
      "RANK", "LOCAL_RANK", "WORLD_SIZE", "SLURM_JOB_ID", "JOB_ID", "TORCHELASTIC_RUN_ID"};
  return names;
}

Labels EnvironmentLabels(std::string_view environ_text, const std::vector<std::string>& names) {
  Labels labels;
  if (names.empty()) return labels;
  const auto valid = [](std::string_view value) {
    return !value.empty() && value.size() <= 128 &&
           std::all_of(value.begin(), value.end(), [](char c) {
             return std::isalnum(static_cast<unsigned char>(c)) ||
                    std::string_view("._:/@+=-").find(c) != std::string_view::npos;
           });
  };
  ForEachPiece(environ_text, '\0', [&](std::string_view piece) {
    const auto entry = SplitKeyValue(piece);
    if (!entry || std::find(names.begin(), names.end(), entry->first) == names.end() ||
        !valid(entry->second)) {
      return true;
    }
    std::string label = "env_";
    for (char c : entry->first) {
      label += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    labels.Set(label, entry->second);
    return true;
  });
  return labels;
}

Result<JobMapping> ReadJobMappingDirectory(const std::string& dir, uid_t trusted_uid) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) return MakeError(ErrorCode::kNotFound, dir + ": no such directory");
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("{}: {}", dir,
                                 error == ELOOP     ? "a symbolic link (refused)"
                                 : error == ENOTDIR ? "not a directory"
                                                    : std::strerror(error)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return MakeError(ErrorCode::kIo, fmt::format("{}: {}", dir, std::strerror(errno)));
  }
  if (const std::string problem = OwnershipProblem(st, trusted_uid); !problem.empty()) {
    ::close(fd);
    return MakeError(ErrorCode::kInvalidArgument, fmt::format("{}: {}", dir, problem));
  }
  const int list_fd = ::dup(fd);
  DIR* listing = list_fd < 0 ? nullptr : ::fdopendir(list_fd);
  if (listing == nullptr) {
    if (list_fd >= 0) ::close(list_fd);
    ::close(fd);
    return MakeError(ErrorCode::kIo, fmt::format("{}: cannot list it", dir));
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string name = entry->d_name;
    if (name.empty() || name[0] == '.') continue;  // ".", "..", ".jobs", temporaries
    names.push_back(name);
  }
  ::closedir(listing);
  std::sort(names.begin(), names.end());
  if (names.size() > kMaxDeviceFiles) {
    ::close(fd);
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("{}: more than {} files", dir, kMaxDeviceFiles));
  }
  JobMapping mapping;
  Status failed = Status::Ok();
  for (const std::string& name : names) {
    if (!IsSlurmName(name)) continue;  // not a device key
    // Folders are skipped as dcgm-exporter skips them; links are refused by the read below.
    struct stat entry {};
    if (::fstatat(fd, name.c_str(), &entry, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(entry.st_mode)) {
      continue;
    }
    auto text = ReadTrustedFile(fd, dir, name, trusted_uid);
    if (!text.ok()) {
      failed = text.error();
      break;
    }
    std::vector<SlurmJob>& jobs = mapping[name];
    ForEachPiece(*text, '\n', [&](std::string_view piece) {
      const std::string_view line = Trimmed(piece);
      const bool known = std::find_if(jobs.begin(), jobs.end(), [&](const SlurmJob& j) {
                           return j.job_id == line;
                         }) != jobs.end();
      if (IsSlurmJobId(line) && !known) {
        SlurmJob job;
        job.job_id = std::string(line);
        job.source = "mapping_dir";
        ReadJobDetails(dir, trusted_uid, job);
        jobs.push_back(std::move(job));
      }
      return jobs.size() < kMaxJobsPerDevice;
    });
    if (jobs.empty()) mapping.erase(name);
  }
  ::close(fd);
  if (!failed.ok()) return failed.error();
  return mapping;
}

std::vector<SlurmJob> JobsOfDevice(const JobMapping& mapping, const Device& device) {
  std::vector<SlurmJob> jobs;
  const auto add = [&](const std::string& key) {
    if (key.empty()) return;
    auto it = mapping.find(key);
    if (it == mapping.end()) return;
    for (const SlurmJob& job : it->second) {
      if (std::find(jobs.begin(), jobs.end(), job) == jobs.end()) jobs.push_back(job);
    }
  };
  add(device.id);
  add(device.uuid);
  // The index names an accelerator (as CUDA_VISIBLE_DEVICES and SLURM_JOB_GPUS do); a MIG device
  // is named by its UUID only, or it would take its parent's jobs.
  if (device.backend != "cpu" && !device.is_partition()) add(std::to_string(device.index));
  return jobs;
}

}  // namespace xpuperf::exporter
