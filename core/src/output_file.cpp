#include "xpuperf/core/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "xpuperf/core/cancellation.h"

namespace xpuperf {
namespace {

std::atomic<unsigned> temporary_counter{0};

Error Refuse(const std::string& path, const std::string& why) {
  return MakeError(ErrorCode::kInvalidArgument, "cannot write " + path + ": " + why);
}

Error IoFailure(const std::string& path, const std::string& what, int error) {
  return MakeError(ErrorCode::kIo, path + ": " + what + ": " + std::strerror(error));
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Checks that new files may be created in the directory that will hold `path`.
Status CheckDirectoryWritable(const std::string& path, const std::string& shown) {
  const std::string directory = DirectoryOf(path);
  struct stat info {};
  if (::stat(directory.c_str(), &info) != 0) {
    const int error = errno;
    if (error == ELOOP) return Refuse(shown, "the directory " + directory + " is a symlink loop");
    return Refuse(shown,
                  "the directory " + directory + " does not exist (" + std::strerror(error) + ")");
  }
  if (!S_ISDIR(info.st_mode)) return Refuse(shown, directory + " is not a directory");
  // Probe by creating (and removing) a file: access(2) says yes to root on read-only places
  // such as /proc, and the rename needs exactly this permission.
  const std::string probe = directory + "/.xpuperf-probe-" + std::to_string(::getpid()) + "-" +
                            std::to_string(temporary_counter.fetch_add(1));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Refuse(shown,
                  "the directory " + directory + " is not writable (" + std::strerror(errno) + ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::Ok();
}

}  // namespace

Result<OutputTarget> PrepareOutput(const std::string& path) {
  OutputTarget target;
  target.path = path;
  if (path == "-") {
    target.kind = OutputKind::kStdout;
    return target;
  }
  if (path.empty()) return Refuse("\"\"", "empty path");
  struct stat link_info {};
  if (::lstat(path.c_str(), &link_info) != 0) {
    const int error = errno;
    if (error != ENOENT) return Refuse(path, std::strerror(error));
    // A new file: its directory must exist and be writable.
    XPUPERF_RETURN_IF_ERROR(CheckDirectoryWritable(path, path));
    target.resolved = path;
    return target;
  }
  target.resolved = path;
  struct stat info = link_info;
  if (S_ISLNK(link_info.st_mode)) {
    if (::stat(path.c_str(), &info) != 0) {
      const int error = errno;
      if (error == ELOOP) return Refuse(path, "a loop of symbolic links");
      if (error == ENOENT) return Refuse(path, "a dangling symbolic link");
      return Refuse(path, std::strerror(error));
    }
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) return Refuse(path, std::strerror(errno));
    target.resolved = resolved;
  }
  if (S_ISDIR(info.st_mode)) return Refuse(path, "is a directory");
  if (S_ISBLK(info.st_mode)) return Refuse(path, "is a block device (never written by xpuperf)");
  if (S_ISSOCK(info.st_mode)) return Refuse(path, "is a socket");
  if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) {
    if (::access(target.resolved.c_str(), W_OK) != 0) return Refuse(path, std::strerror(errno));
    target.kind = OutputKind::kDirect;
    return target;
  }
  if (!S_ISREG(info.st_mode)) return Refuse(path, "is not a regular file, device or FIFO");
  if (::access(target.resolved.c_str(), W_OK) != 0) {
    return Refuse(path, std::string("the file is not writable (") + std::strerror(errno) + ")");
  }
  XPUPERF_RETURN_IF_ERROR(CheckDirectoryWritable(target.resolved, path));
  return target;
}

Status CheckOutputIsNotAnInput(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return Status::Ok();
  struct stat target {};
  if (::stat(output.c_str(), &target) != 0) return Status::Ok();  // a new file
  if (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode)) return Status::Ok();
  for (const std::string& input : inputs) {
    if (input.empty() || input == "-") continue;
    struct stat info {};
    if (::stat(input.c_str(), &info) == 0 && info.st_dev == target.st_dev &&
        info.st_ino == target.st_ino) {
      return Refuse(output, "it is the input " + input + "; choose another path");
    }
  }
  return Status::Ok();
}

