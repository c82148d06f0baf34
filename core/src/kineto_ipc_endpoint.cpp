// Unix datagram endpoints with Kineto's addressing rules.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "xpuperf/core/kineto_ipc.h"

namespace xpuperf::kineto {

Result<IpcAddress> MakeIpcAddress(std::string_view name, const std::string& socket_dir) {
  if (name.empty() || name.size() > kMaxIpcNameChars || name.find('\0') != std::string_view::npos) {
    return MakeError(ErrorCode::kInvalidArgument, "IPC endpoint name must be 1.." +
                                                      std::to_string(kMaxIpcNameChars) +
                                                      " characters without NUL");
  }
  IpcAddress out;
  out.address.sun_family = AF_UNIX;
  if (socket_dir.empty()) {
    // "\0" name "\0": Kineto and dynolog count the trailing zero as part of the abstract name.
    std::memcpy(out.address.sun_path + 1, name.data(), name.size());
    out.length = static_cast<socklen_t>(sizeof(sa_family_t) + 1 + name.size() + 1);
    return out;
  }
  const std::string path = socket_dir + "/" + std::string(name);
  if (path.size() + 1 > sizeof(out.address.sun_path)) {
    return MakeError(ErrorCode::kInvalidArgument, "IPC socket path too long: " + path);
  }
  std::memcpy(out.address.sun_path, path.c_str(), path.size() + 1);
  out.length = static_cast<socklen_t>(sizeof(sa_family_t) + path.size() + 1);
  return out;
}

std::string IpcNameOf(const sockaddr_un& address, socklen_t length, const std::string& socket_dir) {
  if (length <= sizeof(sa_family_t)) return "";
  const size_t path_bytes = length - sizeof(sa_family_t);
  std::string path(address.sun_path, std::min(path_bytes, sizeof(address.sun_path)));
  if (!path.empty() && path[0] == '\0') {
    path.erase(0, 1);
    if (!path.empty() && path.back() == '\0') path.pop_back();
    return path;
  }
  if (const size_t nul = path.find('\0'); nul != std::string::npos) path.resize(nul);
  const std::string prefix = socket_dir + "/";
  if (!socket_dir.empty() && path.starts_with(prefix)) return path.substr(prefix.size());
  return path;
}

std::string IpcSocketDirFromEnvironment() {
  const char* dir = std::getenv("KINETO_IPC_SOCKET_DIR");
  return dir != nullptr ? std::string(dir) : std::string();
}

namespace {

std::string KindOf(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISFIFO(mode)) return "a FIFO";
  return "not a socket";
}

// Whether some process is bound to the socket at `address` (a datagram connect succeeds).
bool SocketIsLive(const IpcAddress& address) {
  const int probe = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return false;
  const bool live =
      connect(probe, reinterpret_cast<const sockaddr*>(&address.address), address.length) == 0;
  close(probe);
  return live;
}

// What may stand at the socket's path before bind: nothing, or a stale socket (removed here).
Status ClearSocketPath(const std::string& path, const IpcAddress& address) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return {};
    return MakeError(ErrorCode::kIo, "IPC socket '" + path + "': " + std::strerror(errno));
  }
  if (!S_ISSOCK(info.st_mode)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "IPC socket path '" + path + "' exists and is " + KindOf(info.st_mode) +
                         "; it is neither removed nor followed: remove it, or choose another "
                         "KINETO_IPC_SOCKET_DIR");
  }
  if (SocketIsLive(address)) {
    return MakeError(ErrorCode::kUnavailable, "IPC bind '" + path +
                                                  "': a process is bound there (is dynolog or "
                                                  "another agent running?)");
  }
  // Stale: left by a process that ended. Removed only while it is still that socket.
  struct stat again {};
  if (lstat(path.c_str(), &again) == 0 && S_ISSOCK(again.st_mode) && again.st_ino == info.st_ino &&
      again.st_dev == info.st_dev) {
    unlink(path.c_str());
  }
  return {};
}

// The socket directory of an endpoint every user reaches: a real directory that no other user
// can empty of the agent's socket.
Status CheckSharedSocketDirectory(const std::string& dir) {
  struct stat info {};
  if (lstat(dir.c_str(), &info) != 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "KINETO_IPC_SOCKET_DIR '" + dir + "': " + std::strerror(errno));
  }
  if (S_ISLNK(info.st_mode)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "KINETO_IPC_SOCKET_DIR '" + dir +
                         "' is a symbolic link; give the directory it names instead");
  }
  if (!S_ISDIR(info.st_mode)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "KINETO_IPC_SOCKET_DIR '" + dir + "' is not a directory");
  }
  if ((info.st_mode & S_IWOTH) != 0 && (info.st_mode & S_ISVTX) == 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "KINETO_IPC_SOCKET_DIR '" + dir +
                         "' is writable by every user without the sticky bit, so anyone could "
                         "replace the agent's socket: chmod +t it (as /tmp), or use a directory "
                         "that only the agent's user writes");
  }
  return {};
}

}  // namespace

