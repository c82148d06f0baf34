// The critical path: a backward walk from the event that ends last (critical_path.h).
#include "xpuperf/trace/critical_path.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis_util.h"
#include "event_waits.h"
#include "xpuperf/trace/analyses.h"

namespace xpuperf::trace {
namespace {

using internal::KernelClassCache;

bool IsHostKind(EventKind kind) {
  return kind == EventKind::kCpuOp || kind == EventKind::kUserAnnotation ||
         kind == EventKind::kRuntime || kind == EventKind::kDriver ||
         kind == EventKind::kPythonFunction;
}

// One piece of a host thread's timeline: the innermost event running over [begin, end), or none.
struct Segment {
  int64_t begin;
  int64_t end;
  int64_t event;  // index into trace.events, -1 for untraced time
};

// Flattens a thread's (possibly nested) events, given in start order, into contiguous segments
// from its first start to its last end. A child reaching past its parent is cut at the parent's
// end.
std::vector<Segment> FlattenThread(const Trace& trace, const std::vector<uint32_t>& events) {
  std::vector<Segment> out;
  if (events.empty()) return out;
  struct Open {
    uint32_t event;
    int64_t end;
  };
  std::vector<Open> stack;
  int64_t cursor = trace.events[events.front()].ts_ns;
  auto emit = [&](int64_t to, int64_t label) {
    if (to > cursor) {
      out.push_back({cursor, to, label});
      cursor = to;
    }
  };
  for (uint32_t index : events) {
    const TraceEvent& e = trace.events[index];
    while (!stack.empty() && stack.back().end <= e.ts_ns) {
      emit(stack.back().end, stack.back().event);
      stack.pop_back();
    }
    emit(e.ts_ns, stack.empty() ? -1 : static_cast<int64_t>(stack.back().event));
    const int64_t end = stack.empty() ? e.end_ns() : std::min(e.end_ns(), stack.back().end);
    stack.push_back({index, end});
  }
  while (!stack.empty()) {
    emit(stack.back().end, stack.back().event);
    stack.pop_back();
  }
  return out;
}

class Walker {
 public:
  Walker(const Trace& trace, size_t top_k) : trace_(trace), top_k_(top_k), classes_(trace) {}

  CriticalPath Run(std::string_view range) {
    path_.rank = trace_.rank;
    launches_ = internal::BuildLaunchIndex(trace_);
    event_waits_ = internal::BuildEventWaits(trace_, launches_);
    if (!ChooseWindow(range)) {
      path_.found = false;
      path_.verdict = "empty";
      return path_;
    }
    Index();
    // Start from the event that ends last: a host event inside the window, or a GPU op launched
    // (or, without a launch call, started) in it.
    int64_t last = -1;
    int64_t last_end = INT64_MIN;
    for (uint32_t i = 0; i < trace_.events.size(); ++i) {
      const TraceEvent& e = trace_.events[i];
      if (!(IsGpuOp(e.kind) || IsHostKind(e.kind)) || e.dur_ns <= 0) continue;
      if (IsGpuOp(e.kind)) {
        const int64_t launch = launches_.Find(e.correlation);
        const int64_t issued = launch >= 0 ? trace_.events[launch].ts_ns : e.ts_ns;
        if (issued < window_begin_ || issued >= window_end_) continue;
      } else if (e.ts_ns < window_begin_ || e.end_ns() > window_end_) {
        continue;
      }
      // At equal ends a GPU op wins: the host range ending with it was waiting for it.
      if (e.end_ns() > last_end || (e.end_ns() == last_end && IsGpuOp(e.kind))) {
        last_end = e.end_ns();
        last = i;
      }
    }
    if (last < 0) {
      path_.verdict = "empty";
      return path_;
    }
    path_.end_ns = last_end;
    int64_t t = last_end;
    Place place = IsGpuOp(trace_.events[last].kind) ? Place::kGpu : Place::kHost;
    int64_t where = place == Place::kGpu ? last : ThreadOf(trace_.events[last]);
    const size_t budget = 4 * trace_.events.size() + 16;
    for (size_t step = 0; step < budget && place != Place::kDone && t > window_begin_; ++step) {
      if (place == Place::kGpu) {
        GpuStep(static_cast<uint32_t>(where), &t, &place, &where);
      } else {
        HostStep(static_cast<size_t>(where), &t, &place, &where);
      }
    }
    path_.start_ns = std::max(t, window_begin_);
    path_.length_ns = path_.end_ns - path_.start_ns;
    Finish();
    return path_;
  }

 private:
  enum class Place { kGpu, kHost, kDone };

