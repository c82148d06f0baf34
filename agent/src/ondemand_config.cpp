#include "xpuperf/agent/ondemand_config.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "xpuperf/agent/capture_store.h"

namespace xpuperf::agent {

namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

// Keys Kineto reads from an on-demand config, and whether the value is a non-negative integer.
const std::map<std::string, bool, std::less<>>& KnownKeys() {
  static const std::map<std::string, bool, std::less<>> keys = {
      {"ACTIVITIES_LOG_FILE", false},
      {"ACTIVITIES_DURATION_MSECS", true},
      {"ACTIVITIES_DURATION_SECS", true},
      {"ACTIVITIES_ITERATIONS", true},
      {"ACTIVITIES_WARMUP_ITERATIONS", true},
      {"ACTIVITIES_WARMUP_PERIOD_SECS", true},
      {"ACTIVITY_TYPES", false},
      {"PROFILE_START_TIME", true},
      {"PROFILE_START_ITERATION", true},
      {"PROFILE_START_ITERATION_ROUNDUP", true},
      {"PROFILE_REPORT_INPUT_SHAPES", false},
      {"PROFILE_PROFILE_MEMORY", false},
      {"PROFILE_WITH_STACK", false},
      {"PROFILE_WITH_FLOPS", false},
      {"PROFILE_WITH_MODULES", false},
      {"PROFILE_MEMORY", false},
      {"PROFILE_MEMORY_DURATION_MSECS", true},
      {"REQUEST_TRACE_ID", false},
      {"REQUEST_GROUP_TRACE_ID", false},
  };
  return keys;
}

bool IsNonNegativeInteger(std::string_view value) {
  int64_t parsed = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  return ec == std::errc() && end == value.data() + value.size() && parsed >= 0;
}

}  // namespace

std::string BuildOnDemandConfig(const CaptureRequest& request) {
  std::string text = "ACTIVITIES_LOG_FILE=" + request.log_file + "\n";
  if (request.iterations > 0) {
    text += "PROFILE_START_ITERATION=0\n";
    text += "PROFILE_START_ITERATION_ROUNDUP=" + std::to_string(request.iteration_roundup) + "\n";
    text += "ACTIVITIES_ITERATIONS=" + std::to_string(request.iterations) + "\n";
  } else {
    text += "PROFILE_START_TIME=" + std::to_string(request.start_time_ms) + "\n";
    text += "ACTIVITIES_DURATION_MSECS=" + std::to_string(request.duration_ms) + "\n";
  }
  text += "PROFILE_REPORT_INPUT_SHAPES=false\nPROFILE_WITH_STACK=false\n";
  text += "PROFILE_WITH_FLOPS=false\nPROFILE_WITH_MODULES=false";
  return text;
}

Result<std::map<std::string, std::string>> ParseOnDemandConfig(std::string_view text) {
  std::map<std::string, std::string> entries;
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++line_number;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = Trim(line);
    if (line.empty()) continue;
    auto bad = [&](const std::string& why) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "config line " + std::to_string(line_number) + ": " + why);
    };
    if (std::count(line.begin(), line.end(), '=') != 1) return bad("needs exactly one '='");
    const size_t eq = line.find('=');
    const std::string_view key = Trim(line.substr(0, eq));
    const std::string_view value = Trim(line.substr(eq + 1));
    auto known = KnownKeys().find(key);
    if (known == KnownKeys().end()) return bad("unknown key '" + std::string(key) + "'");
    if (std::any_of(value.begin(), value.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
      return bad("control character in the value");
    }
    if (known->second && !IsNonNegativeInteger(value)) {
      return bad(std::string(key) + " must be an integer >= 0");
    }
    entries[std::string(key)] = std::string(value);
  }
  return entries;
}

Result<std::string> ConfineOnDemandConfig(std::string_view text, const std::string& folder,
                                          std::string& log_file) {
  XPUPERF_ASSIGN_OR_RETURN(auto entries, ParseOnDemandConfig(text));
  std::string base = "libkineto_activities.json";
  if (auto it = entries.find("ACTIVITIES_LOG_FILE"); it != entries.end() && !it->second.empty()) {
    const std::string& requested = it->second;
    base =
        requested.substr(requested.rfind('/') == std::string::npos ? 0 : requested.rfind('/') + 1);
    if (!IsSafeName(base)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "ACTIVITIES_LOG_FILE: the file name must be 1..128 of [A-Za-z0-9._-]");
    }
  }
  log_file = folder + "/" + base;
  std::string out = "ACTIVITIES_LOG_FILE=" + log_file;
  for (const auto& [key, value] : entries) {
    if (key != "ACTIVITIES_LOG_FILE") out.append("\n").append(key).append("=").append(value);
  }
  return out;
}

}  // namespace xpuperf::agent
