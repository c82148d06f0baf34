#include "thread_buffers.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "name_text.h"

namespace xpuperf::tracer::detail {

std::atomic<uint32_t> g_state{0};
__thread ThreadBuffer* tls_buffer __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

std::atomic<Chunk*> pending_head{nullptr};
std::atomic<size_t> pending_count{0};
std::atomic<size_t> max_pending{1};
std::atomic<void (*)()> wake_flusher{nullptr};
std::atomic<uint64_t> dropped{0};

// Set when the thread's buffer has been freed at thread exit: a range that ends in a later
// thread_local destructor is dropped rather than creating a buffer nobody frees.
__thread bool tls_buffer_freed = false;

struct Registry {
  std::mutex mutex;
  std::vector<OwnedBuffer*> buffers;
  std::vector<std::pair<uint32_t, std::string>> names;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: threads may exit after main
  return *registry;
}

void Wake() {
  if (void (*wake)() = wake_flusher.load(std::memory_order_acquire)) wake();
}

void PushPending(Chunk* chunk) {
  chunk->next = pending_head.load(std::memory_order_relaxed);
  while (!pending_head.compare_exchange_weak(chunk->next, chunk, std::memory_order_release,
                                             std::memory_order_relaxed)) {
  }
  const size_t waiting = pending_count.fetch_add(1, std::memory_order_relaxed) + 1;
  if (waiting * 2 >= max_pending.load(std::memory_order_relaxed)) Wake();
}

void CountDropped() { dropped.fetch_add(1, std::memory_order_relaxed); }

// Written chunks are kept for reuse: a fresh chunk would cost the recording thread eight page
// faults (32 KiB of untouched memory), several times the cost of the 1024 events it holds. Taken
// and returned once per chunk, so a mutex is cheap here.
struct ChunkPool {
  static constexpr size_t kMaxFree = 256;  // 8 MiB
  std::mutex mutex;
  std::vector<Chunk*> free;
};

ChunkPool& Pool() {
  static ChunkPool* pool = new ChunkPool();  // never destroyed, like the registry
  return *pool;
}

Chunk* AcquireChunk() {
  ChunkPool& pool = Pool();
  {
    std::lock_guard lock(pool.mutex);
    if (!pool.free.empty()) {
      Chunk* chunk = pool.free.back();
      pool.free.pop_back();
      return chunk;
    }
  }
  return new (std::nothrow) Chunk;
}

void RecycleChunk(Chunk* chunk) {
  ChunkPool& pool = Pool();
  {
    std::lock_guard lock(pool.mutex);
    if (pool.free.size() < ChunkPool::kMaxFree) {
      try {
        pool.free.push_back(chunk);
        return;
      } catch (...) {
      }
    }
  }
  delete chunk;
}

// Frees a thread's buffer at thread exit; its unwritten events go to the flusher.
struct BufferOwner {
  OwnedBuffer* buffer = nullptr;
  ~BufferOwner() {
    if (buffer == nullptr) return;
    Registry& registry = GetRegistry();
    std::lock_guard registry_lock(registry.mutex);
    {
      std::lock_guard lock(buffer->mutex);
      Chunk* chunk = buffer->chunk;
      const uint32_t committed = buffer->committed.load(std::memory_order_acquire);
      // Handed off whatever session it belongs to: a thread that exits while Stop() is draining
      // (g_state already 0, the flusher not yet done) would otherwise lose its last events, and
      // a thread joined without waiting for its exit (Python's threading) often does. Chunks of
      // a session already ended are released by the next WritePending (it compares states).
      if (chunk != nullptr && buffer->state != 0 && committed > buffer->flushed) {
        chunk->state = buffer->state;
        chunk->tid = buffer->tid;
        chunk->from = buffer->flushed;
        chunk->to = committed;
        PushPending(chunk);  // over the budget at most once per thread
      } else if (chunk != nullptr) {
        RecycleChunk(chunk);
      }
      buffer->chunk = nullptr;
    }
    std::erase(registry.buffers, buffer);
    tls_buffer = nullptr;
    tls_buffer_freed = true;
    delete buffer;
  }
};

OwnedBuffer* NewBuffer() noexcept {
  try {
    thread_local BufferOwner owner;
    auto buffer = std::make_unique<OwnedBuffer>();
    buffer->tid = CurrentThreadId();
    Registry& registry = GetRegistry();
    {
      std::lock_guard lock(registry.mutex);
      registry.buffers.push_back(buffer.get());
    }
    owner.buffer = buffer.release();
    tls_buffer = owner.buffer;
    return owner.buffer;
  } catch (...) {
    return nullptr;
  }
}

// Makes `buffer` ready to take `slots` more slots for session `state`: resets it on a new
// session, hands a full chunk to the flusher. False (event to drop) when the pending budget is
// used up or memory runs out. Called with the buffer's mutex held.
bool MakeRoom(OwnedBuffer& buffer, uint32_t state, uint32_t slots) {
  if (buffer.state != state) {
    // The thread's first event of this session: whatever the chunk holds is from an earlier one.
    if (buffer.chunk == nullptr) buffer.chunk = AcquireChunk();
    if (buffer.chunk == nullptr) return false;
    buffer.events = buffer.chunk->events;
    buffer.capacity = kChunkEvents;
    buffer.committed.store(0, std::memory_order_relaxed);
    buffer.flushed = 0;
    buffer.state = state;
  }
  const uint32_t used = buffer.committed.load(std::memory_order_relaxed);
  if (used + slots <= buffer.capacity) return true;
  if (used > buffer.flushed) {
    if (pending_count.load(std::memory_order_relaxed) >=
        max_pending.load(std::memory_order_relaxed)) {
      Wake();
      return false;
    }
    Chunk* fresh = AcquireChunk();
    if (fresh == nullptr) return false;
    Chunk* full = buffer.chunk;
    full->state = state;
    full->tid = buffer.tid;
    full->from = buffer.flushed;
    full->to = used;
    PushPending(full);
    buffer.chunk = fresh;
    buffer.events = fresh->events;
  }
  // else every event of the chunk has been written already: reuse it.
  buffer.committed.store(0, std::memory_order_relaxed);
  buffer.flushed = 0;
  return true;
}

void WriteAt(ThreadBuffer& buffer, uint32_t at, const Event& event, std::string_view name) {
  buffer.events[at] = event;
  buffer.events[at].name_bytes = static_cast<uint32_t>(name.size());
  if (!name.empty()) std::memcpy(&buffer.events[at + 1], name.data(), name.size());
  buffer.committed.store(at + 1 + NameSlots(static_cast<uint32_t>(name.size())),
                         std::memory_order_release);
}

}  // namespace

