// Turns the collectors' latest collections into one Snapshot of Prometheus families: catalog
// metrics under their exported names, device and collector health, build info, and the series of
// providers. Pure: no threads, no clocks of its own (tested directly).
#pragma once

#include <string>
#include <vector>

#include "backend_collector.h"
#include "xpuperf/exporter/exporter.h"
#include "xpuperf/exporter/metric_family.h"

namespace xpuperf::exporter {

struct BuildInput {
  int64_t now_ns = 0;
  std::string hostname;
  std::vector<std::string> metrics;  // catalog filter; empty = all
  std::vector<CollectorSnapshot> collectors;
  const DeviceAttribution* attribution = nullptr;  // may be null or empty
  const JobAttribution* jobs = nullptr;            // may be null or empty
  std::vector<MetricFamily> extra;                 // from providers
};

struct BuildOutput {
  Snapshot snapshot;
  std::vector<DeviceState> devices;
  std::vector<EnergyState> energy;    // the energy series' sources, for /health
  size_t dropped_extra_families = 0;  // provider families refused (bad or taken name)
};

BuildOutput BuildSnapshot(const BuildInput& input);

// Why a device is down: it gave no value this collection. The reason of its first reading that is
// not kOk, preferring "no data" (a lost GPU answers every query that way) over "unsupported".
// Empty when the device has at least one value.
std::string DeviceDownReason(const std::vector<Reading>& readings, std::string_view device_id);

// True for [a-zA-Z_][a-zA-Z0-9_]*.
bool IsValidMetricName(std::string_view name);

}  // namespace xpuperf::exporter
