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

Result<IpcEndpoint> IpcEndpoint::Bind(std::string_view name, const std::string& socket_dir) {
  XPUPERF_ASSIGN_OR_RETURN(IpcAddress address, MakeIpcAddress(name, socket_dir));
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return MakeError(ErrorCode::kIo, std::string("IPC socket: ") + std::strerror(errno));
  std::string path;
  if (!socket_dir.empty()) {
    path = address.address.sun_path;
    unlink(path.c_str());
  }
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address.address), address.length) != 0) {
    const int error = errno;
    close(fd);
    const std::string shown =
        socket_dir.empty() ? "abstract name '" + std::string(name) + "'" : "'" + path + "'";
    return MakeError(error == EADDRINUSE ? ErrorCode::kUnavailable : ErrorCode::kIo,
                     "IPC bind " + shown + ": " + std::strerror(error) +
                         (error == EADDRINUSE ? " (is dynolog or another agent running?)" : ""));
  }
  if (!path.empty()) chmod(path.c_str(), 0666);  // processes of any user may poll
  return IpcEndpoint(fd, socket_dir, path);
}

IpcEndpoint::IpcEndpoint(IpcEndpoint&& other) noexcept
    : fd_(other.fd_), socket_dir_(std::move(other.socket_dir_)), path_(std::move(other.path_)) {
  other.fd_ = -1;
  other.path_.clear();
}

IpcEndpoint& IpcEndpoint::operator=(IpcEndpoint&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    if (!path_.empty()) unlink(path_.c_str());
    fd_ = other.fd_;
    socket_dir_ = std::move(other.socket_dir_);
    path_ = std::move(other.path_);
    other.fd_ = -1;
    other.path_.clear();
  }
  return *this;
}

IpcEndpoint::~IpcEndpoint() {
  if (fd_ >= 0) close(fd_);
  if (!path_.empty()) unlink(path_.c_str());
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
