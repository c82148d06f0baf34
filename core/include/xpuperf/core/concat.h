#pragma once
// Concat: joins string pieces with one allocation, where `a + "/" + b + ...` would build a
// temporary per `+` (sysfs/procfs paths built in directory walks, messages built in loops).
// Pure function, thread-safe.

#include <cstddef>
#include <string>
#include <string_view>

namespace xpuperf {

// Each piece is anything std::string_view converts from (std::string, string literals,
// std::string_view); format numbers first (std::to_string).
template <typename... Pieces>
std::string Concat(const Pieces&... pieces) {
  const std::string_view views[] = {std::string_view(pieces)...};
  size_t size = 0;
  for (std::string_view view : views) size += view.size();
  std::string joined;
  joined.reserve(size);
  for (std::string_view view : views) joined.append(view);
  return joined;
}

}  // namespace xpuperf
