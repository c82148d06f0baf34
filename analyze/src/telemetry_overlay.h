// `xpuperf analyze TRACE --telemetry DIR`: a recording (`xpuperf record --out DIR`) laid over a
// profiler trace by wall clock: energy and average power per ProfilerStep#N and per op class, J per
// step, J per GEMM FLOP, and a merged Chrome trace of the ops and the counter tracks.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "xpuperf/core/status.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::analyze {

struct TelemetryOverlayOptions {
  std::string dir;           // the recording
  std::string trace_path;    // the trace file (for the merged trace), empty for a directory run
  std::string merged_trace;  // write the merged Chrome trace here (empty = do not)
  double offset_s = 0;       // added to the trace's wall times (a clock known to be off)
};

// Uses the first rank of `run`; every rank of a node shares the node's energy.
Result<nlohmann::json> AnalyzeTelemetry(const trace::TraceRun& run,
                                        const TelemetryOverlayOptions& options);
std::string RenderTelemetryText(const nlohmann::json& telemetry);

}  // namespace xpuperf::analyze
