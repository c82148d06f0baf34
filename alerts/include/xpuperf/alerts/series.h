// Time-stamped series and the abstract source the rule engine reads them from. The exporter's
// recent history implements SeriesSource; tests and `alert test` use MemorySeriesSource.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::alerts {

inline constexpr std::string_view kMetricNameLabel = "__name__";

// A label set sorted by name, as Prometheus keeps it; `__name__` is an ordinary entry. Copies share
// one immutable list (a copy costs a reference count, not a copy of every string); a change to a
// shared list copies it first. Distinct Labels objects may be used from different threads.
class Labels {
 public:
  using Items = std::vector<std::pair<std::string, std::string>>;

  Labels() = default;
  explicit Labels(Items items);
  Labels(const Labels& other) : items_(other.items_), hash_(other.hash_.load(kRelaxed)) {}
  Labels(Labels&& other) noexcept
      : items_(std::move(other.items_)), hash_(other.hash_.exchange(0, kRelaxed)) {}
  Labels& operator=(const Labels& other) {
    if (this == &other) return *this;
    items_ = other.items_;
    hash_.store(other.hash_.load(kRelaxed), kRelaxed);
    return *this;
  }
  Labels& operator=(Labels&& other) noexcept {
    items_ = std::move(other.items_);
    hash_.store(other.hash_.exchange(0, kRelaxed), kRelaxed);
    return *this;
  }

  // Empty when absent (Prometheus treats an empty value as absent).
  std::string_view Get(std::string_view name) const;
  void Set(std::string_view name, std::string_view value);  // an empty value removes the label
  void Remove(std::string_view name);
  const Items& items() const { return items_ ? *items_ : EmptyItems(); }
  bool empty() const { return !items_ || items_->empty(); }

  // Only `names`; or all but `names` (and `__name__`), the grouping of by/on and without/ignoring.
  Labels Keep(std::span<const std::string> names) const;
  Labels Drop(std::span<const std::string> names, bool drop_metric_name) const;
  // One string that identifies the set (label names and values joined with separators).
  std::string Key() const;
  // A hash of the names and values (equal sets hash equally), for hash-map lookups; computed once
  // per object and kept.
  size_t Hash() const;
  // `{a="1", b="2"}` in Prometheus' notation, with the metric name in front when present.
  std::string ToString() const;

  friend bool operator==(const Labels& a, const Labels& b) {
    return a.items_ == b.items_ || a.items() == b.items();
  }

 private:
  static const Items& EmptyItems();
  template <typename Predicate>
  Labels Filter(Predicate keep) const;  // the items for which keep(item) holds
  Items& Mutable();                     // the list, copied first when another Labels shares it

  static constexpr auto kRelaxed = std::memory_order_relaxed;

  std::shared_ptr<Items> items_;  // null when empty; never changed while shared
  // Hash() once computed, 0 before (atomic: const readers on two threads may both compute it).
  mutable std::atomic<size_t> hash_{0};
};

// Prometheus' staleness marker (a NaN with a reserved bit pattern): the series ended here.
inline constexpr uint64_t kStaleNaNBits = 0x7ff0000000000002;
inline double StaleNaN() { return std::bit_cast<double>(kStaleNaNBits); }
inline bool IsStaleNaN(double value) { return std::bit_cast<uint64_t>(value) == kStaleNaNBits; }

struct Point {
  int64_t t_ms = 0;  // milliseconds since the Unix epoch (or since the start of a test)
  double value = 0;
};

class CompiledRegex;  // series.cpp: an RE2 program

struct LabelMatcher {
  enum class Op { kEqual, kNotEqual, kRegexMatch, kRegexNoMatch };
  std::string name;
  Op op = Op::kEqual;
  std::string value;
  // The compiled pattern for the two regex ops: RE2, matched against the whole value (Prometheus
  // anchors label regexes at both ends). Opaque here so that RE2 stays a private dependency.
  std::shared_ptr<const CompiledRegex> regex;
  // Regex results by label value (label values repeat across evaluations); bounded. Makes Matches
  // unsafe to call from two threads at once on copies of one matcher.
  std::shared_ptr<std::unordered_map<std::string, bool>> memo;

  static Result<LabelMatcher> Make(std::string name, Op op, std::string value);
  bool Matches(std::string_view label_value) const;
};

// Where the engine reads series. Implementations must be safe to call from the evaluating thread
// while they are being appended to (the exporter's history takes its own lock).
class SeriesSource {
 public:
  using Visitor = std::function<void(const Labels&, std::span<const Point>)>;
  virtual ~SeriesSource() = default;
  // Calls `visit` once per series matching every matcher, with its points whose time lies in
  // [min_t_ms, max_t_ms], oldest first (staleness markers included).
  virtual void Select(std::span<const LabelMatcher> matchers, int64_t min_t_ms, int64_t max_t_ms,
                      const Visitor& visit) const = 0;
};

// Series held in memory, indexed by label set and by metric name. Which series a set of matchers
// selects is kept until a series is added (rules select the same series every round). Not
// thread-safe: one writer or many readers (readers share the kept selections under a lock).
class MemorySeriesSource : public SeriesSource {
 public:
  MemorySeriesSource() = default;
  // Moves the series; the kept selections start empty (the lock does not move).
  MemorySeriesSource(MemorySeriesSource&& other) noexcept;
  MemorySeriesSource& operator=(MemorySeriesSource&& other) noexcept;

  // Appends a point; points of one series must come in time order.
  void Append(const Labels& labels, Point point);
  // Drops points older than `min_t_ms` (a bounded history).
  void Trim(int64_t min_t_ms);
  size_t series_count() const { return series_.size(); }

  void Select(std::span<const LabelMatcher> matchers, int64_t min_t_ms, int64_t max_t_ms,
              const Visitor& visit) const override;

 private:
  struct Series {
    Labels labels;
    std::vector<Point> points;
  };
  struct LabelsRefHash {
    size_t operator()(const Labels* labels) const { return labels->Hash(); }
  };
  struct LabelsRefEqual {
    bool operator()(const Labels* a, const Labels* b) const { return *a == *b; }
  };

  // Every series, in the order they appeared (owned; addresses stay put).
  std::vector<std::unique_ptr<Series>> series_;
  // Lookup by label set (keys point at the series' own labels).
  std::unordered_map<const Labels*, Series*, LabelsRefHash, LabelsRefEqual> by_labels_;
  // By Labels::Key(): the order of a scan when no matcher names the metric.
  std::map<std::string, const Series*> by_key_;
  std::map<std::string, std::vector<const Series*>, std::less<>> by_name_;  // by __name__

  using Selection = std::shared_ptr<const std::vector<const Series*>>;
  Selection Matching(std::span<const LabelMatcher> matchers) const;

  mutable std::mutex selections_mutex_;
  // The series each set of matchers selects, by the matchers' text; emptied when a series is
  // added, and bounded.
  mutable std::unordered_map<std::string, Selection> selections_;
};

}  // namespace xpuperf::alerts
