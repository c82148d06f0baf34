// PyTorch's memory-timeline export (`export_memory_timeline(..., ".raw.json[.gz]")`): a JSON list
// of [ts, action, bytes, category] rows. action 1 PREEXISTING, 2 CREATE, 3 INCREMENT_VERSION (a -/+
// pair), 4 DESTROY; bytes are signed (negative when memory is released), so the live total is their
// running sum. category 0 PARAMETER, 1 OPTIMIZER_STATE, 2 INPUT, 3 TEMPORARY, 4 ACTIVATION,
// 5 GRADIENT, 6 AUTOGRAD_DETAIL, 7 unknown.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::trace {

inline constexpr int kMemoryCategories = 8;
std::string_view MemoryCategoryName(int category);

struct MemoryTimelineSummary {
  std::string source;
  int64_t rows = 0;
  int64_t peak_bytes = 0;  // max over time of the running sum (all categories)
  int64_t peak_ts = 0;     // timestamp of the row that reached it (units as in the file)
  int64_t final_bytes = 0;
  std::array<int64_t, kMemoryCategories> at_peak{};          // live bytes per category at the peak
  std::array<int64_t, kMemoryCategories> max_by_category{};  // each category's own maximum
  std::array<int64_t, 5> actions{};  // rows per action (index 1..4; 0 = other)
};

// True when the text looks like a memory-timeline export (a list of lists), not a trace.
bool LooksLikeMemoryTimeline(std::string_view json);
Result<MemoryTimelineSummary> ParseMemoryTimeline(std::string_view json, std::string source);

}  // namespace xpuperf::trace
