// The table `xpuperf bench` prints at the end of a run.
#pragma once

#include <string>
#include <vector>

#include "xpuperf/bench/benchmark.h"

namespace xpuperf::bench_commands {

// One row per measurement except the individual cache-sweep points (their plateaus are shown):
// benchmark, metric, parameters, median value, unit, CV of the samples, % of the nominal peak.
std::string RenderBenchSummary(const std::vector<bench::Measurement>& measurements);

// The points that could not run, one line per reason: "skipped: 27 points of gpu_gemm, gpu_stream:
// unsupported: no CUDA driver"; a reason met once keeps its whole line.
std::string RenderSkipped(const std::vector<std::string>& skipped);

}  // namespace xpuperf::bench_commands
