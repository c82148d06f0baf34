#include "options.h"

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <vector>

namespace xpuperf::capi {
namespace {

std::string_view Trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t at = s.find(separator);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

Error Invalid(std::string message) {
  return MakeError(ErrorCode::kInvalidArgument, "xpuperf_open options: " + std::move(message));
}

// A comma-separated list with no empty item.
Result<std::vector<std::string>> ParseList(std::string_view key, std::string_view value) {
  std::vector<std::string> items;
  for (std::string_view item : Split(value, ',')) {
    item = Trim(item);
    if (item.empty()) {
      return Invalid(fmt::format("empty item in {}='{}'", key, value));
    }
    items.emplace_back(item);
  }
  return items;
}

Result<std::vector<int>> ParsePids(std::string_view value) {
  XPUPERF_ASSIGN_OR_RETURN(std::vector<std::string> items, ParseList("pids", value));
  std::vector<int> pids;
  for (const std::string& item : items) {
    int pid = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), pid);
    if (error != std::errc() || end != item.data() + item.size() || pid <= 0) {
      return Invalid(fmt::format("pids: '{}' is not a process id (a positive integer)", item));
    }
    pids.push_back(pid);
  }
  return pids;
}

}  // namespace

Result<SessionOptions> ParseSessionOptions(std::string_view text) {
  SessionOptions options;
  std::vector<std::string_view> seen;
  for (std::string_view part : Split(text, ';')) {
    part = Trim(part);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      return Invalid(fmt::format("'{}' is not key=value", part));
    }
    const std::string_view key = Trim(part.substr(0, eq));
    const std::string_view value = Trim(part.substr(eq + 1));
    for (std::string_view k : seen) {
      if (k == key) return Invalid(fmt::format("'{}' is given twice", key));
    }
    seen.push_back(key);
    if (value.empty()) return Invalid(fmt::format("'{}' has no value", key));
    if (key == "root") {
      options.backend.root = std::string(value);
    } else if (key == "backends") {
      XPUPERF_ASSIGN_OR_RETURN(options.backends, ParseList(key, value));
    } else if (key == "pids") {
      XPUPERF_ASSIGN_OR_RETURN(options.backend.pids, ParsePids(value));
    } else {
      return Invalid(fmt::format("unknown key '{}' (known: root, backends, pids)", key));
    }
  }
  return options;
}

}  // namespace xpuperf::capi