Result<IpcEndpoint> IpcEndpoint::Bind(std::string_view name, const std::string& socket_dir,
                                      IpcSocketAccess access) {
  XPUPERF_ASSIGN_OR_RETURN(IpcAddress address, MakeIpcAddress(name, socket_dir));
  std::string path;
  if (!socket_dir.empty()) {
    path = address.address.sun_path;
    if (access == IpcSocketAccess::kAnyUser) {
      XPUPERF_RETURN_IF_ERROR(CheckSharedSocketDirectory(socket_dir));
    }
    XPUPERF_RETURN_IF_ERROR(ClearSocketPath(path, address));
  }
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return MakeError(ErrorCode::kIo, std::string("IPC socket: ") + std::strerror(errno));
  // bind(2) creates the socket file with mode 0777 & ~umask and never follows a link at the path
  // (EADDRINUSE when anything appeared there since the check): 0111 gives 0666.
  const bool any_user = !path.empty() && access == IpcSocketAccess::kAnyUser;
  const mode_t previous_umask = any_user ? umask(0111) : 0;
  const int bound = bind(fd, reinterpret_cast<const sockaddr*>(&address.address), address.length);
  const int error = errno;
  if (any_user) umask(previous_umask);
  if (bound != 0) {
    close(fd);
    const std::string shown =
        socket_dir.empty() ? "abstract name '" + std::string(name) + "'" : "'" + path + "'";
    return MakeError(error == EADDRINUSE ? ErrorCode::kUnavailable : ErrorCode::kIo,
                     "IPC bind " + shown + ": " + std::strerror(error) +
                         (error == EADDRINUSE ? " (is dynolog or another agent running?)" : ""));
  }
  IpcEndpoint endpoint(fd, socket_dir, path);
  struct stat info {};
  if (!path.empty() && lstat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode)) {
    endpoint.path_device_ = info.st_dev;
    endpoint.path_inode_ = info.st_ino;
  }
  return endpoint;
}

void IpcEndpoint::RemoveOwnSocket() {
  if (path_.empty()) return;
  struct stat info {};
  if (lstat(path_.c_str(), &info) == 0 && S_ISSOCK(info.st_mode) && info.st_dev == path_device_ &&
      info.st_ino == path_inode_) {
    unlink(path_.c_str());
  }
  path_.clear();
}

IpcEndpoint::IpcEndpoint(IpcEndpoint&& other) noexcept
    : fd_(other.fd_),
      socket_dir_(std::move(other.socket_dir_)),
      path_(std::move(other.path_)),
      path_device_(other.path_device_),
      path_inode_(other.path_inode_) {
  other.fd_ = -1;
  other.path_.clear();
}

IpcEndpoint& IpcEndpoint::operator=(IpcEndpoint&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    RemoveOwnSocket();
    fd_ = other.fd_;
    socket_dir_ = std::move(other.socket_dir_);
    path_ = std::move(other.path_);
    path_device_ = other.path_device_;
    path_inode_ = other.path_inode_;
    other.fd_ = -1;
    other.path_.clear();
  }
  return *this;
}

IpcEndpoint::~IpcEndpoint() {
  if (fd_ >= 0) close(fd_);
  RemoveOwnSocket();
}

Status IpcEndpoint::SendTo(std::string_view peer, std::string_view datagram) {
  XPUPERF_ASSIGN_OR_RETURN(IpcAddress address, MakeIpcAddress(peer, socket_dir_));
  const ssize_t sent = sendto(fd_, datagram.data(), datagram.size(), MSG_DONTWAIT | MSG_NOSIGNAL,
                              reinterpret_cast<const sockaddr*>(&address.address), address.length);
  if (sent == static_cast<ssize_t>(datagram.size())) return {};
  const int error = errno;
  const bool absent = error == ECONNREFUSED || error == ENOENT || error == EAGAIN;
  return MakeError(absent ? ErrorCode::kUnavailable : ErrorCode::kIo,
                   "IPC send to '" + std::string(peer) + "': " + std::strerror(error));
}

Result<IpcEndpoint::Received> IpcEndpoint::Receive(int timeout_ms) {
  pollfd waiter{fd_, POLLIN, 0};
  const int ready = poll(&waiter, 1, timeout_ms);
  Received received;
  if (ready == 0 || (ready < 0 && errno == EINTR)) {
    received.timed_out = true;
    return received;
  }
  if (ready < 0) return MakeError(ErrorCode::kIo, std::string("IPC poll: ") + std::strerror(errno));
  // Peek the size first so an oversized datagram is dropped without allocating for it.
  const ssize_t size = recv(fd_, nullptr, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
  if (size < 0) {
    if (errno == EAGAIN || errno == EINTR) {
      received.timed_out = true;
      return received;
    }
    return MakeError(ErrorCode::kIo, std::string("IPC recv: ") + std::strerror(errno));
  }
  const bool oversized = static_cast<size_t>(size) > kMaxIpcDatagramBytes;
  received.bytes.resize(oversized ? 1 : static_cast<size_t>(size));
  sockaddr_un from{};
  socklen_t from_length = sizeof(from);
  const ssize_t got = recvfrom(fd_, received.bytes.data(), received.bytes.size(), MSG_DONTWAIT,
                               reinterpret_cast<sockaddr*>(&from), &from_length);
  if (got < 0) {
    received.timed_out = true;  // raced with nothing; treat as no message
    received.bytes.clear();
    return received;
  }
  if (oversized) {
    received.bytes.clear();
    return received;  // dropped; the caller sees an empty datagram and ignores it
  }
  received.bytes.resize(static_cast<size_t>(got));
  received.from = IpcNameOf(from, from_length, socket_dir_);
  return received;
}

}  // namespace xpuperf::kineto
