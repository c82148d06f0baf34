#include "xpuperf/alerts/series.h"

#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace xpuperf::alerts {

Labels::Labels(Items items) {
  std::erase_if(items, [](const auto& item) { return item.second.empty(); });
  if (items.empty()) return;
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              items.end());
  items_ = std::make_shared<Items>(std::move(items));
}

const Labels::Items& Labels::EmptyItems() {
  static const Items empty;
  return empty;
}

Labels::Items& Labels::Mutable() {
  hash_.store(0, kRelaxed);
  if (!items_) {
    items_ = std::make_shared<Items>();
  } else if (items_.use_count() > 1) {
    items_ = std::make_shared<Items>(*items_);
  } else {
    // The last other owner may have just let go on another thread: see its reads complete.
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return *items_;
}

std::string_view Labels::Get(std::string_view name) const {
  const Items& list = items();
  auto it = std::lower_bound(list.begin(), list.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  if (it == list.end() || it->first != name) return {};
  return it->second;
}

void Labels::Set(std::string_view name, std::string_view value) {
  const Items& list = items();
  auto it = std::lower_bound(list.begin(), list.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  const bool present = it != list.end() && it->first == name;
  if (value.empty() ? !present : present && it->second == value) return;  // no change
  const size_t at = static_cast<size_t>(it - list.begin());
  Items& items = Mutable();
  if (value.empty()) {
    items.erase(items.begin() + static_cast<ptrdiff_t>(at));
    if (items.empty()) items_.reset();
  } else if (present) {
    items[at].second = std::string(value);
  } else {
    items.insert(items.begin() + static_cast<ptrdiff_t>(at),
                 {std::string(name), std::string(value)});
  }
}

void Labels::Remove(std::string_view name) { Set(name, {}); }

template <typename Predicate>
Labels Labels::Filter(Predicate keep) const {
  const Items& list = items();
  const size_t kept = static_cast<size_t>(std::count_if(list.begin(), list.end(), keep));
  if (kept == list.size()) return *this;  // nothing left out: share the list
  Labels out;
  if (kept == 0) return out;
  out.items_ = std::make_shared<Items>();
  out.items_->reserve(kept);
  for (const auto& item : list) {
    if (keep(item)) out.items_->push_back(item);
  }
  return out;
}

Labels Labels::Keep(std::span<const std::string> names) const {
  return Filter([&](const auto& item) {
    return std::find(names.begin(), names.end(), item.first) != names.end();
  });
}

Labels Labels::Drop(std::span<const std::string> names, bool drop_metric_name) const {
  return Filter([&](const auto& item) {
    if (drop_metric_name && item.first == kMetricNameLabel) return false;
    return std::find(names.begin(), names.end(), item.first) == names.end();
  });
}

std::string Labels::Key() const {
  size_t length = 0;
  for (const auto& [name, value] : items()) length += name.size() + value.size() + 2;
  std::string key;
  key.reserve(length);
  for (const auto& [name, value] : items()) {
    // NUL and SOH separate names and values: no label name has them and label values in
    // practice never do; the key stays valid UTF-8 for the state file's JSON.
    key += name;
    key += '\x00';
    key += value;
    key += '\x01';
  }
  return key;
}

size_t Labels::Hash() const {
  if (const size_t kept = hash_.load(kRelaxed); kept != 0) return kept;
  // Boost's hash_combine over the names and values; the sizes are mixed in so that moving bytes
  // between a name and its value changes the hash.
  size_t h = items().size();
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  const std::hash<std::string_view> hash;
  for (const auto& [name, value] : items()) {
    mix(hash(name));
    mix(hash(value));
  }
  if (h == 0) h = 1;  // 0 means "not computed yet"
  hash_.store(h, kRelaxed);
  return h;
}

std::string Labels::ToString() const {
  std::string out{Get(kMetricNameLabel)};
  out += '{';
  bool first = true;
  for (const auto& [name, value] : items()) {
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

class CompiledRegex {
 public:
  explicit CompiledRegex(const std::string& pattern, const re2::RE2::Options& options)
      : re2_(pattern, options) {}
  const re2::RE2& re2() const { return re2_; }

 private:
  re2::RE2 re2_;
};

Result<LabelMatcher> LabelMatcher::Make(std::string name, Op op, std::string value) {
  LabelMatcher matcher{std::move(name), op, std::move(value), nullptr, nullptr};
  if (op == Op::kRegexMatch || op == Op::kRegexNoMatch) {
    // Prometheus compiles "^(?:" + value + ")$" with Go's regexp (RE2 syntax); RE2 itself runs in
    // time linear in the label value and without recursion, so no pattern can stall evaluation
    // or overflow the stack. The length bound keeps a rule file from asking for a huge program;
    // RE2's own memory budget refuses the rest.
    constexpr size_t kMaxPatternLength = size_t{16} * 1024;
    if (matcher.value.size() > kMaxPatternLength) {
      return MakeError(ErrorCode::kParse, "regular expression longer than " +
                                              std::to_string(kMaxPatternLength) + " characters");
    }
    re2::RE2::Options options;
    options.set_log_errors(false);
    options.set_max_mem(8 << 20);
    auto compiled = std::make_shared<const CompiledRegex>("^(?:" + matcher.value + ")$", options);
    if (!compiled->re2().ok()) {
      return MakeError(ErrorCode::kParse, "invalid regular expression \"" + matcher.value +
                                              "\": " + compiled->re2().error());
    }
    matcher.regex = std::move(compiled);
    matcher.memo = std::make_shared<std::unordered_map<std::string, bool>>();
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
        matched = re2::RE2::FullMatch(re2::StringPiece(label_value.data(), label_value.size()),
                                      regex->re2());
        if (memo->size() >= kMemoEntries) memo->clear();
        memo->emplace(std::move(key), matched);
      }
      return op == Op::kRegexMatch ? matched : !matched;
    }
  }
  return false;
}

MemorySeriesSource::MemorySeriesSource(MemorySeriesSource&& other) noexcept
    : series_(std::move(other.series_)),
      by_labels_(std::move(other.by_labels_)),
      by_key_(std::move(other.by_key_)),
      by_name_(std::move(other.by_name_)) {
  // The keys of by_labels_ point into the series, which stay where they are (owned by pointer).
  std::lock_guard lock(other.selections_mutex_);
  other.selections_.clear();
}

MemorySeriesSource& MemorySeriesSource::operator=(MemorySeriesSource&& other) noexcept {
  if (this == &other) return *this;
  std::scoped_lock lock(selections_mutex_, other.selections_mutex_);
  series_ = std::move(other.series_);
  by_labels_ = std::move(other.by_labels_);
  by_key_ = std::move(other.by_key_);
  by_name_ = std::move(other.by_name_);
  selections_.clear();
  other.selections_.clear();
  return *this;
}

void MemorySeriesSource::Append(const Labels& labels, Point point) {
  auto it = by_labels_.find(&labels);
  if (it == by_labels_.end()) {
    series_.push_back(std::make_unique<Series>(Series{labels, {}}));
    Series* series = series_.back().get();
    it = by_labels_.emplace(&series->labels, series).first;
    by_key_.emplace(labels.Key(), series);
    by_name_[std::string(labels.Get(kMetricNameLabel))].push_back(series);
    std::lock_guard lock(selections_mutex_);
    selections_.clear();  // the new series may match any of them
  }
  it->second->points.push_back(point);
}

void MemorySeriesSource::Trim(int64_t min_t_ms) {
  for (const auto& series : series_) {
    auto& points = series->points;
    // Erasing from the front moves the whole history: do it once 64 points have expired, not
    // every second (Select skips older points anyway).
    constexpr size_t kEraseBatch = 64;
    if (points.size() < kEraseBatch || points[kEraseBatch - 1].t_ms >= min_t_ms) continue;
    auto first_kept = std::lower_bound(points.begin(), points.end(), min_t_ms,
                                       [](const Point& p, int64_t t) { return p.t_ms < t; });
    points.erase(points.begin(), first_kept);
  }
}

MemorySeriesSource::Selection MemorySeriesSource::Matching(
    std::span<const LabelMatcher> matchers) const {
  std::string key;
  for (const LabelMatcher& m : matchers) {
    key += std::to_string(m.name.size()) + ':' + m.name + static_cast<char>('0' + int(m.op)) +
           std::to_string(m.value.size()) + ':' + m.value;
  }
  {
    std::lock_guard lock(selections_mutex_);
    if (auto it = selections_.find(key); it != selections_.end()) return it->second;
  }
  auto selected = std::make_shared<std::vector<const Series*>>();
  auto add_if_matching = [&](const Series* series) {
    for (const LabelMatcher& matcher : matchers) {
      if (!matcher.Matches(series->labels.Get(matcher.name))) return;
    }
    selected->push_back(series);
  };
  // An equality matcher on the name (every rule's selectors have one) narrows to one list.
  auto name = std::find_if(matchers.begin(), matchers.end(), [](const LabelMatcher& m) {
    return m.name == kMetricNameLabel && m.op == LabelMatcher::Op::kEqual;
  });
  if (name != matchers.end()) {
    if (auto it = by_name_.find(name->value); it != by_name_.end()) {
      for (const Series* series : it->second) add_if_matching(series);
    }
  } else {
    for (const auto& [series_key, series] : by_key_) add_if_matching(series);
  }
  constexpr size_t kMaxSelections = 4096;
  std::lock_guard lock(selections_mutex_);
  if (selections_.size() >= kMaxSelections) selections_.clear();
  selections_.emplace(std::move(key), selected);
  return selected;
}

void MemorySeriesSource::Select(std::span<const LabelMatcher> matchers, int64_t min_t_ms,
                                int64_t max_t_ms, const Visitor& visit) const {
  const Selection selected = Matching(matchers);
  for (const Series* series : *selected) {
    const auto& points = series->points;
    auto begin = std::lower_bound(points.begin(), points.end(), min_t_ms,
                                  [](const Point& p, int64_t t) { return p.t_ms < t; });
    auto end = std::upper_bound(begin, points.end(), max_t_ms,
                                [](int64_t t, const Point& p) { return t < p.t_ms; });
    if (begin == end) continue;
    visit(series->labels, std::span<const Point>(&*begin, static_cast<size_t>(end - begin)));
  }
}

}  // namespace xpuperf::alerts
