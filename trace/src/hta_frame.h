// Helpers the HTA-convention analyses share (hta_convention.cpp, hta_*_analyses.cpp): HTA's
// whole-microsecond times and its rule for "a GPU kernel". Internal to the trace component.
#pragma once

#include <cstdint>
#include <vector>

#include "xpuperf/trace/hta_convention.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace::internal {

// A time of HTA's frame, µs: ts // 1000 as numpy floors (whole µs under the convention).
inline int64_t HtaMicros(int64_t ns) { return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000); }

struct HtaInterval {
  int64_t ts = 0;  // µs
  int64_t end = 0;
};

// The GPU events (stream != -1) of one HTA kernel type, as (ts, ts + dur) in µs.
std::vector<HtaInterval> HtaGpuIntervals(const Trace& trace, HtaKernelType type);

// HTA's rule for "a GPU kernel" when it filters by correlation (trace_filter.py): a stream and a
// correlation, or a device-wide synchronisation (which has stream -1).
bool IsHtaGpuKernel(const Trace& trace, const TraceEvent& e);

}  // namespace xpuperf::trace::internal
