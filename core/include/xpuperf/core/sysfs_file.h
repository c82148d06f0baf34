// Small helpers for reading procfs/sysfs files under a root directory, with errors as values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf {

// root + path, where path is absolute ("/proc/stat"). Root "/" or "" yields path unchanged, so
// error messages on a real host name the real file.
std::string JoinRoot(std::string_view root, std::string_view path);

// The whole file. Errors carry the path and the errno text; the code says what happened:
// kNotFound (ENOENT/ENOTDIR), kUnavailable (EACCES/EPERM: exists but not readable by this user),
// kIo (anything else, e.g. EISDIR or a read failure).
Result<std::string> ReadFileToString(const std::string& path);

// The file's first line, with surrounding whitespace removed (sysfs attributes end in '\n').
Result<std::string> ReadTrimmedFile(const std::string& path);

// A sysfs attribute holding one unsigned / signed decimal integer; kParse when it does not.
Result<uint64_t> ReadUnsignedFile(const std::string& path);
Result<int64_t> ReadSignedFile(const std::string& path);

// Names of the entries of a directory, sorted with numeric suffixes in numeric order ("cpu2" before
// "cpu10"). kNotFound when the directory does not exist.
Result<std::vector<std::string>> ListDirectory(const std::string& path);

bool PathExists(const std::string& path);

// Parsing pieces shared by the readers. All return nullopt on malformed input instead of throwing.
std::string_view TrimWhitespace(std::string_view text);
std::optional<uint64_t> ParseUnsigned(std::string_view text);
std::optional<int64_t> ParseSigned(std::string_view text);
std::optional<double> ParseDouble(std::string_view text);
// Splits on runs of spaces and tabs.
std::vector<std::string_view> SplitFields(std::string_view line);
std::vector<std::string_view> SplitLines(std::string_view text);
// "cpu12" with prefix "cpu" -> 12; nullopt unless the rest is all digits.
std::optional<int> ParseIndexedName(std::string_view name, std::string_view prefix);

}  // namespace xpuperf
