#include "event_waits.h"

#include <algorithm>
#include <map>
#include <vector>

namespace xpuperf::trace::internal {
namespace {

uint64_t Key(int32_t high, int32_t low) {
  return (uint64_t{static_cast<uint32_t>(high)} << 32) | static_cast<uint32_t>(low);
}

// One GPU op as its launch call placed it: the call's start and thread.
struct Launched {
  int64_t ts_ns;
  uint64_t thread;
  uint32_t op;
  bool operator<(const Launched& other) const { return ts_ns < other.ts_ns; }
};

}  // namespace

EventWaits BuildEventWaits(const Trace& trace, const LaunchIndex& launches) {
  EventWaits waits;
  if (trace.event_waits.empty()) return waits;
  std::unordered_map<uint32_t, const Trace::EventWait*> wait_of;  // file_index -> wait
  for (const Trace::EventWait& wait : trace.event_waits) {
    if (wait.stream >= 0 && wait.record_correlation >= 0) wait_of.emplace(wait.file_index, &wait);
  }
  // (device, stream) -> its GPU ops by their launch call's start.
  std::map<uint64_t, std::vector<Launched>> by_stream;
  for (uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if (!IsGpuOp(e.kind)) continue;
    const int64_t call = launches.Find(e.correlation);
    if (call < 0) continue;
    const TraceEvent& c = trace.events[static_cast<size_t>(call)];
    by_stream[Key(e.device, e.stream)].push_back({c.ts_ns, Key(c.pid, c.tid), i});
  }
  for (auto& [stream, ops] : by_stream) std::stable_sort(ops.begin(), ops.end());
  for (const TraceEvent& e : trace.events) {
    if (e.kind != EventKind::kSync) continue;
    auto found = wait_of.find(e.file_index);
    if (found == wait_of.end()) continue;
    const Trace::EventWait& wait = *found->second;
    // The op the event stands for: the last one launched on the recording stream before the
    // record call.
    const int64_t record = launches.Find(wait.record_correlation);
    auto recorded = by_stream.find(Key(e.device, wait.stream));
    if (record < 0 || recorded == by_stream.end()) continue;
    const int64_t record_ts = trace.events[static_cast<size_t>(record)].ts_ns;
    auto before = std::lower_bound(recorded->second.begin(), recorded->second.end(),
                                   Launched{record_ts, 0, 0});
    if (before == recorded->second.begin()) continue;
    const uint32_t source = std::prev(before)->op;
    if (trace.Name(e) == "Event Sync") {
      if (e.correlation >= 0) waits.host.emplace(e.correlation, source);
      continue;
    }
    if (trace.Name(e) != "Stream Wait Event" || e.stream < 0) continue;
    // The op it holds back: the next one launched on the waiting stream from the waiting call's
    // thread.
    const int64_t call = launches.Find(e.correlation);
    auto waiting = by_stream.find(Key(e.device, e.stream));
    if (call < 0 || waiting == by_stream.end()) continue;
    const TraceEvent& c = trace.events[static_cast<size_t>(call)];
    const uint64_t thread = Key(c.pid, c.tid);
    for (auto next = std::upper_bound(waiting->second.begin(), waiting->second.end(),
                                      Launched{c.ts_ns, 0, 0});
         next != waiting->second.end(); ++next) {
      if (next->thread != thread) continue;
      if (next->op != source) waits.gpu.emplace(next->op, source);
      break;
    }
  }
  return waits;
}

}  // namespace xpuperf::trace::internal
