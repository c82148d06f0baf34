// Writing a run as Chrome-trace JSON (the format chrome://tracing and Perfetto's UI load;
// `xpuperf analyze --export-chrome FILE`). Every rank's processes keep their names (an
// .xplane.pb's plane and line names) under a "rank N" prefix when the run has several ranks.
//
// Format: {"displayTimeUnit": "ns", "baseTimeNanoseconds": B, "traceEvents": [...]}; `ts` and
// `dur` are microseconds (the format's unit) with three decimals, so nanoseconds are exact; ts
// counts from B, the run's earliest event (absolute epoch microseconds exceed what a viewer's
// doubles hold to the nanosecond). Complete events are "X", instants "i"; args carry the XLA
// facts of an op (hlo_category, hlo_module, flops, bytes_accessed) and device/stream/correlation
// where known. Written through core/output_file.h (atomic).
#pragma once

#include <string>

#include "xpuperf/core/status.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

Status WriteChromeTrace(const TraceRun& run, const std::string& path);

}  // namespace xpuperf::trace
