// Sessions: Start/Stop/Flush, the background flusher thread, and the recorder feed.
#include "xpuperf/tracer/tracer.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "chrome_json_writer.h"
#include "thread_buffers.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/core/recorder.h"

namespace xpuperf::tracer {
namespace detail {
namespace {

// Wakes the flusher. Static (never destroyed) so that a recording thread may signal it at any
// time, even while a session ends.
struct FlusherSignal {
  std::mutex mutex;
  std::condition_variable wake_cv;
  std::condition_variable done_cv;
  std::atomic<bool> wake{false};
  bool stop = false;
  uint64_t flush_requested = 0;
  uint64_t flush_done = 0;
};

FlusherSignal& Signal() {
  static FlusherSignal* signal = new FlusherSignal();
  return *signal;
}

void WakeFlusher() {
  FlusherSignal& signal = Signal();
  signal.wake.store(true, std::memory_order_relaxed);
  signal.wake_cv.notify_one();
}

struct Session {
  Options options;
  uint32_t state = 0;
  // The trace file under the output policy (xpuperf/core/output_file.h): a temporary file next
  // to the target renamed into place by Stop, or a device/FIFO written directly.
  std::optional<OutputFile> output;
  std::FILE* file = nullptr;
  int64_t base_time_ns = 0;
  double ns_per_tick = 1.0;
  std::unique_ptr<ChromeJsonWriter> writer;
  std::atomic<bool> write_ok{true};
  std::thread flusher;
};

std::mutex control_mutex;          // serialises Start, Stop and Flush
std::unique_ptr<Session> session;  // guarded by control_mutex
uint32_t session_counter = 0;      // guarded by control_mutex

// What the recorder feed needs; set by Start() before recording is enabled. Device names are
// kept for the life of the process (one per session), so a recording thread never reads a string
// that Start() is replacing.
std::atomic<double> feed_ns_per_tick{1.0};
std::mutex feed_mutex;
std::deque<std::string> feed_devices;                  // guarded by feed_mutex
std::atomic<const std::string*> feed_device{nullptr};  // the current session's device

// A site's recorder series for one session. Never freed: a recording thread may hold one while a
// session ends (one per site and session).
struct SeriesEntry {
  uint32_t state;
  OpSeries series;
};
std::deque<SeriesEntry> series_entries;  // guarded by feed_mutex

int64_t WallNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Rounded to the nearest ns (a multiply and an add: llround would be a libm call per range).
uint64_t TicksToNs(uint64_t ticks) {
  const double ns = static_cast<double>(ticks) * feed_ns_per_tick.load(std::memory_order_relaxed);
  // NOLINTNEXTLINE(bugprone-incorrect-roundings): ns >= 0, where +0.5 rounds to nearest
  return static_cast<uint64_t>(ns + 0.5);
}

[[gnu::noinline]] const SeriesEntry* FindSeries(const Site* site, uint32_t state) noexcept {
  try {
    std::lock_guard lock(feed_mutex);
    const std::string* device = feed_device.load(std::memory_order_acquire);
    if (device == nullptr) return nullptr;
    const SeriesEntry& entry =
        series_entries.emplace_back(SeriesEntry{state, Recorder::Global().Op(site->name, *device)});
    site->op_series.store(&entry, std::memory_order_release);
    return &entry;
  } catch (...) {
    return nullptr;
  }
}

// The events handed off so far, then (for a flush) what every thread has recorded in its
// current chunk. A thread's hand-offs are written before its current chunk, so each thread's
// events stay in the order it recorded them.
void WritePending(Session& s) {
  for (Chunk* chunk = TakePendingChunks(); chunk != nullptr;) {
    Chunk* next = chunk->next;
    if (chunk->state == s.state)
      s.writer->WriteEvents(chunk->tid, chunk->events, chunk->from, chunk->to);
    ReleasePendingChunk(chunk);
    chunk = next;
  }
}

void WriteCurrentChunks(Session& s) {
  ForEachBuffer([&](OwnedBuffer& buffer) {
    WritePending(s);  // the thread cannot hand off while its mutex is held
    if (buffer.state != s.state) return;
    const uint32_t committed = buffer.committed.load(std::memory_order_acquire);
    if (committed > buffer.flushed) {
      s.writer->WriteEvents(buffer.tid, buffer.events, buffer.flushed, committed);
      buffer.flushed = committed;
    }
  });
}

void FlusherMain(Session* s) {
  FlusherSignal& signal = Signal();
  const auto interval = std::chrono::milliseconds(std::max(s->options.flush_interval_ms, 1));
  std::unique_lock lock(signal.mutex);
  while (true) {
    signal.wake_cv.wait_for(lock, interval, [&] {
      return signal.stop || signal.flush_requested > signal.flush_done ||
             signal.wake.load(std::memory_order_relaxed);
    });
    signal.wake.store(false, std::memory_order_relaxed);
    const bool stop = signal.stop;
    const uint64_t requested = signal.flush_requested;
    const bool flush = requested > signal.flush_done;
    lock.unlock();
    WritePending(*s);
    if (flush || stop) {
      WriteCurrentChunks(*s);
      s->writer->Flush();
    }
    s->write_ok.store(s->writer->ok(), std::memory_order_relaxed);
    lock.lock();
    if (flush) {
      signal.flush_done = requested;
      signal.done_cv.notify_all();
    }
    if (stop) return;
  }
}

Error IoError(std::string_view what, const std::string& path, int error) {
  return MakeError(ErrorCode::kIo, std::string(what) + " " + path + ": " + std::strerror(error));
}

}  // namespace

void RecordOpDuration(const Site* site, uint64_t ticks) noexcept {
  const uint32_t state = g_state.load(std::memory_order_relaxed);
  const auto* entry =
      static_cast<const SeriesEntry*>(site->op_series.load(std::memory_order_acquire));
  if (entry == nullptr || entry->state != state) [[unlikely]] {
    if (state == 0 || (entry = FindSeries(site, state)) == nullptr) return;
  }
  entry->series.RecordNs(static_cast<int64_t>(TicksToNs(ticks)));
}

void RecordOpDuration(std::string_view name, uint64_t ticks) noexcept {
  const std::string* device = feed_device.load(std::memory_order_acquire);
  if (device == nullptr) return;
  try {
    Recorder::Global().RecordOp(name, static_cast<int64_t>(TicksToNs(ticks)), *device);
  } catch (...) {
  }
}

}  // namespace detail

using detail::control_mutex;
using detail::session;

Status Start(const Options& options) {
  std::lock_guard lock(control_mutex);
  if (session) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "a trace session is already running (writing " + session->options.path + ")");
  }
  if (options.path.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "the trace needs an output path");
  }
  auto s = std::make_unique<detail::Session>();
  s->options = options;
  s->ns_per_tick = detail::MeasureNsPerTick();
  Result<OutputFile> output = OutputFile::Open(options.path);
  if (!output.ok()) {
    // Every refusal of the policy is a failure to create the file for the caller (kIo).
    return MakeError(ErrorCode::kIo, output.error().message);
  }
  s->output.emplace(std::move(output).value());
  s->file = s->output->stream();

  s->state = (++detail::session_counter << 1) |
             (options.record_op_distribution ? detail::kRecordOpsBit : 0);
  if (s->state >> 1 == 0) s->state = (++detail::session_counter << 1) | (s->state & 1);
  const uint64_t start_ticks = detail::NowTicks();
  s->base_time_ns = detail::WallNs();
  s->writer = std::make_unique<detail::ChromeJsonWriter>(
      s->file, static_cast<uint32_t>(getpid()),
      detail::TickConversion{start_ticks, s->ns_per_tick});
  {
    std::lock_guard feed_lock(detail::feed_mutex);
    const std::string* current = detail::feed_device.load(std::memory_order_relaxed);
    if (current == nullptr || *current != options.device) {
      detail::feed_device.store(&detail::feed_devices.emplace_back(options.device),
                                std::memory_order_release);
    }
  }
  detail::feed_ns_per_tick.store(s->ns_per_tick, std::memory_order_relaxed);
  detail::ResetDroppedEvents();
  detail::ConfigureHandOff(options.max_pending_bytes / sizeof(detail::Chunk), &detail::WakeFlusher);
  {
    detail::FlusherSignal& signal = detail::Signal();
    std::lock_guard signal_lock(signal.mutex);
    signal.stop = false;
    signal.flush_requested = signal.flush_done = 0;
  }
  try {
    s->flusher = std::thread(detail::FlusherMain, s.get());
  } catch (const std::exception& e) {
    s->output->Abandon();
    return MakeError(ErrorCode::kInternal,
                     std::string("cannot start the trace writer: ") + e.what());
  }
  detail::g_state.store(s->state, std::memory_order_release);
  session = std::move(s);
  return Status::Ok();
}

