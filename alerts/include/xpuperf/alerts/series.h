// Time-stamped series and the abstract source the rule engine reads them from. The exporter's
// recent history implements SeriesSource; tests and `alert test` use MemorySeriesSource.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::alerts {

inline constexpr std::string_view kMetricNameLabel = "__name__";

// A label set sorted by name, as Prometheus keeps it; `__name__` is an ordinary entry.
class Labels {
 public:
  Labels() = default;
  explicit Labels(std::vector<std::pair<std::string, std::string>> items);

  // Empty when absent (Prometheus treats an empty value as absent).
  std::string_view Get(std::string_view name) const;
  void Set(std::string_view name, std::string_view value);  // an empty value removes the label
  void Remove(std::string_view name);
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }
  bool empty() const { return items_.empty(); }

  // Only `names`; or all but `names` (and `__name__`), the grouping of by/on and without/ignoring.
  Labels Keep(std::span<const std::string> names) const;
  Labels Drop(std::span<const std::string> names, bool drop_metric_name) const;
  // One string that identifies the set (label names and values joined with separators).
  std::string Key() const;
  // `{a="1", b="2"}` in Prometheus' notation, with the metric name in front when present.
  std::string ToString() const;

  friend bool operator==(const Labels&, const Labels&) = default;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// Prometheus' staleness marker (a NaN with a reserved bit pattern): the series ended here.
double StaleNaN();
bool IsStaleNaN(double value);

struct Point {
  int64_t t_ms = 0;  // milliseconds since the Unix epoch (or since the start of a test)
  double value = 0;
};

struct LabelMatcher {
  enum class Op { kEqual, kNotEqual, kRegexMatch, kRegexNoMatch };
  std::string name;
  Op op = Op::kEqual;
  std::string value;
  std::shared_ptr<const std::regex> regex;  // fully anchored, for the two regex ops
  // Regex results by label value (label values repeat across evaluations and std::regex is slow);
  // bounded. Makes Matches unsafe to call from two threads at once on copies of one matcher.
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

// Series held in memory, indexed by metric name. Not thread-safe: one writer or many readers.
class MemorySeriesSource : public SeriesSource {
 public:
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
  std::map<std::string, Series> series_;                              // by Labels::Key()
  std::map<std::string, std::vector<Series*>, std::less<>> by_name_;  // by __name__
};

}  // namespace xpuperf::alerts