  // The window (see critical_path.h); false when `range` names no host event.
  bool ChooseWindow(std::string_view range) {
    int64_t chosen = -1;
    for (uint32_t i = 0; i < trace_.events.size(); ++i) {
      const TraceEvent& e = trace_.events[i];
      if (!IsHostKind(e.kind) || e.dur_ns <= 0) continue;
      const std::string_view name = trace_.Name(e);
      const bool matches = range.empty() ? e.kind == EventKind::kUserAnnotation &&
                                               name.rfind("ProfilerStep#", 0) == 0
                                         : name.find(range) != std::string_view::npos;
      if (matches && (chosen < 0 || e.ts_ns >= trace_.events[chosen].ts_ns)) chosen = i;
    }
    if (chosen < 0 && !range.empty()) {
      path_.window = std::string(range);
      return false;
    }
    if (chosen < 0) {
      // No steps: from the first GPU op's launch (after the start-up, whose CUDA context creation
      // can take seconds) to the end; the whole trace when it has no GPU op.
      path_.window = "whole trace";
      for (const TraceEvent& e : trace_.events) {  // in start order
        if (!IsGpuOp(e.kind)) continue;
        const int64_t launch = launches_.Find(e.correlation);
        window_begin_ = launch >= 0 ? std::min(e.ts_ns, trace_.events[launch].ts_ns) : e.ts_ns;
        path_.window = "first GPU launch to the end";
        break;
      }
      return true;
    }
    const TraceEvent& w = trace_.events[chosen];
    path_.window = std::string(trace_.Name(w));
    window_begin_ = w.ts_ns;
    window_end_ = w.end_ns();
    return true;
  }

  // Indexes only what the walk can reach: events ending after the window's start (and host events
  // starting before its end), so a one-step window costs little on a long trace.
  void Index() {
    const auto& events = trace_.events;
    visited_.assign(events.size(), false);
    std::unordered_map<uint64_t, uint32_t> last_on_stream;  // (device, stream) -> latest op so far
    std::vector<std::vector<uint32_t>> thread_events;
    for (uint32_t i = 0; i < events.size(); ++i) {  // in start order
      const TraceEvent& e = events[i];
      if (e.end_ns() <= window_begin_) continue;
      if (IsGpuOp(e.kind)) {
        const uint64_t stream =
            (uint64_t{static_cast<uint32_t>(e.device)} << 32) | static_cast<uint32_t>(e.stream);
        auto [last, first] = last_on_stream.try_emplace(stream, i);
        if (!first) {
          gpu_prev_.emplace(i, last->second);
          last->second = i;
        }
        if (e.dur_ns <= 0) continue;
        gpu_by_end_.push_back({e.end_ns(), i});
        if (e.correlation >= 0) gpu_by_correlation_.emplace(e.correlation, i);
      } else if (e.kind == EventKind::kSync && e.correlation >= 0 && e.stream >= 0) {
        sync_stream_.emplace(e.correlation, e.stream);
      } else if (IsHostKind(e.kind) && e.dur_ns > 0 && e.ts_ns < window_end_) {
        const size_t thread = ThreadOf(e);
        if (thread >= thread_events.size()) thread_events.resize(thread + 1);
        thread_events[thread].push_back(i);
      }
    }
    std::sort(gpu_by_end_.begin(), gpu_by_end_.end());
    threads_.resize(thread_events.size());
    for (size_t t = 0; t < thread_events.size(); ++t) {
      threads_[t] = FlattenThread(trace_, thread_events[t]);
    }
  }

  size_t ThreadOf(const TraceEvent& e) {
    const uint64_t key =
        (uint64_t{static_cast<uint32_t>(e.pid)} << 32) | static_cast<uint32_t>(e.tid);
    auto [it, added] = thread_ids_.emplace(key, thread_ids_.size());
    return it->second;
  }

  // The GPU op ending last in (after, until], not yet on the path, on `stream` when >= 0.
  int64_t LatestGpuEnd(int64_t after, int64_t until, int32_t stream) const {
    auto it =
        std::upper_bound(gpu_by_end_.begin(), gpu_by_end_.end(), std::make_pair(until, UINT32_MAX));
    while (it != gpu_by_end_.begin()) {
      --it;
      if (it->first <= after) break;
      const TraceEvent& g = trace_.events[it->second];
      if (visited_[it->second] || (stream >= 0 && g.stream != stream)) continue;
      return static_cast<int64_t>(it->second);
    }
    return -1;
  }

