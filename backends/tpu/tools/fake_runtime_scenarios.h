// Scripted answers of the fake runtime, shared by the in-process tests and the helper binary.
// The percentiles each distribution should give are worked out by hand next to it (in
// fake_runtime_scenarios.cpp) and checked by the tests.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "fake_runtime_server.h"

namespace xpuperf::tpu::testing {

// Builders for metric series.
runtime::Metric GaugeForOrdinal(int ordinal, double value);
runtime::Metric IntGaugeForOrdinal(int ordinal, int64_t value);
// kvlist {device_ordinal: "N"} (newer libtpu) or {device_ordinal: N} (older).
runtime::Metric WithKvOrdinal(runtime::Metric metric, int ordinal, bool as_string);
runtime::Metric WithBufferSize(runtime::Metric metric, std::string_view buffer_size);
runtime::Distribution ExponentialDistribution(int num_finite_buckets, double growth, double scale,
                                              const std::vector<int64_t>& counts, double mean);
runtime::Distribution LinearDistribution(int num_finite_buckets, double width, double offset,
                                         const std::vector<int64_t>& counts, double mean);
runtime::Distribution ExplicitDistribution(const std::vector<double>& bounds,
                                           const std::vector<int64_t>& counts, double mean);
// The observed extremes the runtime sends with a distribution (same unit as its buckets).
runtime::Distribution Observed(runtime::Distribution d, double min, double max);
runtime::TPUMetric NamedMetric(std::string_view name, std::vector<runtime::Metric> series);
runtime::GetTpuRuntimeStatusResponse StatusWithChips(int chips, int cores_per_chip);

// "busy": two single-core chips with gauges, HLO and transfer-latency distributions and a status.
// "dual-core": one chip with two cores (TPU7x-like), per-core gauges, no runtime status.
// "empty": the metrics are listed but have no series (no XLA program has run yet).
// "unavailable": every RPC fails with UNAVAILABLE. "slow": answers after 3 s.
std::optional<FakeRuntimeScript> Scenario(std::string_view name);

}  // namespace xpuperf::tpu::testing
