// The agent's capture directory: the only place a request can make a process write a trace, and
// the only place files are served from. Layout: <root>/<capture id>/<files>. A capture's folder
// is world-writable with the sticky bit (the profiled processes may run as other users and write
// their own files there), the root is the agent's own. Only folders the agent created (its
// marker, kCaptureMarkerName, owned by its user) are capture folders: a folder someone else put
// under the root is neither chmod'ed, reused nor served.
//
// Served files are the finished ones: regular files (never followed through a symbolic link),
// with one link, whose name has no ".tmp" (Kineto writes <name>.tmp and renames; our tracer
// writes <name>.tmp-<pid>), at most max_file_bytes each.
//
// Thread-safety: const members are safe from any thread; Prepare may race with itself safely.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::agent {

inline constexpr uint64_t kDefaultMaxFileBytes = 4ull << 30;  // 4 GiB per trace file
inline constexpr uint64_t kMaxReadChunkBytes = 4ull << 20;    // per xpuperfCaptureRead reply
inline constexpr const char* kDefaultCaptureRoot =
    "/tmp/xpuperf-agent";  // Kineto writes under /tmp

// The file the agent writes into each capture folder it creates; only folders holding it (owned
// by the agent's user) are capture folders, prepared again or served.
inline constexpr char kCaptureMarkerName[] = ".xpuperf-capture";
// Capture folders the agent keeps at most; a new capture beyond it is refused until old folders
// are removed (RPC clients cannot fill the disk with empty folders).
inline constexpr int kMaxCaptureFolders = 1000;
// Capture ids and file names: 1..128 of [A-Za-z0-9._-], not starting with '.'.
bool IsSafeName(std::string_view name);

struct CaptureFile {
  std::string name;
  uint64_t size_bytes = 0;
  bool too_large = false;  // listed, but over max_file_bytes: never served
};

struct FileChunk {
  std::string data;
  uint64_t offset = 0;
  uint64_t file_size = 0;
  bool eof = false;
};

class CaptureStore {
 public:
  CaptureStore(std::string root, uint64_t max_file_bytes = kDefaultMaxFileBytes)
      : root_(std::move(root)), max_file_bytes_(max_file_bytes) {}

  // Creates the root (0755) when missing; refuses a root that is a symbolic link or not a
  // directory.
  Status Init() const;
  const std::string& root() const { return root_; }
  uint64_t max_file_bytes() const { return max_file_bytes_; }
  // Creates <root>/<id> (01777, with the agent's marker) and returns its path; an existing one
  // is reused only when the agent created it (kInvalidArgument otherwise: never taken over).
  Result<std::string> Prepare(std::string_view capture_id) const;
  // Finished files of a capture, by name; kNotFound for an unknown capture.
  Result<std::vector<CaptureFile>> List(std::string_view capture_id) const;
  // Up to `length` (<= kMaxReadChunkBytes) bytes of a finished file from `offset`.
  Result<FileChunk> Read(std::string_view capture_id, std::string_view name, uint64_t offset,
                         uint64_t length) const;

 private:
  std::string root_;
  uint64_t max_file_bytes_;
};

}  // namespace xpuperf::agent
