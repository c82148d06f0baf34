// Per-thread event buffers and the hand-off of full chunks to the flusher. Internal.
//
// Ownership: a thread's current chunk belongs to the thread; the flusher may copy its committed
// events under the buffer's mutex (and advances `flushed`). A full chunk is pushed on a lock-free
// stack and belongs to the flusher from then on. A thread's slow path and the flusher take a
// buffer's mutex; the fast path (hot_path.h) takes none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "xpuperf/tracer/detail/hot_path.h"

namespace xpuperf::tracer::detail {

struct Chunk {
  Event events[kChunkEvents];
  Chunk* next = nullptr;  // pending stack / FIFO link
  uint32_t state = 0;     // session the events belong to
  uint32_t tid = 0;
  uint32_t from = 0;  // events [from, to) are still to be written
  uint32_t to = 0;
};

struct OwnedBuffer : ThreadBuffer {
  std::mutex mutex;
  Chunk* chunk = nullptr;
  uint32_t flushed = 0;  // events [0, flushed) of `chunk` are written (guarded by mutex)
  uint32_t tid = 0;
};

// Session-wide settings of the hand-off, set by Start() before recording is enabled.
// `wake` is called (from a recording thread) when half of the pending budget is used.
void ConfigureHandOff(size_t max_pending_chunks, void (*wake)());
// The handed-off chunks, oldest first (each thread's chunks stay in the order it filled them).
Chunk* TakePendingChunks();
// Frees a chunk the flusher has written and returns its budget.
void ReleasePendingChunk(Chunk* chunk);
// Events dropped since the last ResetDroppedEvents().
uint64_t DroppedEventCount();
void ResetDroppedEvents();

// Calls fn for every live thread buffer, with its mutex held, under the registry lock (threads
// cannot start or exit meanwhile).
void ForEachBuffer(const std::function<void(OwnedBuffer&)>& fn);
// Names given with SetThreadName, by thread id.
std::vector<std::pair<uint32_t, std::string>> ThreadNames();
void SetCurrentThreadName(std::string_view name);
// The calling thread's kernel thread id.
uint32_t CurrentThreadId();

}  // namespace xpuperf::tracer::detail
