// Writes recorded events as Chrome-trace JSON ("JSON Object Format": {"traceEvents": [...], ...}),
// one event per line, timestamps in µs with three decimals (ns resolution) relative to the session
// start. Used by the flusher thread only; not thread-safe. Internal.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "xpuperf/tracer/detail/hot_path.h"

namespace xpuperf::tracer::detail {

// Ticks to ns since the session start.
struct TickConversion {
  uint64_t start_ticks = 0;
  double ns_per_tick = 1.0;
  int64_t ToNs(uint64_t ticks) const;
};

// What the tail of the file says about the session.
struct TraceTail {
  std::string process_name;
  std::vector<std::pair<uint32_t, std::string>> thread_names;
  int64_t base_time_ns = 0;  // CLOCK_REALTIME at the session start: ts 0
  std::string trace_name;
  std::string clock;  // tick source
  double ns_per_tick = 1.0;
  uint64_t dropped_events = 0;
};

class ChromeJsonWriter {
 public:
  ChromeJsonWriter(std::FILE* file, uint32_t pid, TickConversion conversion);

  // Writes the slots [from, to) of a chunk recorded by thread `tid` (dynamic events carry their
  // name in the slots that follow them).
  void WriteEvents(uint32_t tid, const Event* events, uint32_t from, uint32_t to);
  // Metadata events (thread names only of threads with events in this trace), the closing
  // bracket and the top-level keys; the file is then complete.
  void WriteTail(const TraceTail& tail);
  // Hands buffered text to the file (fwrite + fflush). False once any write has failed.
  bool Flush();
  bool ok() const { return ok_; }
  uint64_t events_written() const { return events_written_; }

 private:
  void StartEvent();
  // '{"ph":"X","cat":"...","name":"...","pid":N,"tid":' for a static site, cached.
  const std::string& SitePrefix(const void* site, EventKind kind);
  void AppendPrefix(std::string& out, char phase, std::string_view category, std::string_view name);
  void AppendTimestamp(int64_t ns);
  void AppendUint(uint64_t value);
  void MaybeSpill();

  std::FILE* file_;
  uint32_t pid_;
  TickConversion conversion_;
  std::string buffer_;
  std::unordered_map<const void*, std::string> prefixes_[3];  // complete, counter, instant
  std::unordered_set<uint32_t> tids_;                         // threads with events in this trace
  bool first_event_ = true;
  bool ok_ = true;
  uint64_t events_written_ = 0;
};

}  // namespace xpuperf::tracer::detail
