// What the commands print: tables for terminals and JSON documents, from SDK values only, so each
// view is tested against expected output without touching the machine.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "xpuperf/core/device.h"
#include "xpuperf/core/sample.h"
#include "xpuperf/core/session.h"

namespace xpuperf::telemetry {

// One `xpuperf metrics` observation.
struct MetricsSnapshot {
  std::string host;
  int64_t timestamp_ns = 0;
  double window_seconds = 0;  // span over which rates (duty cycle, power) were computed
  std::vector<Device> devices;
  std::vector<BackendStatus> backends;
  std::vector<Reading> readings;
};

std::string RenderDevices(const std::vector<Device>& devices,
                          const std::vector<BackendStatus>& backends);
nlohmann::json DevicesJson(const std::string& host, const std::vector<Device>& devices,
                           const std::vector<BackendStatus>& backends);

// A clock-event (throttle) reason in words, as nvidia-smi -q words them: "sw_power_cap" → "power
// cap"; an unknown one with its underscores as spaces.
std::string ClockEventReasonWords(std::string_view reason);
// The active reasons of a clock_event_active reading in words, "power cap, thermal (SW)"; "none"
// when the reasons are read and none holds the clocks down (`metrics` and `top` both show it).
std::string ActiveClockEventsText(const Reading& reading);

std::string RenderCatalog();
nlohmann::json CatalogJson();

// The default `metrics` view, laid out like tpu-info: utilisation and memory, per-core, power and
// thermal, latency tables with P50/P90/P95/P999, processes, then every metric that is unsupported
// or has no data, with its reason.
std::string RenderDashboard(const MetricsSnapshot& snapshot);
// One row per sample of the given readings (the `--metric` view).
std::string RenderReadings(const std::vector<Reading>& readings);
nlohmann::json MetricsJson(const MetricsSnapshot& snapshot);
// `--format csv` (RFC 4180, nvidia-smi's query mode in long form): the header once, then one row
// per sample: timestamp (UTC, ms), host, device, metric, labels ("key=value;…"), value in the
// catalog's base unit, unit, state (ok, unsupported, no_data) and the reason of a reading without
// a value; a distribution gives a row for its count and each percentile (stat=p50, …).
std::string MetricsCsvHeader();
std::string MetricsCsvRows(const MetricsSnapshot& snapshot);
// The line above each refresh of `metrics --watch` tables: "=== <UTC time> on <host> (refresh N)
// ===".
std::string WatchHeader(const MetricsSnapshot& snapshot, int refresh);

}  // namespace xpuperf::telemetry
