// Internal: which GPU op a CUDA event wait waited for. Kineto writes a "Stream Wait Event" sync
// event for cudaStreamWaitEvent (a stream waits for an event recorded on another stream) and an
// "Event Sync" one for cudaEventSynchronize (the host waits for it), each with the recording
// stream (args.wait_on_stream) and the correlation of the cudaEventRecord call
// (args.wait_on_cuda_event_record_corr_id): the event completes when the last GPU op launched on
// that stream before the record call ends. As Holistic Trace Analysis's critical path reads them.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "analysis_util.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace::internal {

struct EventWaits {
  // GPU op -> the GPU op of another stream it waited for: the first op launched on the waiting
  // stream, from the cudaStreamWaitEvent call's thread, after that call.
  std::unordered_map<uint32_t, uint32_t> gpu;
  // Correlation of a cudaEventSynchronize call -> the GPU op it waited for.
  std::unordered_map<int64_t, uint32_t> host;
};

EventWaits BuildEventWaits(const Trace& trace, const LaunchIndex& launches);

}  // namespace xpuperf::trace::internal
