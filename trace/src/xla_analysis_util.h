// Helpers of the XLA analyses (analysis_xla_*.cpp): which events are XLA's ops, modules and steps
// (the categories the .xplane.pb reader gives them), and duration statistics with percentiles.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "xpuperf/trace/trace.h"

namespace xpuperf::trace::internal {

// The string id of `category` in this trace, or -1 when no event can have it.
inline int64_t CategoryId(const Trace& trace, std::string_view category) {
  return trace.strings.Find(category);
}

// Statistics of a set of durations (ns). Percentiles are nearest-rank: the p-th percentile is the
// smallest duration with at least p% of the durations at or below it (sorted[ceil(p*n) - 1]).
struct DurationSummary {
  int64_t count = 0, total_ns = 0, min_ns = 0, max_ns = 0, p50_ns = 0, p90_ns = 0, p99_ns = 0;
  double mean_ns = 0;
};

inline DurationSummary SummariseDurations(std::vector<int64_t>& ns) {
  DurationSummary s;
  if (ns.empty()) return s;
  std::sort(ns.begin(), ns.end());
  auto rank = [&](double q) {
    size_t r = static_cast<size_t>(std::ceil(q * static_cast<double>(ns.size())));
    return ns[std::clamp<size_t>(r, 1, ns.size()) - 1];
  };
  s.count = static_cast<int64_t>(ns.size());
  for (int64_t v : ns) s.total_ns += v;
  s.min_ns = ns.front();
  s.max_ns = ns.back();
  s.p50_ns = rank(0.50);
  s.p90_ns = rank(0.90);
  s.p99_ns = rank(0.99);
  s.mean_ns = static_cast<double>(s.total_ns) / static_cast<double>(s.count);
  return s;
}

// "device 3", or "host" for device -1 (XLA:CPU runs the ops on host threads).
inline std::string XlaDeviceName(int device) {
  return device < 0 ? std::string("host") : "device " + std::to_string(device);
}

}  // namespace xpuperf::trace::internal
