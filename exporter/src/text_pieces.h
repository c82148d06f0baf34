// Internal: the pieces of the texts the attribution reads (files of lines, NUL-separated
// environments, "KEY=VALUE" entries, /proc/PID/cgroup lines).
#pragma once

#include <optional>
#include <string_view>
#include <utility>

namespace xpuperf::exporter {

// Calls visit(piece) for every piece of `text` between separators (the last one may lack its
// separator); visit returns false to stop early.
template <typename Visit>
void ForEachPiece(std::string_view text, char separator, Visit visit) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    if (!visit(text.substr(start, end - start))) return;
    start = end + 1;
  }
}

// The key and the value of "KEY=VALUE" (the value may hold '='); nullopt without '='.
inline std::optional<std::pair<std::string_view, std::string_view>> SplitKeyValue(
    std::string_view entry) {
  const size_t equals = entry.find('=');
  if (equals == std::string_view::npos) return std::nullopt;
  return std::pair{entry.substr(0, equals), entry.substr(equals + 1)};
}

// The path of a /proc/PID/cgroup line, "hierarchy-id:controllers:path" (the path may hold ':');
// nullopt for another shape.
inline std::optional<std::string_view> CgroupPath(std::string_view line) {
  const size_t first = line.find(':');
  const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  return line.substr(second + 1);
}

}  // namespace xpuperf::exporter
