#include "xpuperf/trace/memory_timeline.h"

#include <simdjson.h>

#include <algorithm>

namespace xpuperf::trace {

std::string_view MemoryCategoryName(int category) {
  static constexpr std::string_view kNames[kMemoryCategories] = {
      "parameter",  "optimizer_state", "input",           "temporary",
      "activation", "gradient",        "autograd_detail", "unknown"};
  return category >= 0 && category < kMemoryCategories ? kNames[category] : "unknown";
}

bool LooksLikeMemoryTimeline(std::string_view json) {
  size_t i = 0;
  auto skip = [&] {
    while (i < json.size() &&
           (json[i] == ' ' || json[i] == '\n' || json[i] == '\r' || json[i] == '\t'))
      ++i;
  };
  skip();
  if (i >= json.size() || json[i] != '[') return false;
  ++i;
  skip();
  return i < json.size() && json[i] == '[';
}

Result<MemoryTimelineSummary> ParseMemoryTimeline(std::string_view json, std::string source) {
  namespace od = simdjson::ondemand;
  MemoryTimelineSummary summary;
  summary.source = source;
  simdjson::padded_string padded(json);
  od::parser parser;
  od::document doc;
  od::array rows;
  auto fail = [&](const char* what) {
    const char* where = nullptr;
    size_t offset = 0;
    if (!doc.current_location().get(where) && where >= padded.data())
      offset = where - padded.data();
    return MakeError(ErrorCode::kParse,
                     source + ": memory timeline: " + what + " at byte " + std::to_string(offset));
  };
  if (parser.iterate(padded).get(doc) || doc.get_array().get(rows)) {
    return MakeError(ErrorCode::kParse, source + ": memory timeline: not a JSON list of rows");
  }
  std::array<int64_t, kMemoryCategories> live{};
  int64_t total = 0;
  for (auto row_result : rows) {
    od::array row;
    if (row_result.get_array().get(row)) return fail("row is not a list");
    int64_t values[4] = {0, 0, 0, 7};
    int n = 0;
    for (auto cell : row) {
      int64_t v = 0;
      if (cell.get_int64().get(v)) {
        double d = 0;
        if (cell.get_double().get(d)) return fail("row value is not a number");
        if (!(d > -9e18 && d < 9e18)) return fail("row value out of range");
        v = static_cast<int64_t>(d);
      }
      if (n < 4) values[n] = v;
      ++n;
    }
    if (n != 4) return fail("row does not have 4 values [ts, action, bytes, category]");
    ++summary.rows;
    int action = values[1] >= 1 && values[1] <= 4 ? static_cast<int>(values[1]) : 0;
    ++summary.actions[action];
    int category =
        values[3] >= 0 && values[3] < kMemoryCategories ? static_cast<int>(values[3]) : 7;
    if (__builtin_add_overflow(live[category], values[2], &live[category]) ||
        __builtin_add_overflow(total, values[2], &total)) {
      return fail("byte counts overflow");
    }
    summary.max_by_category[category] = std::max(summary.max_by_category[category], live[category]);
    if (total > summary.peak_bytes) {
      summary.peak_bytes = total;
      summary.peak_ts = values[0];
      summary.at_peak = live;
    }
  }
  summary.final_bytes = total;
  return summary;
}

}  // namespace xpuperf::trace
