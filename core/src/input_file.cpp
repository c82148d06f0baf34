#include "xpuperf/core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "human_bytes.h"
#include "xpuperf/core/cancellation.h"

namespace xpuperf {
namespace {

std::string KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  if (S_ISCHR(mode)) return "is a character device, not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  return "is not a regular file";
}

uint64_t DefaultMaxDecompressedBytes() {
  if (const char* env = std::getenv("XPUPERF_MAX_DECOMPRESSED_BYTES"); env && *env) {
    Result<uint64_t> parsed = ParseByteSize(env, "XPUPERF_MAX_DECOMPRESSED_BYTES");
    if (parsed.ok()) return *parsed;
    // An invalid value must not silently lift the cap: keep the default and the cap stays safe.
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  const uint64_t physical =
      pages > 0 && page_size > 0 ? uint64_t(pages) * uint64_t(page_size) : (4ull << 30);
  return std::max<uint64_t>(physical / 4, 1ull << 30);
}

std::atomic<uint64_t>& MaxDecompressed() {
  static std::atomic<uint64_t> bytes{DefaultMaxDecompressedBytes()};
  return bytes;
}

}  // namespace

std::string DescribeFileError(const std::string& path, int error) {
  if (error == ELOOP) return "a loop of symbolic links";
  if (error == ENOENT) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
      return "a dangling symbolic link";
    }
    return "no such file or directory";
  }
  return std::strerror(error);
}

InputFile::InputFile(InputFile&& other) noexcept : fd_(other.fd_), size_(other.size_) {
  other.fd_ = -1;
}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    size_ = other.size_;
    other.fd_ = -1;
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<InputFile> OpenInputFile(const std::string& path) {
  if (path.empty()) return MakeError(ErrorCode::kInvalidArgument, "empty input path");
  // O_NONBLOCK: opening a FIFO must not wait for a writer before its type has been checked.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int error = errno;
    const ErrorCode code = error == ENOENT                     ? ErrorCode::kNotFound
                           : error == ELOOP || error == EISDIR ? ErrorCode::kInvalidArgument
                                                               : ErrorCode::kIo;
    return MakeError(code, path + ": cannot open: " + DescribeFileError(path, error));
  }
  InputFile file;
  file.fd_ = fd;
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return MakeError(ErrorCode::kIo, path + ": cannot stat: " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    return MakeError(ErrorCode::kInvalidArgument, path + ": " + KindOf(info.st_mode));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  file.size_ = static_cast<uint64_t>(info.st_size);
  return file;
}

Status CheckInputDirectory(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    return MakeError(error == ENOENT ? ErrorCode::kNotFound : ErrorCode::kInvalidArgument,
                     path + ": " + DescribeFileError(path, error));
  }
  if (!S_ISDIR(info.st_mode)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     path + ": is not a directory (" + KindOf(info.st_mode).substr(3) + ")");
  }
  return Status::Ok();
}

Result<std::string> ReadInputFile(const std::string& path, uint64_t max_bytes) {
  XPUPERF_ASSIGN_OR_RETURN(InputFile file, OpenInputFile(path));
  if (file.size_bytes() > max_bytes) {
    return MakeError(ErrorCode::kInvalidArgument,
                     path + ": " + HumanBytes(file.size_bytes()) + " is larger than the " +
                         HumanBytes(max_bytes) + " xpuperf reads from a file of this kind");
  }
  std::string data;
  data.resize(file.size_bytes());
  size_t done = 0;
  // A file that grows while being read is cut at max_bytes + 1 so the check below can see it.
  for (;;) {
    if (done == data.size()) {
      if (data.size() > max_bytes) break;
      data.resize(std::min<uint64_t>(max_bytes + 1, std::max<size_t>(data.size() * 2, 4096)));
    }
    const ssize_t got = ::read(file.fd(), data.data() + done, data.size() - done);
    if (got < 0) {
      if (errno == EINTR) continue;
      return MakeError(ErrorCode::kIo, path + ": read failed: " + std::strerror(errno));
    }
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  if (done > max_bytes) {
    return MakeError(ErrorCode::kInvalidArgument, path + ": larger than the " +
                                                      HumanBytes(max_bytes) +
                                                      " xpuperf reads from a file of this kind");
  }
  data.resize(done);
  return data;
}

bool IsGzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

Result<std::string> InflateGzip(std::string_view compressed, const std::string& path,
                                uint64_t max_bytes, InflateEngine engine) {
  XPUPERF_ASSIGN_OR_RETURN(std::unique_ptr<GzipStream> stream,
                           OpenGzipStream(compressed, path, max_bytes, engine));
  std::string out;
  // The gzip trailer holds the uncompressed size mod 2^32: a good first guess for the buffer,
  // bounded by deflate's ~1032:1 limit and by the cap so a forged trailer allocates nothing huge.
  uint64_t guess = uint64_t(compressed.size()) * 4;
  if (compressed.size() >= 4) {
    const auto* tail =
        reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
    const uint32_t isize = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (uint32_t{tail[3]} << 24);
    if (isize > guess) guess = std::min<uint64_t>(isize, uint64_t(compressed.size()) * 1032 + 1024);
  }
  guess = std::min<uint64_t>(guess, max_bytes) + 1;
  out.resize(guess);
  uint64_t produced = 0;
  for (;;) {
    if (produced == out.size()) out.resize(std::min<uint64_t>(out.size() * 2, max_bytes + 1));
    // 64 MiB steps: the stream checks cancellation on each, a few times a second at most speeds.
    const size_t step = std::min<uint64_t>(out.size() - produced, 64u << 20);
    XPUPERF_ASSIGN_OR_RETURN(size_t got, stream->Read(out.data() + produced, step));
    if (got == 0) break;
    produced += got;
  }
  out.resize(produced);
  return out;
}

uint64_t MaxDecompressedBytes() { return MaxDecompressed().load(std::memory_order_relaxed); }

void SetMaxDecompressedBytes(uint64_t bytes) {
  MaxDecompressed().store(bytes, std::memory_order_relaxed);
}

Result<uint64_t> ParseByteSize(std::string_view text, std::string_view what) {
  auto invalid = [&] {
    return MakeError(ErrorCode::kInvalidArgument,
                     std::string(what) + ": expected a size such as 8GiB, 500MB or 1048576 (got '" +
                         std::string(text) + "')");
  };
  size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return invalid();
  const std::string number(text.substr(0, digits));
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value)) return invalid();
  std::string unit(text.substr(digits));
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "kb")
    scale = 1e3;
  else if (unit == "mb")
    scale = 1e6;
  else if (unit == "gb")
    scale = 1e9;
  else if (unit == "tb")
    scale = 1e12;
  else if (unit == "kib" || unit == "k")
    scale = 1024.0;
  else if (unit == "mib" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "gib" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "tib" || unit == "t")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return invalid();
  const double bytes = value * scale;
  if (!(bytes >= 1) || bytes > double(1ull << 60)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        std::string(what) + ": must be between 1 byte and 1 EiB (got '" + std::string(text) + "')");
  }
  return static_cast<uint64_t>(bytes);
}

}  // namespace xpuperf