void AppendSlow(uint32_t state, const Event& event, std::string_view name) noexcept {
  if (tls_buffer_freed) return;
  auto* buffer = static_cast<OwnedBuffer*>(tls_buffer);
  if (buffer == nullptr && (buffer = NewBuffer()) == nullptr) return CountDropped();
  name = TruncateUtf8(name, kMaxDynamicNameBytes);
  std::lock_guard lock(buffer->mutex);
  // A range that began in a session that has ended since: not part of any trace.
  if (g_state.load(std::memory_order_relaxed) != state) return;
  if (!MakeRoom(*buffer, state, 1 + NameSlots(static_cast<uint32_t>(name.size())))) {
    return CountDropped();
  }
  WriteAt(*buffer, buffer->committed.load(std::memory_order_relaxed), event, name);
}

void AppendNamed(uint32_t state, const Event& event, std::string_view name) noexcept {
  ThreadBuffer* buffer = tls_buffer;
  if (buffer != nullptr && buffer->state == state && name.size() <= kMaxDynamicNameBytes) {
    const uint32_t used = buffer->committed.load(std::memory_order_relaxed);
    if (used + 1 + NameSlots(static_cast<uint32_t>(name.size())) <= buffer->capacity) {
      return WriteAt(*buffer, used, event, name);
    }
  }
  AppendSlow(state, event, name);
}

void ConfigureHandOff(size_t max_pending_chunks, void (*wake)()) {
  max_pending.store(std::max<size_t>(max_pending_chunks, 1), std::memory_order_relaxed);
  wake_flusher.store(wake, std::memory_order_release);
}

Chunk* TakePendingChunks() {
  Chunk* stack = pending_head.exchange(nullptr, std::memory_order_acquire);
  Chunk* fifo = nullptr;  // the stack is newest first
  while (stack != nullptr) {
    Chunk* next = stack->next;
    stack->next = fifo;
    fifo = stack;
    stack = next;
  }
  return fifo;
}

void ReleasePendingChunk(Chunk* chunk) {
  RecycleChunk(chunk);
  pending_count.fetch_sub(1, std::memory_order_relaxed);
}

uint64_t DroppedEventCount() { return dropped.load(std::memory_order_relaxed); }
void ResetDroppedEvents() { dropped.store(0, std::memory_order_relaxed); }

void ForEachBuffer(const std::function<void(OwnedBuffer&)>& fn) {
  Registry& registry = GetRegistry();
  std::lock_guard registry_lock(registry.mutex);
  for (OwnedBuffer* buffer : registry.buffers) {
    std::lock_guard lock(buffer->mutex);
    fn(*buffer);
  }
}

std::vector<std::pair<uint32_t, std::string>> ThreadNames() {
  Registry& registry = GetRegistry();
  std::lock_guard lock(registry.mutex);
  return registry.names;
}

void SetCurrentThreadName(std::string_view name) {
  const uint32_t tid = CurrentThreadId();
  Registry& registry = GetRegistry();
  std::lock_guard lock(registry.mutex);
  for (auto& [id, text] : registry.names) {
    if (id == tid) {
      text = std::string(name);
      return;
    }
  }
  registry.names.emplace_back(tid, std::string(name));
}

uint32_t CurrentThreadId() {
  static thread_local const uint32_t tid = static_cast<uint32_t>(gettid());
  return tid;
}

}  // namespace xpuperf::tracer::detail
