// `xpuperf serve`'s health series: the verdicts of `xpuperf health` (docs/HEALTH.md) over the
// exporter's latest collections, refreshed every collection interval.
//   xpuperf_health{hostname, device, subsystem, status, code, severity, action}
//       0 pass, 1 unknown, 2 warn, 3 fail (the order a node's worst verdict is taken in)
//   xpuperf_node_healthy{hostname}   1 when no verdict fails, else 0
#pragma once

#include <string>
#include <vector>

#include "xpuperf/exporter/metric_family.h"
#include "xpuperf/health/verdict.h"

namespace xpuperf::serve {

std::vector<exporter::MetricFamily> HealthFamilies(const health::HealthReport& report,
                                                   const std::string& hostname);

}  // namespace xpuperf::serve