std::vector<std::string> InputFilesAt(const std::string& path,
                                      const std::vector<std::string>& suffixes) {
  struct stat info {};
  if (path.empty() || ::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return {path};
  std::vector<std::string> files;
  DIR* directory = ::opendir(path.c_str());
  if (directory == nullptr) return files;
  while (const dirent* entry = ::readdir(directory)) {
    const std::string_view name = entry->d_name;
    for (const std::string& suffix : suffixes) {
      if (name.ends_with(suffix)) {
        files.push_back(path + "/" + std::string(name));
        break;
      }
    }
  }
  ::closedir(directory);
  return files;
}

Result<OutputFile> OutputFile::Open(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(OutputTarget target, PrepareOutput(path));
  OutputFile out;
  out.target_ = std::move(target);
  switch (out.target_.kind) {
    case OutputKind::kStdout:
      std::cout.flush();
      out.file_ = stdout;
      return out;
    case OutputKind::kDirect: {
      // O_NONBLOCK is not used: a FIFO waits for its reader, as a shell redirection does.
      const int fd = ::open(out.target_.resolved.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd < 0) return IoFailure(path, "cannot open", errno);
      struct stat info {};
      if (::fstat(fd, &info) != 0 || !(S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode))) {
        ::close(fd);
        return Refuse(path, "changed while being opened");
      }
      out.file_ = ::fdopen(fd, "wb");
      if (!out.file_) {
        const int error = errno;
        ::close(fd);
        return IoFailure(path, "cannot open", error);
      }
      return out;
    }
    case OutputKind::kRegular:
      break;
  }
  const std::string& final_path = out.target_.resolved;
  const size_t slash = final_path.find_last_of('/');
  const std::string base = slash == std::string::npos ? final_path : final_path.substr(slash + 1);
  const std::string prefix = final_path.substr(0, final_path.size() - base.size());
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temporary = prefix;
    temporary.append(".").append(base).append(".tmp-").append(std::to_string(::getpid()));
    temporary.append("-").append(std::to_string(temporary_counter.fetch_add(1)));
    // O_EXCL: never write through a file or link someone placed at the temporary name.
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return IoFailure(path, "cannot create a temporary file next to it", errno);
    }
    // A replaced file keeps its permission bits (a report made private stays private).
    struct stat existing {};
    if (::stat(final_path.c_str(), &existing) == 0) ::fchmod(fd, existing.st_mode & 07777);
    out.file_ = ::fdopen(fd, "wb");
    if (!out.file_) {
      const int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      return IoFailure(path, "cannot open", error);
    }
    out.temporary_ = std::move(temporary);
    out.cleanup_slot_ = RegisterTemporaryFile(out.temporary_);
    return out;
  }
  return MakeError(ErrorCode::kIo, path + ": cannot find a free temporary name next to it");
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : target_(std::move(other.target_)),
      temporary_(std::move(other.temporary_)),
      file_(other.file_),
      cleanup_slot_(other.cleanup_slot_) {
  other.file_ = nullptr;
  other.temporary_.clear();
  other.cleanup_slot_ = -1;
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    Abandon();
    target_ = std::move(other.target_);
    temporary_ = std::move(other.temporary_);
    file_ = other.file_;
    cleanup_slot_ = other.cleanup_slot_;
    other.file_ = nullptr;
    other.temporary_.clear();
    other.cleanup_slot_ = -1;
  }
  return *this;
}

OutputFile::~OutputFile() { Abandon(); }

void OutputFile::Abandon() {
  if (file_ && file_ != stdout) std::fclose(file_);
  file_ = nullptr;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
  UnregisterTemporaryFile(cleanup_slot_);
  cleanup_slot_ = -1;
}

Status OutputFile::Write(std::string_view bytes) {
  if (!file_) return MakeError(ErrorCode::kInternal, target_.path + ": written after Commit");
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return IoFailure(target_.path, "write failed", errno);
  }
  return Status::Ok();
}

Status OutputFile::Commit() {
  if (!file_) return MakeError(ErrorCode::kInternal, target_.path + ": committed twice");
  std::FILE* file = file_;
  file_ = nullptr;
  errno = 0;
  const bool write_failed = std::ferror(file) != 0;
  int error = errno;
  bool failed = write_failed;
  if (std::fflush(file) != 0) {
    failed = true;
    error = errno;
  }
  if (file == stdout) {
    if (failed) return IoFailure("standard output", "write failed", error ? error : EIO);
    return Status::Ok();
  }
  if (std::fclose(file) != 0 && !failed) {
    failed = true;
    error = errno;
  }
  if (failed) {
    Abandon();
    return IoFailure(target_.path, "write failed", error ? error : EIO);
  }
  if (target_.kind == OutputKind::kRegular) {
    if (std::rename(temporary_.c_str(), target_.resolved.c_str()) != 0) {
      error = errno;
      Abandon();
      return IoFailure(target_.path, "cannot rename the finished file into place", error);
    }
    temporary_.clear();
    UnregisterTemporaryFile(cleanup_slot_);
    cleanup_slot_ = -1;
  }
  return Status::Ok();
}

Status WriteOutputFile(const std::string& path, std::string_view contents) {
  XPUPERF_ASSIGN_OR_RETURN(OutputFile file, OutputFile::Open(path));
  XPUPERF_RETURN_IF_ERROR(file.Write(contents));
  return file.Commit();
}

Status FlushStandardOutput() {
  std::cout.flush();
  const bool stream_failed = !std::cout.good();
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || stream_failed) {
    int error = errno;
    if (error == 0) {
      // The failed write was earlier; a pipe whose reader is gone (`| head`) still says so.
      pollfd p{STDOUT_FILENO, 0, 0};
      if (::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0) error = EPIPE;
    }
    return MakeError(ErrorCode::kIo,
                     std::string("standard output: write failed, output lost") +
                         (error ? std::string(" (") + std::strerror(error) + ")" : std::string()));
  }
  return Status::Ok();
}

}  // namespace xpuperf
