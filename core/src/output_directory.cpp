#include "xpuperf/core/output_directory.h"

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
  // ENOTDIR: some ancestor is a file, which the walk below finds and names.
  if (errno != ENOENT && errno != ENOTDIR) return Refuse(given, std::strerror(errno));
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

}  // namespace xpuperf
