// Safe opening and reading of user-supplied input files (traces, suites, workloads, spec sheets,
// result files). docs/POLICIES.md states the policy for users:
//   - Only regular files are read. A FIFO, socket, device or directory is refused with a message
//     that says what it is (opening never blocks: O_NONBLOCK until the type was checked).
//   - Messages name the real cause: "a loop of symbolic links", "a dangling symbolic link",
//     "no such file", "permission denied", "is a directory".
//   - Reads are bounded: configuration-sized files by the caller's max_bytes, gzip input by a
//     decompressed-size cap (a small .gz that inflates to gigabytes is stopped at the cap). The cap
//     defaults to a quarter of physical memory (at least 1 GiB): the analyses hold several times
//     the text in memory, so more could not be analysed anyway. `--max-decompressed-bytes` or
//     XPUPERF_MAX_DECOMPRESSED_BYTES raise or lower it.
//
// Thread-safety: all functions are reentrant; SetMaxDecompressedBytes should be called before
// worker threads start (it is an atomic store, readers see either value).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/gzip_stream.h"
#include "xpuperf/core/status.h"

namespace xpuperf {

// Files read whole as configuration (suites, workloads, spec sheets): 64 MiB is far beyond any.
inline constexpr uint64_t kMaxConfigFileBytes = 64ull << 20;

// An open regular file (owns the descriptor).
class InputFile {
 public:
  InputFile() = default;
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  int fd() const { return fd_; }
  uint64_t size_bytes() const { return size_; }

 private:
  friend Result<InputFile> OpenInputFile(const std::string& path);
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Opens `path` for reading under the policy: kNotFound for a missing file, kInvalidArgument for
// something that is not a regular file, kIo for the rest; every message starts with the path.
Result<InputFile> OpenInputFile(const std::string& path);

// Checks that `path` is a directory xpuperf may read (a results directory): names a symlink loop,
// a missing path, a regular file where a directory was expected.
Status CheckInputDirectory(const std::string& path);

// The whole of a regular file, refusing files larger than max_bytes (kInvalidArgument).
Result<std::string> ReadInputFile(const std::string& path,
                                  uint64_t max_bytes = kMaxConfigFileBytes);

// True when `data` starts with the gzip magic bytes.
bool IsGzip(std::string_view data);

// Inflates gzip data whole (several members are concatenated), with the engine of
// xpuperf/core/gzip_stream.h (ISA-L when built with it, else zlib; `engine` picks one for tests
// and benchmarks). kInvalidArgument naming `path`, the cap and how to raise it when the output
// would exceed max_bytes; kParse for corrupt or truncated data; the error of CheckCancelled()
// when cancellation was requested meanwhile.
Result<std::string> InflateGzip(std::string_view compressed, const std::string& path,
                                uint64_t max_bytes, InflateEngine engine = InflateEngine::kBest);

// The process-wide cap for decompressed input, in bytes (see the policy above).
uint64_t MaxDecompressedBytes();
void SetMaxDecompressedBytes(uint64_t bytes);
// Parses a size such as "8GiB", "500MB", "1048576" (bytes; KB/MB/GB/TB = 1e3.., KiB/MiB/GiB/TiB
// = 2^10..). kInvalidArgument naming `what` on anything else, zero, or more than 2^60.
Result<uint64_t> ParseByteSize(std::string_view text, std::string_view what);

// The cause of a failed open/stat of `path` in words: "a loop of symbolic links", "a dangling
// symbolic link" (ENOENT on a link that exists), "no such file or directory", strerror otherwise.
std::string DescribeFileError(const std::string& path, int error);

}  // namespace xpuperf