  // For a blocking host call: the GPU op whose end it waited for, or -1.
  int64_t AwaitedGpuOp(const TraceEvent& call, int64_t t) const {
    if (call.kind != EventKind::kRuntime && call.kind != EventKind::kDriver) return -1;
    const std::string_view name = trace_.Name(call);
    if (name.find("Synchronize") != std::string_view::npos) {
      // cudaEventSynchronize: the op the event was recorded after, when the trace says which.
      if (auto event = event_waits_.host.find(call.correlation); event != event_waits_.host.end()) {
        const TraceEvent& g = trace_.events[event->second];
        if (!visited_[event->second] && g.end_ns() > call.ts_ns && g.end_ns() <= t) {
          return event->second;
        }
      }
      int32_t stream = -1;
      if (auto it = sync_stream_.find(call.correlation); it != sync_stream_.end()) {
        stream = it->second;
      }
      return LatestGpuEnd(call.ts_ns, t, stream);
    }
    if (name.find("Launch") != std::string_view::npos || call.correlation < 0) return -1;
    // A copy or memset call that returned after its GPU op ended waited for it.
    auto it = gpu_by_correlation_.find(call.correlation);
    if (it == gpu_by_correlation_.end() || visited_[it->second]) return -1;
    const TraceEvent& g = trace_.events[it->second];
    return g.end_ns() > call.ts_ns && g.end_ns() <= t ? static_cast<int64_t>(it->second) : -1;
  }

  void GpuStep(uint32_t op, int64_t* t, Place* place, int64_t* where) {
    const TraceEvent& g = trace_.events[op];
    visited_[op] = true;
    ++path_.gpu_ops;
    const KernelClass kind = classes_.Of(g);
    const PathCategory category = kind == KernelClass::kComm     ? PathCategory::kGpuComm
                                  : kind == KernelClass::kMemory ? PathCategory::kGpuMemory
                                                                 : PathCategory::kGpuCompute;
    Charge(g.ts_ns, *t, category, g.name);
    *t = g.ts_ns;
    int64_t launch = launches_.Find(g.correlation);
    if (launch >= 0 && trace_.events[launch].ts_ns > g.ts_ns) launch = -1;  // clock skew
    const auto prev_it = gpu_prev_.find(op);
    const int64_t prev = prev_it == gpu_prev_.end() ? -1 : static_cast<int64_t>(prev_it->second);
    const bool stream_busy =
        prev >= 0 && (launch < 0 || trace_.events[prev].end_ns() > trace_.events[launch].ts_ns);
    // A cudaStreamWaitEvent held the op until an op of another stream ended: that op is the
    // predecessor when it ended after the launch and after the stream's previous op.
    if (auto source = event_waits_.gpu.find(op); source != event_waits_.gpu.end()) {
      const TraceEvent& k = trace_.events[source->second];
      const int64_t ready = k.end_ns();
      if (!visited_[source->second] && ready <= g.ts_ns &&
          (launch < 0 || ready > trace_.events[launch].ts_ns) &&
          (!stream_busy || visited_[prev] || ready >= trace_.events[prev].end_ns())) {
        Charge(ready, g.ts_ns, PathCategory::kStreamWait, 0);
        *t = ready;
        *where = source->second;
        *place = Place::kGpu;
        return;
      }
    }
    if (stream_busy && !visited_[prev]) {
      const int64_t prev_end = std::min(trace_.events[prev].end_ns(), g.ts_ns);
      Charge(prev_end, g.ts_ns, PathCategory::kGpuGap, 0);
      *t = prev_end;
      *where = prev;
      *place = Place::kGpu;
      return;
    }
    if (launch >= 0) {
      const TraceEvent& call = trace_.events[launch];
      Charge(call.ts_ns, g.ts_ns, PathCategory::kKernelLaunch, call.name);
      *t = call.ts_ns;
      *where = static_cast<int64_t>(ThreadOf(call));
      *place = Place::kHost;
      return;
    }
    *place = Place::kDone;
  }

  void HostStep(size_t thread, int64_t* t, Place* place, int64_t* where) {
    static const std::vector<Segment> kNone;
    const std::vector<Segment>& segments = thread < threads_.size() ? threads_[thread] : kNone;
    if (segments.empty() || *t <= segments.front().begin) {
      *place = Place::kDone;
      return;
    }
    if (*t > segments.back().end) {
      Charge(segments.back().end, *t, PathCategory::kCpuUntraced, 0);
      *t = segments.back().end;
      return;
    }
    // The segment holding the instant just before t.
    auto it = std::partition_point(segments.begin(), segments.end(),
                                   [&](const Segment& s) { return s.begin < *t; });
    const Segment& segment = *std::prev(it);
    if (segment.event < 0) {
      Charge(segment.begin, *t, PathCategory::kCpuUntraced, 0);
      *t = segment.begin;
      return;
    }
    const TraceEvent& e = trace_.events[segment.event];
    if (const int64_t awaited = AwaitedGpuOp(e, *t); awaited >= 0) {
      const int64_t done = trace_.events[awaited].end_ns();
      Charge(done, *t, PathCategory::kSyncWakeup, e.name);
      *t = done;
      *where = awaited;
      *place = Place::kGpu;
      return;
    }
    const bool runtime = e.kind == EventKind::kRuntime || e.kind == EventKind::kDriver;
    Charge(segment.begin, *t, runtime ? PathCategory::kCpuRuntime : PathCategory::kCpuOp, e.name);
    *t = segment.begin;
  }

