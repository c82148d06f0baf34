// xpuperf's tracer: ranges, counters and instant events from native code, written as Chrome-trace
// JSON that Perfetto, chrome://tracing and `xpuperf analyze` open.
//
//   xpuperf::tracer::Options options;
//   options.path = "trace.json";
//   xpuperf::tracer::Start(options);
//   { XPUPERF_SCOPE("load_batch"); ... }          // a complete ("X") event on this thread
//   XPUPERF_COUNTER("queue_depth", depth);         // a counter ("C") sample
//   xpuperf::tracer::Stop();                       // trace.json appears, complete, at once
//
// Cost: while tracing is off, a scope is one relaxed atomic load and a branch. While it is on, a
// static-name scope reads the CPU's time-stamp counter twice and writes one 32-byte event into a
// per-thread chunk, with no lock and no allocation (docs/PERFORMANCE.md has the figures). Full
// chunks go to a background thread that writes the JSON; when it falls behind and the unwritten
// events reach Options::max_pending_bytes, new events are dropped and counted, and the count is in
// the trace's metadata ("dropped_events").
//
// Events of a thread appear in the file in the order they complete (a range after the ranges
// nested in it); viewers and `xpuperf analyze` order them by timestamp.
//
// Thread-safety: every function and macro here may be called from any thread. Start, Stop and
// Flush are serialised with each other.
#pragma once

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"
#include "xpuperf/tracer/detail/hot_path.h"

namespace xpuperf::tracer {

struct Options {
  // Where the trace goes, under xpuperf's output policy (docs/POLICIES.md): events are streamed
  // to a temporary ".<name>.tmp-<pid>-<n>" next to the file and renamed to `path` by Stop(), so
  // `path` never holds a partial trace; a link is followed; a device or FIFO is written directly;
  // a directory, dangling link or missing directory is refused by Start.
  std::string path;
  // process_name metadata of the trace (viewers show it as the process's title).
  std::string process_name = "xpuperf";
  // Bound on memory held by events recorded but not yet written (handed-off chunks), in bytes.
  // Each recording thread also holds one 32 KiB chunk of its own.
  size_t max_pending_bytes = size_t{64} << 20;
  // How often the background thread writes handed-off chunks when not woken earlier, in ms. It is
  // woken as soon as half of max_pending_bytes is waiting.
  int flush_interval_ms = 100;
  // Also record every range's duration into Recorder::Global()'s op_execution_time_seconds (label
  // op = the range's name) on `device`.
  bool record_op_distribution = false;
  std::string device = "cpu0";
};

// What a finished session wrote.
struct Summary {
  std::string path;
  uint64_t events_written = 0;  // trace events, metadata events not included
  uint64_t dropped_events = 0;  // recorded while the unwritten-memory bound was reached
};

// Starts a session: opens the temporary file and the background writer. Fails with
// kInvalidArgument when a session is already running or the options are bad, kIo when the file
// cannot be created. The first Start of a process takes ~10 ms to measure the tick rate.
Status Start(const Options& options);
// Ends the session: stops recording, writes every recorded event and the metadata, and renames
// the file into place. Ranges still open on other threads are not written. Fails with
// kInvalidArgument when no session runs, kIo when writing fails (the partial file is removed).
Result<Summary> Stop();
// Writes every event recorded so far (on all threads) to the temporary file and flushes it to the
// OS. The trace stays unfinished until Stop().
Status Flush();
// Whether a session is recording.
inline bool Enabled() noexcept { return detail::g_state.load(std::memory_order_relaxed) != 0; }
// Events dropped so far in the running (or else the last) session.
uint64_t DroppedEvents() noexcept;
// Names the calling thread in traces (thread_name metadata); kept for later sessions too.
void SetThreadName(std::string_view name);

// A static name and category of events, with what the recorder needs to find its series. Define
// with static storage duration (the macros below do); the strings must outlive every session.
struct Site {
  constexpr Site(const char* site_name, const char* site_category = nullptr) noexcept
      : name(site_name), category(site_category) {}
  const char* name;
  const char* category;  // null: "cpu_op"
  // The recorder series of this site for the current session (tracer.cpp).
  mutable std::atomic<const void*> op_series{nullptr};
};

// A range with a static name: one complete ("X") event from construction to destruction.
class Scope {
 public:
  explicit Scope(const Site& site) noexcept : site_(&site) {
    state_ = detail::g_state.load(std::memory_order_relaxed);
    if (state_ != 0) [[unlikely]]
      begin_ = detail::NowTicks();
  }
  ~Scope() {
    if (state_ != 0) [[unlikely]]
      End();
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  void End() noexcept {
    const uint64_t end = detail::NowTicks();
    detail::Append(state_, begin_, end, site_, detail::EventKind::kComplete);
    if (state_ & detail::kRecordOpsBit) detail::RecordOpDuration(site_, end - begin_);
  }
  const Site* site_;
  uint64_t begin_ = 0;
  uint32_t state_;
};

// A range whose name is built at run time: the name is copied (into the scope, then into the
// trace buffer), so it may be a temporary. Costs a copy of the name more than Scope.
class DynamicScope {
 public:
  explicit DynamicScope(std::string_view name, const char* category = nullptr);
  ~DynamicScope();
  DynamicScope(const DynamicScope&) = delete;
  DynamicScope& operator=(const DynamicScope&) = delete;

