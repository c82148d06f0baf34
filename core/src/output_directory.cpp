#include "xpuperf/core/output_directory.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace xpuperf {
namespace {

std::atomic<unsigned> probe_counter{0};

Error Refuse(const std::string& path, const std::string& why) {
  return MakeError(ErrorCode::kInvalidArgument, "cannot create " + path + ": " + why);
}

// "a/b//" -> "a/b"; "/" stays "/".
std::string WithoutTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// The parent of `path` as written: "a/b" -> "a", "a" -> ".", "/a" -> "/", "." -> "" (none).
std::string ParentOf(const std::string& path) {
  if (path == "/" || path == ".") return "";
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  size_t end = slash;
  while (end > 0 && path[end - 1] == '/') --end;
  return end == 0 ? "/" : path.substr(0, end);
}

// Probes the right to create entries in `directory` by creating (and removing) one.
Status CheckCanCreateIn(const std::string& directory, const std::string& path) {
  const std::string probe = directory + "/.xpuperf-probe-" + std::to_string(::getpid()) + "-" +
                            std::to_string(probe_counter.fetch_add(1));
  if (::mkdir(probe.c_str(), 0700) != 0) {
    const int error = errno;
    return Refuse(path, (directory == "." ? std::string("the working directory") : directory) +
                            " is not writable (" + std::strerror(error) + ")");
  }
  ::rmdir(probe.c_str());
  return Status::Ok();
}

}  // namespace

Status PrepareNewDirectory(const std::string& given) {
  if (given.empty()) return Refuse("\"\"", "empty path");
  const std::string path = WithoutTrailingSlashes(given);
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) return Refuse(given, "it already exists");
  if (errno != ENOENT) {
    const int error = errno;
    if (error == ENOTDIR) {
      // Some ancestor is a file: found by the walk below, which names it.
    } else {
      return Refuse(given, std::strerror(error));
    }
  }
  // The nearest ancestor that exists decides; the missing ones between are created later.
  for (std::string ancestor = ParentOf(path); !ancestor.empty(); ancestor = ParentOf(ancestor)) {
    if (::stat(ancestor.c_str(), &info) != 0) {
      const int error = errno;
      if (error == ENOENT) continue;
      if (error == ENOTDIR) continue;  // a file further up; reported when the walk reaches it
      if (error == ELOOP) return Refuse(given, ancestor + " is a loop of symbolic links");
      return Refuse(given, ancestor + ": " + std::strerror(error));
    }
    if (!S_ISDIR(info.st_mode)) return Refuse(given, ancestor + " exists and is not a directory");
    return CheckCanCreateIn(ancestor, given);
  }
  // Unreachable for a relative path ("." exists unless the working directory was removed).
  return Refuse(given, "no existing parent directory (was the working directory removed?)");
}

Status CreateNewDirectory(const std::string& given) {
  XPUPERF_RETURN_IF_ERROR(PrepareNewDirectory(given));
  const std::string path = WithoutTrailingSlashes(given);
  // Each missing component from the top down; EEXIST on a parent is fine (another run made it).
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string part = path.substr(0, slash);
    if (::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST) {
      return Refuse(given, part + ": " + std::strerror(errno));
    }
  }
  if (::mkdir(path.c_str(), 0777) != 0) {
    const int error = errno;
    return Refuse(given, error == EEXIST ? std::string("it already exists") : std::strerror(error));
  }
  return Status::Ok();
}

}  // namespace xpuperf
