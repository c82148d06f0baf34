#include "xpuperf/core/sysfs_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <system_error>

namespace xpuperf {
namespace {

Error ErrnoError(const std::string& path, int error_number) {
  ErrorCode code = ErrorCode::kIo;
  if (error_number == ENOENT || error_number == ENOTDIR) code = ErrorCode::kNotFound;
  if (error_number == EACCES || error_number == EPERM) code = ErrorCode::kUnavailable;
  return MakeError(code, path + ": " + std::generic_category().message(error_number));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Natural order: digit runs compare as numbers, everything else byte by byte.
bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (IsDigit(a[i]) && IsDigit(b[j])) {
      size_t i_end = i;
      size_t j_end = j;
      while (i_end < a.size() && IsDigit(a[i_end])) ++i_end;
      while (j_end < b.size() && IsDigit(b[j_end])) ++j_end;
      std::string_view run_a = a.substr(i, i_end - i);
      std::string_view run_b = b.substr(j, j_end - j);
      run_a.remove_prefix(std::min(run_a.find_first_not_of('0'), run_a.size()));
      run_b.remove_prefix(std::min(run_b.find_first_not_of('0'), run_b.size()));
      if (run_a.size() != run_b.size()) return run_a.size() < run_b.size();
      if (run_a != run_b) return run_a < run_b;
      i = i_end;
      j = j_end;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

std::string JoinRoot(std::string_view root, std::string_view path) {
  while (!root.empty() && root.back() == '/') root.remove_suffix(1);
  return std::string(root) + std::string(path);
}

Result<std::string> ReadFileToString(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, errno);
  std::string contents;
  // sysfs reports 4096 bytes for every attribute, so read until end of file instead of trusting
  // the size.
  char buffer[4096];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      return ErrnoError(path, saved);
    }
    if (n == 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

Result<std::string> ReadTrimmedFile(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(std::string contents, ReadFileToString(path));
  std::string_view line = contents;
  line = line.substr(0, line.find('\n'));
  return std::string(TrimWhitespace(line));
}

Result<uint64_t> ReadUnsignedFile(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(std::string text, ReadTrimmedFile(path));
  std::optional<uint64_t> value = ParseUnsigned(text);
  if (!value)
    return MakeError(ErrorCode::kParse, path + ": not an unsigned integer: '" + text + "'");
  return *value;
}

Result<int64_t> ReadSignedFile(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(std::string text, ReadTrimmedFile(path));
  std::optional<int64_t> value = ParseSigned(text);
  if (!value) return MakeError(ErrorCode::kParse, path + ": not an integer: '" + text + "'");
  return *value;
}

Result<std::vector<std::string>> ListDirectory(const std::string& path) {
  std::error_code ec;
  std::filesystem::directory_iterator it(path, ec);
  if (ec) return ErrnoError(path, ec.value());
  std::vector<std::string> names;
  for (const auto& entry : it) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end(), NaturalLess);
  return names;
}

bool PathExists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

std::string_view TrimWhitespace(std::string_view text) {
  auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::optional<uint64_t> ParseUnsigned(std::string_view text) {
  text = TrimWhitespace(text);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<int64_t> ParseSigned(std::string_view text) {
  text = TrimWhitespace(text);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> ParseDouble(std::string_view text) {
  text = TrimWhitespace(text);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t pos = 0;
  while (pos < line.size()) {
    size_t start = line.find_first_not_of(" \t", pos);
    if (start == std::string_view::npos) break;
    size_t end = line.find_first_of(" \t", start);
    if (end == std::string_view::npos) end = line.size();
    fields.push_back(line.substr(start, end - start));
    pos = end;
  }
  return fields;
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return lines;
}

std::optional<int> ParseIndexedName(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix) || name.size() == prefix.size()) return std::nullopt;
  std::string_view digits = name.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), IsDigit) || digits.size() > 9) return std::nullopt;
  return static_cast<int>(*ParseUnsigned(digits));
}

}  // namespace xpuperf
