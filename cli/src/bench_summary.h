// The table `xpuperf bench` prints at the end of a run.
#pragma once

#include <string>
#include <vector>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/cli/text_table.h"

namespace xpuperf::cli {

// One row per measurement except the individual cache-sweep points (their plateaus are shown):
// benchmark, metric, parameters, median value, unit, CV of the samples, % of the nominal peak.
std::string RenderBenchSummary(const std::vector<bench::Measurement>& measurements);

}  // namespace xpuperf::cli
