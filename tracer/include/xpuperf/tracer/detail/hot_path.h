// Internals of the tracer's recording path, inline so that a scope costs two clock reads and four
// stores. Not part of the API: use xpuperf/tracer/tracer.h.
//
// Each recording thread owns a ThreadBuffer that points into a fixed-size chunk of events. Only
// the owner writes events; it publishes them by a release store of `committed`, so the flusher
// thread may copy [flushed, committed) at any time without a lock. A full chunk is handed to the
// flusher (lock-free push) and replaced; see thread_buffers.cpp.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "xpuperf/tracer/detail/ticks.h"

namespace xpuperf::tracer {

struct Site;

namespace detail {

inline constexpr uint32_t kChunkEvents = 1024;  // 32 KiB per chunk
// Longest dynamic name kept, in bytes; longer names are cut at a UTF-8 character boundary.
inline constexpr uint32_t kMaxDynamicNameBytes = 4000;

enum class EventKind : uint32_t {
  kComplete,         // ref = const Site*; begin/end ticks
  kCompleteDynamic,  // ref = category (const char*, may be null); name text follows
  kCounter,          // ref = const Site*; begin = ticks; value = double bits
  kInstant,          // ref = const Site*; begin = ticks
  kInstantDynamic,   // ref = category; name text follows
  kCounterDynamic,   // ref unused; begin = ticks; value = double bits; name text follows
};

// One slot of a chunk. A dynamic name is stored as raw bytes in the slots that follow its event.
struct Event {
  uint64_t begin_ticks;
  uint64_t end_ticks_or_value;
  const void* ref;
  EventKind kind;
  uint32_t name_bytes;  // dynamic events: length of the name text that follows
};
static_assert(sizeof(Event) == 32);

// How many slots a dynamic name of `bytes` occupies after its event.
constexpr uint32_t NameSlots(uint32_t bytes) { return (bytes + sizeof(Event) - 1) / sizeof(Event); }

struct Chunk;

struct ThreadBuffer {
  // Owner-written; read by the flusher under `mutex` (see thread_buffers.cpp).
  uint32_t state = 0;     // session state the chunk belongs to (0: none)
  uint32_t capacity = 0;  // slots in `events`
  Event* events = nullptr;
  std::atomic<uint32_t> committed{0};  // slots [0, committed) hold complete events
};

// 0 when tracing is off; otherwise (session number << 1) | kRecordOpsBit. Read with a relaxed load
// by every instrumented scope.
inline constexpr uint32_t kRecordOpsBit = 1;
extern std::atomic<uint32_t> g_state;

// This thread's buffer (null before its first event). A GNU __thread pointer in the initial-exec
// model: one TLS load, no C++ thread_local init wrapper call.
extern __thread ThreadBuffer* tls_buffer __attribute__((tls_model("initial-exec")));

// The slow path of every append: no buffer yet, a new session, a full chunk. Copies `name` (for
// dynamic events) after the event. Never throws; drops (and counts) the event when the bound on
// unwritten memory is reached.
void AppendSlow(uint32_t state, const Event& event, std::string_view name) noexcept;
// Appends an event whose name text (dynamic events) follows it.
void AppendNamed(uint32_t state, const Event& event, std::string_view name) noexcept;

// Feeds op_execution_time_seconds of the recorder (only when the session asked for it).
void RecordOpDuration(const Site* site, uint64_t ticks) noexcept;
void RecordOpDuration(std::string_view name, uint64_t ticks) noexcept;

// Appends one event without a name text. The fields are stored into the slot one by one: building
// an Event on the stack and copying it would load 16 bytes from two 8-byte stores, which the CPU
// cannot forward (a stall of ~10 cycles per load).
[[gnu::always_inline]] inline void Append(uint32_t state, uint64_t begin_ticks,
                                          uint64_t end_ticks_or_value, const void* ref,
                                          EventKind kind) noexcept {
  ThreadBuffer* buffer = tls_buffer;
  if (buffer != nullptr && buffer->state == state) [[likely]] {
    const uint32_t n = buffer->committed.load(std::memory_order_relaxed);
    if (n < buffer->capacity) [[likely]] {
      Event& slot = buffer->events[n];
      slot.begin_ticks = begin_ticks;
      slot.end_ticks_or_value = end_ticks_or_value;
      slot.ref = ref;
      slot.kind = kind;
      slot.name_bytes = 0;
      buffer->committed.store(n + 1, std::memory_order_release);
      return;
    }
  }
  AppendSlow(state, {begin_ticks, end_ticks_or_value, ref, kind, 0}, {});
}

}  // namespace detail
}  // namespace xpuperf::tracer
