#include "xpuperf/cpu/process_stats.h"

#include <vector>

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::cpu {
namespace {

constexpr uint64_t kBytesPerKib = 1024;
// Index of proc(5) field N among the fields after "(comm)", which start at field 3 (state).
constexpr size_t FieldAfterComm(size_t field_number) { return field_number - 3; }

}  // namespace

Result<ProcessStat> ParseProcessStat(std::string_view text) {
  // comm is user-controlled and may contain spaces and parentheses: it spans from the first '(' to
  // the last ')'.
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return MakeError(ErrorCode::kParse, "expected 'pid (comm) state ...'");
  }
  ProcessStat stat;
  std::optional<uint64_t> pid = ParseUnsigned(text.substr(0, open));
  if (!pid || *pid > INT32_MAX) return MakeError(ErrorCode::kParse, "malformed pid before '('");
  stat.pid = static_cast<int>(*pid);
  stat.comm = std::string(text.substr(open + 1, close - open - 1));
  std::vector<std::string_view> fields = SplitFields(TrimWhitespace(text.substr(close + 1)));
  if (fields.size() <= FieldAfterComm(22)) {
    return MakeError(ErrorCode::kParse,
                     "expected at least 22 fields, got " + std::to_string(fields.size() + 2));
  }
  struct {
    size_t field;
    uint64_t* target;
  } wanted[] = {{14, &stat.utime_ticks}, {15, &stat.stime_ticks}, {22, &stat.start_time_ticks}};
  for (const auto& [field, target] : wanted) {
    std::optional<uint64_t> value = ParseUnsigned(fields[FieldAfterComm(field)]);
    if (!value) {
      return MakeError(ErrorCode::kParse, "field " + std::to_string(field) + " is not a number: '" +
                                              std::string(fields[FieldAfterComm(field)]) + "'");
    }
    *target = *value;
  }
  return stat;
}

Result<std::optional<uint64_t>> ParseStatusResidentBytes(std::string_view text) {
  for (std::string_view line : SplitLines(text)) {
    if (!line.starts_with("VmRSS:")) continue;
    std::vector<std::string_view> fields = SplitFields(line.substr(6));
    std::optional<uint64_t> kib =
        fields.size() == 2 && fields[1] == "kB" ? ParseUnsigned(fields[0]) : std::nullopt;
    if (!kib) return MakeError(ErrorCode::kParse, "expected 'VmRSS: N kB'");
    return std::optional<uint64_t>(*kib * kBytesPerKib);
  }
  return std::optional<uint64_t>();
}

Result<uint64_t> ParseStatmResidentPages(std::string_view text) {
  std::vector<std::string_view> fields = SplitFields(TrimWhitespace(text));
  std::optional<uint64_t> pages = fields.size() >= 2 ? ParseUnsigned(fields[1]) : std::nullopt;
  if (!pages) return MakeError(ErrorCode::kParse, "expected 'size resident ...' page counts");
  return *pages;
}

Result<ProcessSnapshot> ReadProcessSnapshot(const std::string& root, int pid,
                                            uint64_t page_size_bytes) {
  const std::string dir = JoinRoot(root, "/proc/" + std::to_string(pid));
  // The process may exit between any two reads; a missing file then means "not found".
  auto read = [&](const char* file) -> Result<std::string> {
    Result<std::string> text = ReadFileToString(dir + file);
    if (!text.ok() && text.error().code == ErrorCode::kNotFound) {
      return MakeError(ErrorCode::kNotFound, "process " + std::to_string(pid) + " not found");
    }
    return text;
  };
  XPUPERF_ASSIGN_OR_RETURN(std::string stat_text, read("/stat"));
  ProcessSnapshot snapshot;
  Result<ProcessStat> stat = ParseProcessStat(stat_text);
  if (!stat.ok()) return MakeError(ErrorCode::kParse, dir + "/stat: " + stat.error().message);
  snapshot.stat = std::move(stat).value();

  // status gives VmRSS directly; statm is the fallback where status is unreadable or has none.
  if (Result<std::string> status = read("/status"); status.ok()) {
    Result<std::optional<uint64_t>> rss = ParseStatusResidentBytes(*status);
    if (rss.ok() && rss->has_value()) {
      snapshot.resident_bytes = **rss;
      return snapshot;
    }
  }
  XPUPERF_ASSIGN_OR_RETURN(std::string statm_text, read("/statm"));
  Result<uint64_t> pages = ParseStatmResidentPages(statm_text);
  if (!pages.ok()) return MakeError(ErrorCode::kParse, dir + "/statm: " + pages.error().message);
  snapshot.resident_bytes = *pages * page_size_bytes;
  return snapshot;
}

}  // namespace xpuperf::cpu
