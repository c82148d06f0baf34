// A sysfs/procfs attribute kept open and re-read with pread at offset 0, which makes the kernel
// regenerate the value on every read (sysfs show(), seq_file): one syscall per reading instead of
// open + read + close. For counters polled at up to kHz rates (RAPL energy_uj, hwmon energy).
// Only files on sysfs or procfs are kept open: a regular file (a recorded tree in tests, whose
// harness replaces files by rename) is reopened for every read, so a replaced file is seen.
// Not thread-safe (one reader at a time); movable, not copyable.
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

  const std::string& path() const { return path_; }
  // Whether reads are one pread on a kept descriptor (sysfs/procfs) rather than open+read+close.
  bool kept_open() const { return fd_ >= 0; }

 private:
  SysfsAttribute(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Result<std::string_view> ReadFrom(int fd, char* buffer, size_t size) const;
  // The trimmed text, written into buffer; an error when it cannot be read or does not fit.
  Result<std::string_view> ReadText(char* buffer, size_t size) const;

  int fd_ = -1;  // -1: reopened by path for every read
  std::string path_;
};

}  // namespace xpuperf
