#include "xpuperf/core/sysfs_attribute.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf {
namespace {

// An integer attribute is at most 20 digits, a sign and a newline; anything longer is not one.
constexpr size_t kBufferBytes = 64;

Error ErrnoError(const std::string& path, int error_number) {
  ErrorCode code = ErrorCode::kIo;
  if (error_number == ENOENT || error_number == ENOTDIR) code = ErrorCode::kNotFound;
  if (error_number == EACCES || error_number == EPERM) code = ErrorCode::kUnavailable;
  return MakeError(code, path + ": " + std::generic_category().message(error_number));
}

}  // namespace

Result<SysfsAttribute> SysfsAttribute::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, errno);
  struct statfs fs {};
  const bool pseudo =
      ::fstatfs(fd, &fs) == 0 && (fs.f_type == SYSFS_MAGIC || fs.f_type == PROC_SUPER_MAGIC);
  return SysfsAttribute(fd, path, pseudo);
}

Status SysfsAttribute::Reopen() {
  XPUPERF_ASSIGN_OR_RETURN(SysfsAttribute fresh, Open(path_));
  *this = std::move(fresh);
  return Status::Ok();
}

SysfsAttribute::SysfsAttribute(SysfsAttribute&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), pseudo_(other.pseudo_) {}

SysfsAttribute& SysfsAttribute::operator=(SysfsAttribute&& other) noexcept {
  if (this == &other) return *this;
  if (fd_ >= 0) ::close(fd_);
  fd_ = std::exchange(other.fd_, -1);
  path_ = std::move(other.path_);
  pseudo_ = other.pseudo_;
  return *this;
}

SysfsAttribute::~SysfsAttribute() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::string_view> SysfsAttribute::ReadText(char* buffer, size_t size) const {
  if (fd_ < 0) return MakeError(ErrorCode::kIo, path_ + ": not open");
  // One pread: sysfs and procfs generate the whole value on a read at offset 0, and a local
  // regular file returns short only at its end, so a short read is the whole text (a second
  // pread to see 0 bytes would double the syscalls of a 1 kHz poll).
  ssize_t n = -1;
  do {
    n = ::pread(fd_, buffer, size, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return ErrnoError(path_, errno);
  const auto used = static_cast<size_t>(n);
  if (used == size) {
    return MakeError(ErrorCode::kParse, path_ + ": longer than an integer attribute");
  }
  return TrimWhitespace(std::string_view(buffer, used));
}

Result<uint64_t> SysfsAttribute::ReadUnsigned() const {
  char buffer[kBufferBytes];
  XPUPERF_ASSIGN_OR_RETURN(std::string_view text, ReadText(buffer, sizeof(buffer)));
  std::optional<uint64_t> value = ParseUnsigned(text);
  if (!value)
    return MakeError(ErrorCode::kParse,
                     path_ + ": not an unsigned integer: '" + std::string(text) + "'");
  return *value;
}

Result<int64_t> SysfsAttribute::ReadSigned() const {
  char buffer[kBufferBytes];
  XPUPERF_ASSIGN_OR_RETURN(std::string_view text, ReadText(buffer, sizeof(buffer)));
  std::optional<int64_t> value = ParseSigned(text);
  if (!value)
    return MakeError(ErrorCode::kParse, path_ + ": not an integer: '" + std::string(text) + "'");
  return *value;
}

}  // namespace xpuperf
