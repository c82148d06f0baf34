// A sysfs/procfs attribute kept open and re-read with pread at offset 0, which makes the kernel
// regenerate the value on every read (sysfs show(), seq_file): one syscall per reading instead of
// open + read + close. For counters polled at up to kHz rates (RAPL energy_uj, hwmon energy).
// Every file is kept open, a regular one too (a recorded tree in tests): a harness that stands in
// for the kernel rewrites its files in place (same inode), as sysfs changes a value, so the
// recorder's cost there is the cost on real sysfs. A file replaced by rename keeps showing the old
// inode's value: call Reopen(). Not thread-safe (one reader at a time); movable, not copyable.
#pragma once

#include <cstdint>
#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf {

class SysfsAttribute {
 public:
  // Opens the file for reading; errors as ReadFileToString (kNotFound, kUnavailable, kIo).
  static Result<SysfsAttribute> Open(const std::string& path);

  SysfsAttribute(SysfsAttribute&& other) noexcept;
  SysfsAttribute& operator=(SysfsAttribute&& other) noexcept;
  SysfsAttribute(const SysfsAttribute&) = delete;
  SysfsAttribute& operator=(const SysfsAttribute&) = delete;
  ~SysfsAttribute();

  // The attribute as one unsigned / signed decimal integer (surrounding whitespace allowed), parsed
  // from a stack buffer without allocating on success. kParse when it is not one, or longer than
  // an integer attribute can be (64 bytes).
  Result<uint64_t> ReadUnsigned() const;
  Result<int64_t> ReadSigned() const;

  // Opens the path again (after a failed read: the attribute was removed and re-created by a
  // driver reload, or a file was replaced by rename); the old descriptor is closed on success.
  Status Reopen();

  const std::string& path() const { return path_; }
  // Whether the file lives on sysfs or procfs (the kernel regenerates it at each read).
  bool pseudo_file() const { return pseudo_; }

 private:
  SysfsAttribute(int fd, std::string path, bool pseudo)
      : fd_(fd), path_(std::move(path)), pseudo_(pseudo) {}
  // The trimmed text, written into buffer; an error when it cannot be read or does not fit.
  Result<std::string_view> ReadText(char* buffer, size_t size) const;

  int fd_ = -1;
  std::string path_;
  bool pseudo_ = false;
};

}  // namespace xpuperf