 private:
  std::string name_;
  const char* category_;
  uint64_t begin_ = 0;
  uint32_t state_;
};

// A counter sample ("C" event, args {"value": value}). Non-finite values are not recorded (JSON
// has no NaN or infinity).
inline void Counter(const Site& site, double value) noexcept {
  const uint32_t state = detail::g_state.load(std::memory_order_relaxed);
  if (state != 0 && std::isfinite(value)) [[unlikely]] {
    detail::Append(state, detail::NowTicks(), std::bit_cast<uint64_t>(value), &site,
                   detail::EventKind::kCounter);
  }
}
// A counter sample with a run-time name (copied).
void Counter(std::string_view dynamic_name, double value) noexcept;
// An instant ("i", thread scope) event.
inline void Instant(const Site& site) noexcept {
  const uint32_t state = detail::g_state.load(std::memory_order_relaxed);
  if (state != 0) [[unlikely]]
    detail::Append(state, detail::NowTicks(), 0, &site, detail::EventKind::kInstant);
}
void Instant(std::string_view dynamic_name, const char* category = nullptr) noexcept;

// Begin/end pairs on the calling thread, for callers that cannot hold a scope object (the C ABI):
// EndRange() closes the innermost open BeginRange() of this thread. Names are copied. An
// EndRange() without an open range does nothing.
void BeginRange(std::string_view name, const char* category = nullptr) noexcept;
void EndRange() noexcept;

}  // namespace xpuperf::tracer

#define XPUPERF_TRACER_CONCAT_INNER_(a, b) a##b
#define XPUPERF_TRACER_CONCAT_(a, b) XPUPERF_TRACER_CONCAT_INNER_(a, b)
#define XPUPERF_TRACER_ID_(prefix) XPUPERF_TRACER_CONCAT_(prefix, __LINE__)

// XPUPERF_SCOPE("name") or XPUPERF_SCOPE("name", "category"): a range until the end of the
// enclosing block. Arguments must be string literals (or other static strings). The category is
// "cpu_op" unless given; "user_annotation" with names "ProfilerStep#N" marks iterations for
// `xpuperf analyze`, as PyTorch's profiler does.
#define XPUPERF_SCOPE(...)                                                                       \
  static constinit ::xpuperf::tracer::Site XPUPERF_TRACER_ID_(xpuperf_trace_site_){__VA_ARGS__}; \
  ::xpuperf::tracer::Scope XPUPERF_TRACER_ID_(xpuperf_trace_scope_)(                             \
      XPUPERF_TRACER_ID_(xpuperf_trace_site_))
// XPUPERF_SCOPE_DYNAMIC(name) or (name, "category"): a range named by a run-time string.
#define XPUPERF_SCOPE_DYNAMIC(...) \
  ::xpuperf::tracer::DynamicScope XPUPERF_TRACER_ID_(xpuperf_trace_scope_)(__VA_ARGS__)
// XPUPERF_COUNTER("name", value): one sample of a counter track.
#define XPUPERF_COUNTER(name, value)                                                     \
  do {                                                                                   \
    static constinit ::xpuperf::tracer::Site xpuperf_trace_counter_site_{name};          \
    ::xpuperf::tracer::Counter(xpuperf_trace_counter_site_, static_cast<double>(value)); \
  } while (false)
// XPUPERF_INSTANT("name") or ("name", "category"): a point in time on this thread.
#define XPUPERF_INSTANT(...)                                                           \
  do {                                                                                 \
    static constinit ::xpuperf::tracer::Site xpuperf_trace_instant_site_{__VA_ARGS__}; \
    ::xpuperf::tracer::Instant(xpuperf_trace_instant_site_);                           \
  } while (false)
