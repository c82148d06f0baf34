// JSON forms of the core types: the schema of `--json` output and of result files.
// Every document carries json_schema_version; bump it when a field changes meaning.
#pragma once

#include <nlohmann/json.hpp>

#include "xpuperf/core/device.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/sample.h"

namespace xpuperf {

inline constexpr int kJsonSchemaVersion = 1;

nlohmann::json ToJson(const Device& device);
nlohmann::json ToJson(const MetricInfo& info);
// Buckets are listed only where the count is non-zero, as [upper_bound, count] pairs (upper bound
// null for the overflow bucket); p50/p90/p95/p999 are null when count is 0.
nlohmann::json ToJson(const Distribution& distribution);
nlohmann::json ToJson(const Sample& sample);
nlohmann::json ToJson(const Reading& reading);

}  // namespace xpuperf
