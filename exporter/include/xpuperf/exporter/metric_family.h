// The exporter's data model: metric families as Prometheus sees them, independent of the wire
// format (exposition.h writes them as text 0.0.4 or OpenMetrics 1.0).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "xpuperf/core/sample.h"
#include "xpuperf/exporter/series_naming.h"

namespace xpuperf::exporter {

// One gauge/counter/info sample. `labels` must not repeat a name (core::Labels guarantees it).
struct ScalarPoint {
  Labels labels;
  double value = 0;
};

// One histogram series. `upper_bounds` are finite and strictly increasing; `cumulative[i]` counts
// observations <= upper_bounds[i]; the `+Inf` bucket is `count`.
struct HistogramPoint {
  Labels labels;
  std::vector<double> upper_bounds;
  std::vector<uint64_t> cumulative;
  uint64_t count = 0;
  double sum = 0;
};

struct MetricFamily {
  // For counters: the sample name with `_total` (`xpuperf_energy_joules_total`); for info
  // families: the sample name with `_info`; otherwise the sample name. Must be a valid metric name
  // ([a-zA-Z_][a-zA-Z0-9_]*).
  std::string name;
  std::string help;  // one line; written escaped
  FamilyType type = FamilyType::kGauge;
  std::vector<ScalarPoint> points;         // gauge, counter, info
  std::vector<HistogramPoint> histograms;  // histogram

  bool empty() const { return points.empty() && histograms.empty(); }
};

// An empty gauge family (the files serve exports as series build theirs with it).
inline MetricFamily GaugeFamily(std::string name, std::string help) {
  MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = FamilyType::kGauge;
  return family;
}

// Everything one /metrics response holds at one moment.
struct Snapshot {
  int64_t timestamp_ns = 0;  // wall clock when it was assembled, ns since the Unix epoch
  std::vector<MetricFamily> families;

  // nullptr when absent.
  const MetricFamily* Find(std::string_view name) const;
};

}  // namespace xpuperf::exporter
