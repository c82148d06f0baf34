#include "xpuperf/alerts/series.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace xpuperf::alerts {

Labels::Labels(std::vector<std::pair<std::string, std::string>> items) : items_(std::move(items)) {
  std::erase_if(items_, [](const auto& item) { return item.second.empty(); });
  std::sort(items_.begin(), items_.end());
  items_.erase(std::unique(items_.begin(), items_.end(),
                           [](const auto& a, const auto& b) { return a.first == b.first; }),
               items_.end());
}

std::string_view Labels::Get(std::string_view name) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  if (it == items_.end() || it->first != name) return {};
  return it->second;
}

void Labels::Set(std::string_view name, std::string_view value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  const bool present = it != items_.end() && it->first == name;
  if (value.empty()) {
    if (present) items_.erase(it);
  } else if (present) {
    it->second = std::string(value);
  } else {
    items_.insert(it, {std::string(name), std::string(value)});
  }
}

void Labels::Remove(std::string_view name) { Set(name, {}); }

Labels Labels::Keep(std::span<const std::string> names) const {
  Labels out;
  for (const auto& item : items_) {
    if (std::find(names.begin(), names.end(), item.first) != names.end()) {
      out.items_.push_back(item);
    }
  }
  return out;
}

Labels Labels::Drop(std::span<const std::string> names, bool drop_metric_name) const {
  Labels out;
  for (const auto& item : items_) {
    if (drop_metric_name && item.first == kMetricNameLabel) continue;
    if (std::find(names.begin(), names.end(), item.first) != names.end()) continue;
    out.items_.push_back(item);
  }
  return out;
}

std::string Labels::Key() const {
  std::string key;
  for (const auto& [name, value] : items_) {
    // NUL and SOH separate names and values: no label name has them and label values in
    // practice never do; the key stays valid UTF-8 for the state file's JSON.
    key += name;
    key += '\x00';
    key += value;
    key += '\x01';
  }
  return key;
}

std::string Labels::ToString() const {
  std::string out{Get(kMetricNameLabel)};
  out += '{';
  bool first = true;
  for (const auto& [name, value] : items_) {
    if (name == kMetricNameLabel) continue;
    if (!first) out += ", ";
    first = false;
    out += name + "=\"";
    for (char c : value) {
      if (c == '"' || c == '\\') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    out += '"';
  }
  out += '}';
  return out;
}

double StaleNaN() { return std::bit_cast<double>(uint64_t{0x7ff0000000000002}); }
bool IsStaleNaN(double value) {
  return std::bit_cast<uint64_t>(value) == uint64_t{0x7ff0000000000002};
}

Result<LabelMatcher> LabelMatcher::Make(std::string name, Op op, std::string value) {
  LabelMatcher matcher{std::move(name), op, std::move(value), nullptr, nullptr};
  if (op == Op::kRegexMatch || op == Op::kRegexNoMatch) {
    try {
      // Prometheus anchors label regexes at both ends; ECMAScript is close to RE2 for the
      // subset rule files use (alternation, classes, repetition). Backreferences are refused.
      // libstdc++ compiles a regex by recursive descent: a bound on its length keeps a
      // hostile pattern (thousands of nested groups) from overflowing the stack.
      constexpr size_t kMaxPatternLength = 1024;
      if (matcher.value.size() > kMaxPatternLength) {
        return MakeError(ErrorCode::kParse, "regular expression longer than " +
                                                std::to_string(kMaxPatternLength) + " characters");
      }
      if (matcher.value.find("\\1") != std::string::npos) {
        return MakeError(ErrorCode::kParse, "backreferences are not RE2 syntax");
      }
      matcher.regex =
          std::make_shared<const std::regex>("^(?:" + matcher.value + ")$", std::regex::ECMAScript);
      matcher.memo = std::make_shared<std::unordered_map<std::string, bool>>();
    } catch (const std::regex_error& e) {
      return MakeError(ErrorCode::kParse,
                       "invalid regular expression \"" + matcher.value + "\": " + e.what());
    }
  }
  return matcher;
}

bool LabelMatcher::Matches(std::string_view label_value) const {
  switch (op) {
    case Op::kEqual:
      return label_value == value;
    case Op::kNotEqual:
      return label_value != value;
    case Op::kRegexMatch:
    case Op::kRegexNoMatch: {
      constexpr size_t kMemoEntries = 4096;
      std::string key(label_value);
      auto it = memo->find(key);
      bool matched;
      if (it != memo->end()) {
        matched = it->second;
      } else {
        matched = std::regex_match(label_value.begin(), label_value.end(), *regex);
        if (memo->size() >= kMemoEntries) memo->clear();
        memo->emplace(std::move(key), matched);
      }
      return op == Op::kRegexMatch ? matched : !matched;
    }
  }
  return false;
}

void MemorySeriesSource::Append(const Labels& labels, Point point) {
  auto [it, inserted] = series_.try_emplace(labels.Key());
  if (inserted) {
    it->second.labels = labels;
    by_name_[std::string(labels.Get(kMetricNameLabel))].push_back(&it->second);
  }
  it->second.points.push_back(point);
}

void MemorySeriesSource::Trim(int64_t min_t_ms) {
  for (auto& [key, series] : series_) {
    auto& points = series.points;
    auto first_kept = std::lower_bound(points.begin(), points.end(), min_t_ms,
                                       [](const Point& p, int64_t t) { return p.t_ms < t; });
    // Erasing from the front moves the whole history: do it once 64 points have expired, not
    // every second (Select skips older points anyway).
    constexpr ptrdiff_t kEraseBatch = 64;
    if (first_kept - points.begin() >= kEraseBatch) points.erase(points.begin(), first_kept);
  }
}

void MemorySeriesSource::Select(std::span<const LabelMatcher> matchers, int64_t min_t_ms,
                                int64_t max_t_ms, const Visitor& visit) const {
  auto visit_if_matching = [&](const Series& series) {
    for (const LabelMatcher& matcher : matchers) {
      if (!matcher.Matches(series.labels.Get(matcher.name))) return;
    }
    const auto& points = series.points;
    auto begin = std::lower_bound(points.begin(), points.end(), min_t_ms,
                                  [](const Point& p, int64_t t) { return p.t_ms < t; });
    auto end = std::upper_bound(begin, points.end(), max_t_ms,
                                [](int64_t t, const Point& p) { return t < p.t_ms; });
    if (begin == end) return;
    visit(series.labels, std::span<const Point>(&*begin, static_cast<size_t>(end - begin)));
  };
  // An equality matcher on the name (every rule's selectors have one) narrows to one list.
  for (const LabelMatcher& matcher : matchers) {
    if (matcher.name == kMetricNameLabel && matcher.op == LabelMatcher::Op::kEqual) {
      auto it = by_name_.find(matcher.value);
      if (it == by_name_.end()) return;
      for (const Series* series : it->second) visit_if_matching(*series);
      return;
    }
  }
  for (const auto& [key, series] : series_) visit_if_matching(series);
}

}  // namespace xpuperf::alerts
