#include "xpuperf/agent/capture_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace xpuperf::agent {

namespace {

Error Io(const std::string& what) {
  return MakeError(ErrorCode::kIo, what + ": " + std::strerror(errno));
}

// An O_DIRECTORY|O_NOFOLLOW descriptor, closed on scope exit.
class Dir {
 public:
  explicit Dir(int fd) : fd_(fd) {}
  ~Dir() {
    if (fd_ >= 0) close(fd_);
  }
  Dir(const Dir&) = delete;
  Dir& operator=(const Dir&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

bool IsFinishedName(std::string_view name) {
  return IsSafeName(name) && name.find(".tmp") == std::string_view::npos;
}

// Whether the open folder is one this agent created for a capture: owned by the agent's user and
// holding the marker it wrote (a regular file of the agent's user, one link). Nobody else can
// create a file of that user there, so a folder someone else made under the capture directory
// (an administrator's, a restored backup's) is never taken over or served.
bool IsOwnCaptureFolder(int folder_fd);

// Folders of `root_fd` that hold the agent's marker.
int CountCaptureFolders(int root_fd) {
  const int copy = dup(root_fd);
  if (copy < 0) return 0;
  DIR* dir = fdopendir(copy);
  if (dir == nullptr) {
    close(copy);
    return 0;
  }
  int count = 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const std::string marker = std::string(entry->d_name) + "/" + kCaptureMarkerName;
    struct stat st {};
    if (fstatat(root_fd, marker.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == geteuid()) {
      ++count;
    }
  }
  closedir(dir);
  return count;
}

bool IsOwnCaptureFolder(int folder_fd) {
  struct stat folder {};
  if (fstat(folder_fd, &folder) != 0 || !S_ISDIR(folder.st_mode) || folder.st_uid != geteuid()) {
    return false;
  }
  struct stat marker {};
  if (fstatat(folder_fd, kCaptureMarkerName, &marker, AT_SYMLINK_NOFOLLOW) != 0) return false;
  return S_ISREG(marker.st_mode) && marker.st_uid == geteuid() && marker.st_nlink == 1;
}

Error NotACapture(std::string_view capture_id) {
  return MakeError(ErrorCode::kNotFound, "no capture '" + std::string(capture_id) + "'");
}

}  // namespace

bool IsSafeName(std::string_view name) {
  if (name.empty() || name.size() > 128 || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

Status CaptureStore::Init() const {
  if (root_.empty() || root_.front() != '/') {
    return MakeError(ErrorCode::kInvalidArgument,
                     "capture directory '" + root_ + "' must be an absolute path");
  }
  if (mkdir(root_.c_str(), 0755) != 0 && errno != EEXIST) {
    return Io("capture directory '" + root_ + "'");
  }
  struct stat info {};
  if (lstat(root_.c_str(), &info) != 0) return Io("capture directory '" + root_ + "'");
  if (!S_ISDIR(info.st_mode)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "capture directory '" + root_ + "' is not a directory (or is a link)");
  }
  // Under a shared /tmp, someone else may have created the folder first: refuse it, since its
  // owner could swap what it holds.
  if (info.st_uid != geteuid() || (info.st_mode & 022) != 0) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "capture directory '" + root_ + "' must be owned by this user and not writable by others");
  }
  return {};
}

Result<std::string> CaptureStore::Prepare(std::string_view capture_id) const {
  if (!IsSafeName(capture_id)) {
    return MakeError(ErrorCode::kInvalidArgument, "capture id must be 1..128 of [A-Za-z0-9._-]");
  }
  Dir root(open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (root.fd() < 0) return Io("capture directory '" + root_ + "'");
  const std::string id(capture_id);
  struct stat existing {};
  if (fstatat(root.fd(), id.c_str(), &existing, AT_SYMLINK_NOFOLLOW) != 0 &&
      CountCaptureFolders(root.fd()) >= kMaxCaptureFolders) {
    return MakeError(ErrorCode::kUnavailable, "the capture directory '" + root_ + "' holds " +
                                                  std::to_string(kMaxCaptureFolders) +
                                                  " capture folders (the limit): remove old ones");
  }
  const bool created = mkdirat(root.fd(), id.c_str(), 0700) == 0;
  if (!created && errno != EEXIST) return Io("capture directory '" + root_ + "/" + id + "'");
  Dir folder(openat(root.fd(), id.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (folder.fd() < 0) return Io("capture directory '" + root_ + "/" + id + "'");
  if (created) {
    // The marker first, while the folder is still 0700: only then is it a capture folder.
    const int marker = openat(folder.fd(), kCaptureMarkerName,
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (marker < 0) return Io("capture marker in '" + root_ + "/" + id + "'");
    close(marker);
  } else if (!IsOwnCaptureFolder(folder.fd())) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "capture id '" + id + "' names a folder of " + root_ +
                         " that the agent did not create; it is left alone: choose another id");
  }
  // Profiled processes of other users write here; the sticky bit keeps their files apart.
  if (fchmod(folder.fd(), 01777) != 0) return Io("chmod '" + root_ + "/" + id + "'");
  return root_ + "/" + id;
}

Result<std::vector<CaptureFile>> CaptureStore::List(std::string_view capture_id) const {
  if (!IsSafeName(capture_id)) {
    return MakeError(ErrorCode::kInvalidArgument, "capture id must be 1..128 of [A-Za-z0-9._-]");
  }
  const std::string path = root_ + "/" + std::string(capture_id);
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotACapture(capture_id);
    return Io("capture '" + path + "'");
  }
  if (!IsOwnCaptureFolder(fd)) {
    close(fd);
    return NotACapture(capture_id);
  }
  DIR* listing = fdopendir(fd);
  if (listing == nullptr) {
    close(fd);
    return Io("capture '" + path + "'");
  }
  std::vector<CaptureFile> files;
  while (dirent* entry = readdir(listing)) {
    const std::string name = entry->d_name;
    if (!IsFinishedName(name)) continue;
    struct stat info {};
    if (fstatat(dirfd(listing), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(info.st_mode) || info.st_nlink != 1) continue;
    CaptureFile file;
    file.name = name;
    file.size_bytes = static_cast<uint64_t>(info.st_size);
    file.too_large = file.size_bytes > max_file_bytes_;
    files.push_back(std::move(file));
  }
  closedir(listing);
  std::sort(files.begin(), files.end(),
            [](const CaptureFile& a, const CaptureFile& b) { return a.name < b.name; });
  return files;
}

Result<FileChunk> CaptureStore::Read(std::string_view capture_id, std::string_view name,
                                     uint64_t offset, uint64_t length) const {
  if (!IsSafeName(capture_id) || !IsFinishedName(name)) {
    return MakeError(ErrorCode::kInvalidArgument, "not a finished file of a capture");
  }
  if (length == 0 || length > kMaxReadChunkBytes) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "length must be 1.." + std::to_string(kMaxReadChunkBytes) + " bytes");
  }
  const std::string folder_path = root_ + "/" + std::string(capture_id);
  Dir folder(open(folder_path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (folder.fd() < 0 || !IsOwnCaptureFolder(folder.fd())) return NotACapture(capture_id);
  const std::string file_name(name);
  Dir file(openat(folder.fd(), file_name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (file.fd() < 0) return MakeError(ErrorCode::kNotFound, "no file '" + file_name + "'");
  struct stat info {};
  if (fstat(file.fd(), &info) != 0) return Io("'" + file_name + "'");
  if (!S_ISREG(info.st_mode) || info.st_nlink != 1) {
    return MakeError(ErrorCode::kInvalidArgument, "'" + file_name + "' is not a plain file");
  }
  const auto size = static_cast<uint64_t>(info.st_size);
  if (size > max_file_bytes_) {
    return MakeError(ErrorCode::kInvalidArgument, "'" + file_name + "' is " + std::to_string(size) +
                                                      " bytes, over the limit of " +
                                                      std::to_string(max_file_bytes_));
  }
  FileChunk chunk;
  chunk.offset = offset;
  chunk.file_size = size;
  if (offset >= size) {
    chunk.eof = true;
    return chunk;
  }
  chunk.data.resize(static_cast<size_t>(std::min(length, size - offset)));
  size_t done = 0;
  while (done < chunk.data.size()) {
    const ssize_t got = pread(file.fd(), chunk.data.data() + done, chunk.data.size() - done,
                              static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Io("read '" + file_name + "'");
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  chunk.data.resize(done);
  chunk.eof = offset + done >= size;
  return chunk;
}

}  // namespace xpuperf::agent
