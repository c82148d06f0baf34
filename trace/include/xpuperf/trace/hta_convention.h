// `xpuperf analyze --convention hta`: the trace as Holistic Trace Analysis (HTA 0.5, the newest on
// PyPI) reads it, so that the analyses give HTA's numbers. docs/TRACES.md lists each rule and what
// still differs; trace/tests/hta_referee.py runs HTA itself and compares. Pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "xpuperf/trace/analyses.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

// A TraceEvent::hta_flags bit beside HtaFlags (trace.h): args.stream beyond int32 (Kineto writes
// 4294967295 on Context Sync), which HTA reads as a stream (not -1) where xpuperf stores -1.
inline constexpr uint8_t kHtaStreamWide = 8;

// Trace::hta_iterations where HTA's iteration is NaN (a row on stream 0) or there is no row.
inline constexpr int32_t kHtaNoIteration = INT32_MIN;

// HTA's kernel types by name (utils.get_kernel_type): COMMUNICATION `^nccl.*Kernel`; MEMORY
// `^Memcpy|^Memset|^dma`; COMPUTATION what matches none of `^nccl.*Kernel`, `.*Memcpy`,
// `^Memset`, `.*Sync`; OTHER the rest (e.g. "Stream Sync", a name containing "Memcpy").
enum class HtaKernelType { kComputation, kCommunication, kMemory, kOther };
HtaKernelType HtaKernelTypeOf(std::string_view name);

// Rewrites one rank: keeps the rows HTA keeps (a `dur` and a `cat`, cat not "Trace"), reads
// args.stream as Python's int() does (else -1), rounds ts up and ts + dur down to whole
// microseconds when the trace has fractional timestamps, and, with `drop_last_profiler_step`,
// drops CPU events from the last ProfilerStep's start on and GPU kernels no kept CPU event has
// the correlation of (HTA's include_last_profiler_step=False). Sets each event's
// hta_index_correlation (computed before the drop, as HTA does), trace.convention and, over the
// rows before the drop, the rest of HTA's frame (Trace::hta_iterations, the symbols, the ranges).
void ApplyHtaConvention(Trace& trace, bool drop_last_profiler_step);

// HTA's include_last_profiler_step (a TraceAnalysis argument), for a run with at least two
// distinct names that contain "ProfilerStep". kDrop (False, HTA's default): CPU events from the
// last step's start on are dropped. kInclude (True): CPU events are kept when their ts, aligned
// to the run's first timestamp, is at most the last step's end, which HTA leaves unaligned (so
// in practice every one). Either way GPU kernels are kept only when a kept CPU event has their
// correlation, and Trace::hta_dropped_last_step says the frame was filtered.
enum class HtaLastStep { kDrop, kInclude };

// Every rank of a run, filtered as `last_step` says when the run has at least two distinct names
// that contain "ProfilerStep" (as HTA decides); a rank without distributedInfo is rank 0 (HTA's
// default). Returns that count of names (capped at 2).
int ApplyHtaConvention(TraceRun& run, HtaLastStep last_step = HtaLastStep::kDrop);

// HTA's get_temporal_breakdown: GPU events = stream != -1; window = end of the last merged
// interval - start of the first; compute = union of COMPUTATION kernels; idle = window - union;
// non-compute = window - compute - idle. Used by ComputeTemporalBreakdown under kHta.
TemporalBreakdown ComputeHtaTemporalBreakdown(const Trace& trace);

}  // namespace xpuperf::trace
