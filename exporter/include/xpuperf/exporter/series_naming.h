// The one place that turns a catalog metric into a Prometheus series name. The shipped dashboards
// and alert rules depend on these exact names, so every rule is here and documented in
// docs/EXPORTER.md ("Series names").
#pragma once

#include <string>
#include <string_view>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::exporter {

// Prometheus family types the exporter writes. kInfo is written as a gauge of value 1 in the text
// format 0.0.4 and as `info` in OpenMetrics.
enum class FamilyType { kGauge, kCounter, kHistogram, kInfo };

std::string_view FamilyTypeName(FamilyType type);  // "gauge", "counter", "histogram", "info"

struct SeriesNaming {
  // Full sample name as scraped in the text format: `xpuperf_energy_joules_total`. For counters it
  // ends in `_total`; for histograms it is the base name (`_bucket`, `_sum`, `_count` are added).
  std::string name;
  // Divide the catalog value by this to get the exported value (100 for percent -> ratio; a
  // division keeps 87 % exactly 0.87).
  double divisor = 1;
  FamilyType type = FamilyType::kGauge;
};

// The rules, applied in order to the catalog name N:
//  1. prefix `xpuperf_`;
//  2. `_percent` -> `_ratio` and the value / 100: ratios 0-1 are Prometheus' base unit (the DCGM
//     profiling fields use ratios too), so `xpuperf_duty_cycle_ratio` is 0.875 for 87.5 %;
//  3. a counter ends in `_total` (`energy_joules` -> `energy_joules_total`; `errors_total` stays);
//  4. a distribution is a histogram under its own name (already in seconds).
// Everything else (bytes, seconds, watts, celsius, hertz, bytes_per_second, count-like gauges) is
// already in base units and keeps its name.
SeriesNaming NamingFor(const MetricInfo& info);

// The name of a catalog metric as exported (NamingFor(...).name), or "" for a name that is not in
// the catalog.
std::string SeriesNameFor(std::string_view catalog_name);

// Label names the exporter adds to every device series, in this order of precedence over a
// metric's own labels: device, backend, model, uuid, pci_bus_id, hostname (then pod, namespace,
// container under Kubernetes).
inline constexpr std::string_view kPrefix = "xpuperf_";

}  // namespace xpuperf::exporter
