// The peak FLOP/s `analyze` divides a trace's model FLOPs by (MFU): built with traces and
// benchmarks (spec sheets) together.
#pragma once

#include <string>

#include "xpuperf/core/status.h"
#include "xpuperf/trace/model_flops.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::analyze {

// The peaks `analyze` judges a trace's model FLOPs against (MFU). `spec`: "auto" (or empty) for
// the shipped sheet of the device the trace's kernels ran on (deviceProperties); "host" for the
// sheet computed for this machine's CPU (a CPU trace recorded here); "none"; or a sheet's file or
// name. Where auto finds no sheet, the result has no peaks and says why; a --spec that names
// nothing is an error (kNotFound).
Result<trace::PeakFlops> ResolveTracePeaks(const trace::TraceRun& run, const std::string& spec,
                                           const std::string& root = "/");

}  // namespace xpuperf::analyze