Result<Summary> Stop() {
  std::lock_guard lock(control_mutex);
  if (!session) return MakeError(ErrorCode::kInvalidArgument, "no trace session is running");
  std::unique_ptr<detail::Session> s = std::move(session);
  detail::g_state.store(0, std::memory_order_release);
  // Let appends already past their check of the state finish before the last read of the
  // buffers (an append takes nanoseconds; one preempted longer is left out of the trace).
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  {
    detail::FlusherSignal& signal = detail::Signal();
    std::lock_guard signal_lock(signal.mutex);
    signal.stop = true;
  }
  detail::Signal().wake_cv.notify_one();
  s->flusher.join();

  detail::TraceTail tail;
  tail.process_name = s->options.process_name;
  tail.thread_names = detail::ThreadNames();
  tail.base_time_ns = s->base_time_ns;
  tail.trace_name = s->options.path;
  tail.clock = detail::TickSourceName();
  tail.ns_per_tick = s->ns_per_tick;
  tail.dropped_events = detail::DroppedEventCount();
  s->writer->WriteTail(tail);
  const bool written = s->writer->Flush();
  if (!written) {
    s->output->Abandon();
    return detail::IoError("cannot write", s->options.path, EIO);
  }
  // Flushes, closes and renames into place; on failure the temporary file is removed.
  if (Status committed = s->output->Commit(); !committed.ok()) return committed.error();
  Summary summary;
  summary.path = s->options.path;
  summary.events_written = s->writer->events_written();
  summary.dropped_events = tail.dropped_events;
  return summary;
}

Status Flush() {
  std::lock_guard lock(control_mutex);
  if (!session) return MakeError(ErrorCode::kInvalidArgument, "no trace session is running");
  detail::FlusherSignal& signal = detail::Signal();
  std::unique_lock signal_lock(signal.mutex);
  const uint64_t request = ++signal.flush_requested;
  signal.wake_cv.notify_one();
  signal.done_cv.wait(signal_lock, [&] { return signal.flush_done >= request; });
  if (!session->write_ok.load(std::memory_order_relaxed)) {
    return detail::IoError("cannot write", session->options.path, EIO);
  }
  return Status::Ok();
}

uint64_t DroppedEvents() noexcept { return detail::DroppedEventCount(); }

void SetThreadName(std::string_view name) { detail::SetCurrentThreadName(name); }

}  // namespace xpuperf::tracer
