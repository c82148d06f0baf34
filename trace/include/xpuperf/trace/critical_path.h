// The critical path of a rank's trace: the chain of host and GPU work that decided when the traced
// work ended, found by walking back from the last event to end, each time to what it waited for.
//   - A GPU op waited for the previous op on its stream when the stream was still busy when its
//     launch call started; otherwise for its launch call (the GPU was idle: the host was late);
//     or, held by a cudaStreamWaitEvent, for the op of another stream the event was recorded
//     after, when that one ended last.
//   - A host thread is walked back through time; each instant is charged to the innermost event
//     running on it (an op, a runtime call) or to untraced time. A blocking call (a
//     *Synchronize, or a copy whose GPU op ended inside the call) inside which a GPU op ended
//     waited for that op (the latest one, on the synchronised stream when the trace names it).
// Every instant between the path's start and its end is charged to exactly one category, so the
// categories add up to the path's length. docs/TRACES.md states the rules.
//
// The window: by default the last ProfilerStep#N range (one steady-state iteration, without the
// start-up's context creation and allocations); without steps, from the first GPU op's launch to
// the end (the whole trace when it has no GPU op); or the last host range whose name contains a
// given text. The path ends with the last host event inside the
// window or the last GPU op launched in it, and stops at the window's start.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

enum class PathCategory : uint8_t {
  kCpuOp,         // host ops (cpu_op, python_function, annotations' own time)
  kCpuRuntime,    // CUDA/HIP runtime and driver calls on the host (launches, copies, syncs)
  kCpuUntraced,   // host time inside no traced event
  kKernelLaunch,  // from a launch call's start to its GPU op's start, the GPU being idle
  kSyncWakeup,    // from the awaited GPU op's end to the blocking call's return
  kGpuCompute,    // compute kernels
  kGpuComm,       // communication kernels (NCCL/RCCL)
  kGpuMemory,     // memcpy, memset and memory kernels
  kGpuGap,        // between two ops of a stream, the next already launched
  kStreamWait,    // from an op of another stream's end to the op a cudaStreamWaitEvent held
};
inline constexpr int kPathCategories = 10;
std::string_view PathCategoryName(PathCategory category);
bool IsHostCategory(PathCategory category);

struct CriticalPathItem {
  std::string name;  // the op, call or kernel; "(untraced)" for host gaps
  PathCategory category = PathCategory::kCpuOp;
  int64_t ns = 0;  // its time on the path
};

struct CriticalPath {
  int rank = 0;
  // "ProfilerStep#12", "first GPU launch to the end", "whole trace", or the chosen range's name
  std::string window;
  bool found = true;     // false when no host range matched the requested name
  int64_t start_ns = 0;  // where the walk stopped (the trace's first event, or nothing earlier)
  int64_t end_ns = 0;    // the end of the event that ends last
  int64_t length_ns = 0;
  int64_t steps = 0;    // path segments
  int64_t gpu_ops = 0;  // GPU ops on the path
  int64_t host_ns = 0;  // sum of the host categories (CPU ops, runtime, untraced, launch, wake-up)
  int64_t category_ns[kPathCategories] = {};
  std::vector<CriticalPathItem> top;  // the largest (name, category) items, longest first
  // "host-bound", "gpu-compute-bound", "gpu-communication-bound", "gpu-memory-bound", or "empty".
  std::string verdict;
};

// The rank's critical path and its `top_k` largest items by path time. `range`: empty for the
// default window, else a text the chosen host range's name contains.
CriticalPath ComputeCriticalPath(const Trace& trace, size_t top_k = 10,
                                 std::string_view range = {});

}  // namespace xpuperf::trace