  // name 0: no event (untraced host time, a gap between the ops of a stream).
  void Charge(int64_t from, int64_t to, PathCategory category, uint32_t name) {
    from = std::max(from, window_begin_);
    if (to <= from) return;
    ++path_.steps;
    path_.category_ns[static_cast<int>(category)] += to - from;
    items_[{name, static_cast<int>(category)}] += to - from;
  }

  void Finish() {
    for (int c = 0; c < kPathCategories; ++c) {
      if (IsHostCategory(static_cast<PathCategory>(c))) path_.host_ns += path_.category_ns[c];
    }
    for (const auto& [key, ns] : items_) {
      CriticalPathItem item;
      item.category = static_cast<PathCategory>(key.second);
      if (key.first != 0) {
        item.name = std::string(trace_.strings.Get(key.first));
      } else {
        item.name = item.category == PathCategory::kGpuGap       ? "(between ops of a stream)"
                    : item.category == PathCategory::kStreamWait ? "(after another stream's op)"
                                                                 : "(untraced)";
      }
      item.ns = ns;
      path_.top.push_back(std::move(item));
    }
    std::stable_sort(path_.top.begin(), path_.top.end(),
                     [](const auto& a, const auto& b) { return a.ns > b.ns; });
    if (path_.top.size() > top_k_) path_.top.resize(top_k_);
    if (path_.length_ns <= 0) {
      path_.verdict = "empty";
    } else if (2 * path_.host_ns > path_.length_ns) {
      path_.verdict = "host-bound";
    } else {
      const int64_t compute = path_.category_ns[static_cast<int>(PathCategory::kGpuCompute)];
      const int64_t comm = path_.category_ns[static_cast<int>(PathCategory::kGpuComm)];
      const int64_t memory = path_.category_ns[static_cast<int>(PathCategory::kGpuMemory)];
      path_.verdict = compute >= comm && compute >= memory ? "gpu-compute-bound"
                      : comm >= memory                     ? "gpu-communication-bound"
                                                           : "gpu-memory-bound";
    }
  }

  const Trace& trace_;
  size_t top_k_;
  int64_t window_begin_ = INT64_MIN;
  int64_t window_end_ = INT64_MAX;
  KernelClassCache classes_;
  CriticalPath path_;
  std::unordered_map<uint32_t, uint32_t> gpu_prev_;  // GPU op -> the op before it on its stream
  std::vector<bool> visited_;
  internal::LaunchIndex launches_;
  internal::EventWaits event_waits_;
  std::vector<std::pair<int64_t, uint32_t>> gpu_by_end_;
  std::unordered_map<int64_t, uint32_t> gpu_by_correlation_;
  std::unordered_map<int64_t, int32_t> sync_stream_;
  std::unordered_map<uint64_t, size_t> thread_ids_;
  std::vector<std::vector<Segment>> threads_;
  std::map<std::pair<uint32_t, int>, int64_t> items_;
};

}  // namespace

std::string_view PathCategoryName(PathCategory category) {
  switch (category) {
    case PathCategory::kCpuOp:
      return "cpu_ops";
    case PathCategory::kCpuRuntime:
      return "cpu_runtime";
    case PathCategory::kCpuUntraced:
      return "cpu_untraced";
    case PathCategory::kKernelLaunch:
      return "kernel_launch";
    case PathCategory::kSyncWakeup:
      return "sync_wakeup";
    case PathCategory::kGpuCompute:
      return "gpu_compute";
    case PathCategory::kGpuComm:
      return "gpu_communication";
    case PathCategory::kGpuMemory:
      return "gpu_memory";
    case PathCategory::kGpuGap:
      return "gpu_gap";
    case PathCategory::kStreamWait:
      return "stream_wait";
  }
  return "unknown";
}

bool IsHostCategory(PathCategory category) {
  return category == PathCategory::kCpuOp || category == PathCategory::kCpuRuntime ||
         category == PathCategory::kCpuUntraced || category == PathCategory::kKernelLaunch ||
         category == PathCategory::kSyncWakeup;
}

CriticalPath ComputeCriticalPath(const Trace& trace, size_t top_k, std::string_view range) {
  return Walker(trace, top_k).Run(range);
}

}  // namespace xpuperf::trace
