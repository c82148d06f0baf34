#include "sdk_values.h"

#include <cmath>

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::tpu {
namespace {

// A list item as Python's str() may give it: quotes and brackets around, spaces inside.
std::string_view Unwrap(std::string_view text) {
  text = TrimWhitespace(text);
  while (!text.empty() && (text.front() == '[' || text.front() == '\'' || text.front() == '"')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ']' || text.back() == '\'' || text.back() == '"')) {
    text.remove_suffix(1);
  }
  return TrimWhitespace(text);
}

std::optional<double> Number(std::string_view text) {
  text = Unwrap(text);
  if (!text.empty() && text.back() == '%') text.remove_suffix(1);
  const std::optional<double> value = ParseDouble(text);
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string_view::npos ? text.size() : comma;
    parts.push_back(Unwrap(text.substr(start, end - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::optional<SummaryRow> Row(const std::vector<std::string_view>& fields, bool keyed) {
  const size_t first = keyed ? 1 : 0;
  if (fields.size() != first + 5) return std::nullopt;
  double v[5];
  for (size_t i = 0; i < 5; ++i) {
    const std::optional<double> n = Number(fields[first + i]);
    if (!n) return std::nullopt;
    v[i] = *n;
  }
  SummaryRow row;
  if (keyed) {
    row.key = std::string(fields[0]);
    if (row.key.empty()) return std::nullopt;
  }
  row.mean = v[0];
  row.p50 = v[1];
  row.p90 = v[2];
  row.p95 = v[3];
  row.p999 = v[4];
  return row;
}

}  // namespace

std::vector<IndexedValue> ParseIndexedNumbers(const std::vector<std::string>& data) {
  std::vector<IndexedValue> out;
  for (size_t i = 0; i < data.size(); ++i) {
    if (const std::optional<double> v = Number(data[i])) out.push_back({i, *v});
  }
  return out;
}

std::vector<NamedValue> ParseNamedNumbers(const std::vector<std::string>& data) {
  std::vector<NamedValue> out;
  for (const std::string& item : data) {
    const std::string_view text = Unwrap(item);
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = TrimWhitespace(text.substr(0, colon));
    const std::optional<double> v = Number(text.substr(colon + 1));
    if (name.empty() || !v) continue;
    out.push_back({std::string(name), *v});
  }
  return out;
}

std::vector<IndexedValue> ParseIdScores(const std::vector<std::string>& data) {
  std::vector<IndexedValue> out;
  for (const std::string& item : data) {
    const std::string_view text = Unwrap(item);
    const size_t dash = text.find('-');
    if (dash == std::string_view::npos || dash == 0) continue;
    const std::optional<uint64_t> id = ParseUnsigned(text.substr(0, dash));
    const std::optional<double> score = Number(text.substr(dash + 1));
    if (!id || !score || *id > 1'000'000) continue;
    out.push_back({static_cast<size_t>(*id), *score});
  }
  return out;
}

std::vector<SummaryRow> ParseSummaryRows(const std::vector<std::string>& data, bool keyed) {
  std::vector<SummaryRow> out;
  bool any_comma = false;
  for (const std::string& item : data) any_comma = any_comma || item.find(',') != std::string::npos;
  if (!any_comma) {
    // The whole list is one row: ["8MB+", "100.00", …] or ["100.00", …].
    std::vector<std::string_view> fields;
    fields.reserve(data.size());
    for (const std::string& item : data) fields.push_back(Unwrap(item));
    if (std::optional<SummaryRow> row = Row(fields, keyed)) out.push_back(std::move(*row));
    return out;
  }
  for (const std::string& item : data) {
    if (std::optional<SummaryRow> row = Row(SplitCommas(Unwrap(item)), keyed)) {
      out.push_back(std::move(*row));
    }
  }
  return out;
}

std::optional<int> CoreNumber(std::string_view name) {
  name = TrimWhitespace(name);
  const size_t underscore = name.rfind('_');
  if (underscore != std::string_view::npos) name.remove_prefix(underscore + 1);
  const std::optional<uint64_t> n = ParseUnsigned(name);
  if (!n || *n > 1'000'000) return std::nullopt;
  return static_cast<int>(*n);
}

}  // namespace xpuperf::tpu
