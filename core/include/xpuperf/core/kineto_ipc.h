// Kineto's IPC fabric (dynolog ipcfabric/, kineto IpcFabricConfigClient.cpp): Unix datagram
// sockets, each message a 40-byte header (size_t payload size, char type[32]) followed by the
// payload, all host-endian. A process polls the daemon with a `req` message (its pid and up to 10
// ancestors, the job id) and receives, under the same type, the on-demand config text meant for
// it, or an empty payload.
//
// Addressing: abstract names by default ("\0" + name + "\0", the trailing zero is part of the
// name); with KINETO_IPC_SOCKET_DIR set, filesystem sockets <dir>/<name>.
//
// Shared by the daemon side (`xpuperf agent`) and the client side (the tracer's on-demand mode).
//
// Thread-safety: all functions are reentrant.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::kineto {

inline constexpr size_t kIpcHeaderBytes = 40;  // 8-byte size + 32-byte type
inline constexpr size_t kIpcTypeBytes = 32;
inline constexpr size_t kMaxIpcNameChars = 106;
// A `req` carries at most 11 pids (the process and 10 ancestors); configs are a few hundred
// bytes. Datagrams above this are dropped unread.
inline constexpr size_t kMaxIpcDatagramBytes = 64 << 10;
inline constexpr const char* kDaemonEndpointName = "dynolog";
inline constexpr int32_t kActivityProfilerBit = 2;  // LibkinetoRequest::type bit 1 = ACTIVITIES

struct IpcMessage {
  std::string type;     // "req", "ctxt", ...
  std::string payload;  // raw bytes
};

// Header + payload; kParse when the header is short, the type is not NUL-terminated within 32
// bytes, or the size field disagrees with the datagram's length.
Result<IpcMessage> ParseIpcDatagram(std::string_view datagram);
std::string EncodeIpcDatagram(std::string_view type, std::string_view payload);

// LibkinetoRequest: int32 type, int32 n, int64 job id, int32 pids[n].
struct KinetoRequest {
  int32_t type = kActivityProfilerBit;
  int64_t job_id = 0;
  std::vector<int32_t> pids;  // leaf first, then ancestors
};
// kParse when the payload is shorter than 16 + 4n bytes, n < 1 or n > 64, or a pid is <= 0.
Result<KinetoRequest> ParseKinetoRequest(std::string_view payload);
std::string EncodeKinetoRequest(const KinetoRequest& request);

// LibkinetoContext (older Kineto): int32 gpu, int32 pid, int64 job id.
struct KinetoContext {
  int32_t gpu = 0;
  int32_t pid = 0;
  int64_t job_id = 0;
};
Result<KinetoContext> ParseKinetoContext(std::string_view payload);

// The socket address of endpoint `name` (abstract, or under `socket_dir` when non-empty);
// kInvalidArgument when the name is empty or too long for sun_path.
struct IpcAddress {
  sockaddr_un address{};
  socklen_t length = 0;
};
Result<IpcAddress> MakeIpcAddress(std::string_view name, const std::string& socket_dir);
// The endpoint name of a received source address ("" when unnamed).
std::string IpcNameOf(const sockaddr_un& address, socklen_t length, const std::string& socket_dir);

// Who may send to a filesystem endpoint (abstract names have no mode).
enum class IpcSocketAccess {
  kOwner,    // the process umask's mode (a job's own endpoint: the root agent still reaches it)
  kAnyUser,  // mode 0666, for the node agent that every job's processes poll
};

// A bound, non-blocking datagram socket (owns the descriptor). Thread-safety: one object per
// thread.
class IpcEndpoint {
 public:
  // Binds `name`. Under a socket directory (KINETO_IPC_SOCKET_DIR), where other users may write
  // when it is shared with jobs, a root daemon trusts nothing it finds there:
  //   - a path that exists and is not a socket (a file, a symbolic link, a directory) is refused,
  //     never removed or followed; a live socket there (another agent or dynolog answers) is
  //     refused; only a stale socket (nobody bound: ECONNREFUSED) is removed;
  //   - the socket gets its mode when bind creates it (the umask set around bind, for kAnyUser:
  //     0666), never by a chmod of the path afterwards, which a swapped-in link would redirect;
  //   - kAnyUser refuses a directory that every user may write without the sticky bit (anyone
  //     could replace the socket), and a directory that is itself a symbolic link;
  //   - the socket is removed on close only while the path still names the socket it bound.
  // kAnyUser changes the process umask for the duration of bind(2): call it before the process
  // starts threads that create files (the agent binds at start-up).
  static Result<IpcEndpoint> Bind(std::string_view name, const std::string& socket_dir,
                                  IpcSocketAccess access = IpcSocketAccess::kOwner);
  IpcEndpoint(IpcEndpoint&& other) noexcept;
  IpcEndpoint& operator=(IpcEndpoint&& other) noexcept;
  ~IpcEndpoint();

  int fd() const { return fd_; }
  // Sends one datagram to endpoint `peer`; kUnavailable when nobody listens there (ECONNREFUSED,
  // ENOENT) or its queue is full (EAGAIN).
  Status SendTo(std::string_view peer, std::string_view datagram);
  // Waits up to `timeout_ms` for one datagram; an empty optional-like result (ok, no bytes and
  // empty `from`) on timeout. Datagrams above kMaxIpcDatagramBytes are discarded.
  struct Received {
    std::string bytes;
    std::string from;  // sender's endpoint name
    bool timed_out = false;
  };
  Result<Received> Receive(int timeout_ms);

 private:
  IpcEndpoint(int fd, std::string socket_dir, std::string path)
      : fd_(fd), socket_dir_(std::move(socket_dir)), path_(std::move(path)) {}
  // Unlinks path_ when it still names the socket this endpoint created (device and inode).
  void RemoveOwnSocket();
  int fd_ = -1;
  std::string socket_dir_;
  std::string path_;  // filesystem socket to unlink on close ("" for abstract names)
  uint64_t path_device_ = 0;
  uint64_t path_inode_ = 0;
};

// Environment of Kineto's fabric: KINETO_IPC_SOCKET_DIR ("" = abstract names).
std::string IpcSocketDirFromEnvironment();

// The trace file a process with `pid` writes for ACTIVITIES_LOG_FILE `log_file`, as Kineto names
// it: the pid inserted before ".pt.trace.json", else before ".json", else nothing inserted.
std::string KinetoOutputPath(const std::string& log_file, int32_t pid);

}  // namespace xpuperf::kineto
