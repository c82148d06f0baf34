#include "xpuperf/cpu/meminfo.h"

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::cpu {
namespace {

constexpr uint64_t kBytesPerKib = 1024;

uint64_t SaturatingSubtract(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

Result<MemInfo> ParseMemInfo(std::string_view text) {
  MemInfo info;
  bool saw_total = false;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = TrimWhitespace(lines[i]);
    if (line.empty()) continue;
    // Built only for an error: meminfo is read every 10 ms at 1 kHz.
    const auto where = [i] { return "line " + std::to_string(i + 1); };
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return MakeError(ErrorCode::kParse,
                       where() + ": expected 'Key: value', got '" + std::string(line) + "'");
    }
    std::string_view key = line.substr(0, colon);
    std::vector<std::string_view> fields = SplitFields(line.substr(colon + 1));
    std::optional<uint64_t> number = fields.empty() ? std::nullopt : ParseUnsigned(fields[0]);
    const bool unit_ok = fields.size() == 1 || (fields.size() == 2 && fields[1] == "kB");
    if (!number || !unit_ok) {
      return MakeError(
          ErrorCode::kParse,
          where() + ": expected a number with an optional 'kB' after '" + std::string(key) + ":'");
    }
    const uint64_t value = fields.size() == 2 ? *number * kBytesPerKib : *number;
    if (key == "MemTotal") {
      info.total_bytes = value;
      saw_total = true;
    } else if (key == "MemFree") {
      info.free_bytes = value;
    } else if (key == "MemAvailable") {
      info.available_bytes = value;
    } else if (key == "Buffers") {
      info.buffers_bytes = value;
    } else if (key == "Cached") {
      info.cached_bytes = value;
    }
  }
  if (!saw_total) return MakeError(ErrorCode::kParse, "no MemTotal line");
  return info;
}

Result<MemInfo> ReadMemInfo(const std::string& root) {
  const std::string path = JoinRoot(root, "/proc/meminfo");
  XPUPERF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  Result<MemInfo> info = ParseMemInfo(text);
  if (!info.ok()) return MakeError(ErrorCode::kParse, path + ": " + info.error().message);
  return info;
}

uint64_t UsedMemoryBytes(const MemInfo& info) {
  if (info.available_bytes) return SaturatingSubtract(info.total_bytes, *info.available_bytes);
  return SaturatingSubtract(info.total_bytes,
                            info.free_bytes + info.buffers_bytes + info.cached_bytes);
}

}  // namespace xpuperf::cpu
