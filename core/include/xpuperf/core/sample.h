// Samples and readings: what a backend returns for one metric on one device.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "xpuperf/core/distribution.h"

namespace xpuperf {

// Sorted by key; at most one value per key.
class Labels {
 public:
  Labels() = default;
  Labels(std::initializer_list<std::pair<std::string, std::string>> init);

  void Set(std::string_view key, std::string_view value);
  // Empty string when absent.
  std::string_view Get(std::string_view key) const;
  bool Has(std::string_view key) const;
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }
  bool empty() const { return items_.empty(); }
  std::string ToString() const;  // {core="0",device="cpu0"}

  friend bool operator==(const Labels&, const Labels&) = default;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

struct Sample {
  Labels labels;
  int64_t timestamp_ns = 0;  // wall clock, ns since the Unix epoch
  std::variant<double, Distribution> value;

  bool is_distribution() const { return value.index() == 1; }
  double scalar() const { return std::get<double>(value); }
  const Distribution& distribution() const { return std::get<Distribution>(value); }
};

enum class ReadingState {
  kOk,           // samples hold values
  kUnsupported,  // this device/host cannot provide the metric; reason says why
  kNoData,       // supported, but nothing to report yet (no ops recorded, first sample of a rate)
};

std::string_view ReadingStateName(ReadingState state);

// One metric on one device. Never a silent zero: when state != kOk, reason explains.
struct Reading {
  std::string metric;
  std::string device;  // device id, e.g. "cpu0"
  ReadingState state = ReadingState::kOk;
  std::string reason;  // empty when kOk; otherwise a one-line explanation
  std::vector<Sample> samples;
  // Which of the backend's sources gave the values, where it has several (TPU: "runtime",
  // "sdk", "sysfs"); empty otherwise.
  std::string source;

  static Reading Unsupported(std::string_view metric, std::string_view device, std::string reason);
  static Reading NoData(std::string_view metric, std::string_view device, std::string reason);
  // The sample without labels other than `device`, or nullptr.
  const Sample* Overall() const;
};

}  // namespace xpuperf
