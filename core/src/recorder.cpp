#include "xpuperf/core/recorder.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <deque>
#include <limits>
#include <map>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf {

namespace {
// The body of RecorderBucketIndex, inlinable into the record path: the library is built -fPIC,
// where GCC does not inline a call to an exported function (it could be interposed).
inline int BucketIndex(uint64_t ns) {
  if (ns < 8) return static_cast<int>(ns);
  const int e = 63 - std::countl_zero(ns);  // floor(log2(ns)) >= 3
  const int index = 8 * (e - 2) + static_cast<int>((ns >> (e - 3)) & 7);
  return std::min(index, kRecorderFiniteBuckets);
}
}  // namespace

int RecorderBucketIndex(uint64_t ns) { return BucketIndex(ns); }

uint64_t RecorderBucketLowerNs(int index) {
  if (index < 8) return static_cast<uint64_t>(index);
  const int e = index / 8 + 2;
  return (uint64_t{1} << e) + static_cast<uint64_t>(index % 8) * (uint64_t{1} << (e - 3));
}

namespace detail {

// Written by exactly one thread (its owner) and read by Snapshot(); single-writer, so plain
// load/store with relaxed order is enough and avoids locked read-modify-write instructions.
struct Shard {
  std::atomic<uint64_t> count{0};
  std::atomic<uint64_t> sum_ns{0};
  std::atomic<uint64_t> min_ns{std::numeric_limits<uint64_t>::max()};
  std::atomic<uint64_t> max_ns{0};
  std::atomic<uint64_t> buckets[kRecorderBuckets] = {};

  static void Bump(std::atomic<uint64_t>& a, uint64_t by) {
    a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
  void Record(uint64_t ns) {
    Bump(count, 1);
    Bump(sum_ns, ns);
    Bump(buckets[BucketIndex(ns)], 1);
    if (ns < min_ns.load(std::memory_order_relaxed)) min_ns.store(ns, std::memory_order_relaxed);
    if (ns > max_ns.load(std::memory_order_relaxed)) max_ns.store(ns, std::memory_order_relaxed);
  }
  void Clear() {
    count.store(0, std::memory_order_relaxed);
    sum_ns.store(0, std::memory_order_relaxed);
    min_ns.store(std::numeric_limits<uint64_t>::max(), std::memory_order_relaxed);
    max_ns.store(0, std::memory_order_relaxed);
    for (auto& b : buckets) b.store(0, std::memory_order_relaxed);
  }
};

struct Series {
  uint64_t id = 0;  // process-wide unique, indexes the per-thread shard table
  std::string metric;
  std::string device;
  std::string label_key;
  std::string label_value;
  std::mutex mutex;  // guards shards (the list, not the counters)
  std::deque<Shard> shards;

  Shard* NewShard() {
    std::lock_guard lock(mutex);
    return &shards.emplace_back();
  }
  // False for a handle that never recorded and after Reset().
  bool HasData() {
    std::lock_guard lock(mutex);
    return std::any_of(shards.begin(), shards.end(), [](const Shard& shard) {
      return shard.count.load(std::memory_order_relaxed) > 0;
    });
  }
};

}  // namespace detail

namespace {

std::atomic<uint64_t> next_series_id{0};
std::atomic<uint64_t> next_recorder_id{1};

std::string SeriesKey(std::string_view metric, std::string_view device, std::string_view value) {
  std::string key;
  key.reserve(metric.size() + device.size() + value.size() + 2);
  key.append(metric).append(1, '\0').append(device).append(1, '\0').append(value);
  return key;
}

// Power-of-two exponent of the transfer-size bucket of `bytes`: TransferSizeBucket(bytes) is the
// label of 2^exponent. Lets the hot path find a transfer series without building the label text.
uint64_t TransferExponent(uint64_t bytes) {
  return bytes <= 1 ? 0 : std::min<uint64_t>(std::bit_width(bytes - 1), 63);
}

// Last queue depth of one device. Written by any thread (last store wins), read by Snapshot().
// One word on its own cache line, so that a set is one store: when several threads set the same
// device, each set moves one line, and devices never share one.
struct alignas(64) QueueSlot {
  // Before the first SetQueueDepth and after Reset(). A depth of INT64_MIN is stored as
  // INT64_MIN + 1; no queue is that deep either way.
  static constexpr int64_t kNoDepth = std::numeric_limits<int64_t>::min();
  std::atomic<int64_t> depth{kNoDepth};

  bool has_value() const { return depth.load(std::memory_order_relaxed) != kNoDepth; }
};

// Per-thread, direct-mapped cache from (recorder, kind, device, name or exponent) to this thread's
// shard of a series, or to a queue slot, so that RecordOp, RecordTransfer and SetQueueDepth take
// no lock, allocate nothing and touch one thread_local after a thread's first call with a key. A
// miss (first use, or two keys sharing an entry) takes the locked lookup and overwrites the entry.
// Recorder ids are never reused, so an entry of a destroyed recorder never matches again.
enum class CacheKind : uint8_t { kOp, kTransfer, kQueue };

struct CacheEntry {
  uint64_t recorder_id = 0;  // 0: empty or being filled (recorder ids start at 1)
  uint64_t hash = 0;
  uint64_t exponent = 0;  // transfers only
  CacheKind kind = CacheKind::kOp;
  std::string device;
  std::string name;                // op name; empty for transfers and queues
  detail::Shard* shard = nullptr;  // ops and transfers: this thread's shard of the series
  QueueSlot* queue = nullptr;      // queues
};

constexpr size_t kCacheEntries = 128;  // a power of two; ~14 KiB per recording thread

// What a thread keeps for recording: its lookup cache and its shard table (series id -> this
// thread's shard; ids are never reused, so an entry of a destroyed recorder is never looked up
// again). Reached through one pointer in initial-exec TLS: in libxpuperf.so the default
// (global-dynamic) model costs a __tls_get_addr call per access, a quarter of a record through the
// C ABI. Eight bytes of initial-exec TLS also fit when the library is dlopen'ed (glibc keeps a
// surplus of static TLS for such variables); the state itself is on the heap.
struct ThreadState {
  std::array<CacheEntry, kCacheEntries> cache;
  std::vector<detail::Shard*> shards;
  ThreadState* next_late = nullptr;  // see NewThreadState
};

[[gnu::tls_model("initial-exec")]] thread_local ThreadState* tls_state = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local bool tls_state_freed = false;

// Frees a thread's state when the thread exits.
struct ThreadStateOwner {
  std::unique_ptr<ThreadState> state;
  ~ThreadStateOwner() {
    tls_state = nullptr;
    tls_state_freed = true;
  }
};

[[gnu::noinline]] ThreadState& NewThreadState() {
  if (tls_state_freed) {
    // A record from a thread_local destructor that runs after the owner's: the owner cannot be
    // used again, so this state lives until the process ends (once per such thread), on a list
    // that keeps it reachable.
    static std::atomic<ThreadState*> late_states{nullptr};
    auto* state = new ThreadState();
    state->next_late = late_states.load(std::memory_order_relaxed);
    while (!late_states.compare_exchange_weak(state->next_late, state)) {
    }
    tls_state = state;
    return *state;
  }
  thread_local ThreadStateOwner owner;
  owner.state = std::make_unique<ThreadState>();
  tls_state = owner.state.get();
  // NOLINTNEXTLINE(clang-analyzer-cplusplus.NewDelete): owner is thread_local, not freed here
  return *tls_state;
}

[[gnu::always_inline]] inline ThreadState& State() {
  if (ThreadState* state = tls_state) [[likely]]
    return *state;
  return NewThreadState();
}

detail::Shard* ShardFor(detail::Series* series) {
  std::vector<detail::Shard*>& shards = State().shards;
  const uint64_t id = series->id;
  if (id < shards.size()) {
    if (detail::Shard* shard = shards[id]) return shard;
  } else {
    shards.resize(std::max<size_t>(id + 1, shards.size() * 2), nullptr);
  }
  detail::Shard* shard = series->NewShard();
  shards[id] = shard;
  return shard;
}

// Hashing and comparing the short keys of the cache inline, a word at a time: std::hash and
// std::string == call into libstdc++/libc and cost more than the rest of a record together. The
// helpers are forced inline so that the hit path makes no call (GCC otherwise keeps them out of
// line, and the calls cost register saves on every record).
uint64_t Load64(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

uint64_t Load32(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// The last n % 8 bytes of a string of n bytes as one word, read without a byte loop: the final 8
// bytes when n >= 8 (overlapping the previous word), else two overlapping 4-byte reads, else three
// single bytes. Every byte is covered, so for strings of equal length equal words mean equal bytes.
[[gnu::always_inline]] inline uint64_t TailWord(const char* p, size_t n) {
  if (n >= 8) return Load64(p + n - 8);
  if (n >= 4) return Load32(p) | (Load32(p + n - 4) << 32);
  if (n == 0) return 0;
  const auto byte = [&](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
  return byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16);
}

// One word from the bytes of a string, for the cache index. Short keys (<= 8 bytes: "cpu0",
// "matmul") take one multiply; device and name are folded independently so that their multiplies
// overlap. Quality only matters for spreading keys over the entries: a collision costs a miss.
[[gnu::always_inline]] inline uint64_t Fold(std::string_view s) {
  uint64_t h = s.size() * 0x9e3779b97f4a7c15ULL;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) h = (h ^ Load64(s.data() + i)) * 0xbf58476d1ce4e5b9ULL;
  if (i < s.size()) h ^= TailWord(s.data(), s.size()) * 0x94d049bb133111ebULL;
  return h;
}

[[gnu::always_inline]] inline bool SameBytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  size_t i = 0;
  for (; i + 8 <= a.size(); i += 8) {
    if (Load64(a.data() + i) != Load64(b.data() + i)) return false;
  }
  return i == a.size() || TailWord(a.data(), a.size()) == TailWord(b.data(), b.size());
}

// Fibonacci hashing: one multiply, and the entry index from the top bits, which depend on every
// bit of the folded key (the low bits of a product do not).
[[gnu::always_inline]] inline uint64_t CacheHash(CacheKind kind, std::string_view device,
                                                 std::string_view name, uint64_t exponent) {
  const uint64_t h =
      (Fold(device) * 3) ^ Fold(name) ^ ((exponent << 8) | static_cast<uint64_t>(kind));
  return h * 0x9e3779b97f4a7c15ULL;
}

constexpr int kCacheIndexShift = 64 - std::countr_zero(kCacheEntries);

// The entry for a key: a hit when recorder_id, hash and the key all match.
[[gnu::always_inline]] inline CacheEntry& CacheSlot(uint64_t hash) {
  return State().cache[hash >> kCacheIndexShift];
}

[[gnu::always_inline]] inline bool CacheHit(const CacheEntry& e, uint64_t recorder_id,
                                            uint64_t hash, CacheKind kind, std::string_view device,
                                            std::string_view name, uint64_t exponent) {
  return e.recorder_id == recorder_id && e.hash == hash && e.kind == kind &&
         e.exponent == exponent && SameBytes(e.device, device) && SameBytes(e.name, name);
}

// Fills an entry whose target the caller has already looked up. The key strings may throw
// (bad_alloc): the entry is marked empty first so that a failed fill can never produce a hit.
void CacheStore(CacheEntry& e, uint64_t recorder_id, uint64_t hash, CacheKind kind,
                std::string_view device, std::string_view name, uint64_t exponent,
                detail::Shard* shard, QueueSlot* queue) {
  e.recorder_id = 0;
  e.device.assign(device);
  e.name.assign(name);
  e.hash = hash;
  e.kind = kind;
  e.exponent = exponent;
  e.shard = shard;
  e.queue = queue;
  e.recorder_id = recorder_id;
}

}  // namespace

void OpSeries::RecordNs(int64_t duration_ns) const {
  if (series_ == nullptr || !IsPlausibleDuration(duration_ns)) return;
  ShardFor(series_)->Record(static_cast<uint64_t>(duration_ns));
}

struct Recorder::Impl {
  uint64_t id = next_recorder_id.fetch_add(1);
  mutable std::mutex mutex;
  std::map<std::string, std::unique_ptr<detail::Series>> series;  // by SeriesKey
  // By device. Slots are never erased (thread caches point to them); Reset() empties them.
  std::map<std::string, std::unique_ptr<QueueSlot>, std::less<>> queue_depth;

  detail::Series* Find(std::string_view metric, std::string_view device, std::string_view key,
                       std::string_view value) {
    std::string k = SeriesKey(metric, device, value);
    std::lock_guard lock(mutex);
    auto& slot = series[k];
    if (!slot) {
      slot = std::make_unique<detail::Series>();
      slot->id = next_series_id.fetch_add(1);
      slot->metric = std::string(metric);
      slot->device = std::string(device);
      slot->label_key = std::string(key);
      slot->label_value = std::string(value);
    }
    return slot.get();
  }

  QueueSlot* FindQueue(std::string_view device) {
    std::lock_guard lock(mutex);
    auto it = queue_depth.find(device);
    if (it == queue_depth.end()) {
      it = queue_depth.emplace(std::string(device), std::make_unique<QueueSlot>()).first;
    }
    return it->second.get();
  }

  // This thread's shard of an op series.
  detail::Shard* CachedOp(std::string_view op_name, std::string_view device) {
    const uint64_t hash = CacheHash(CacheKind::kOp, device, op_name, 0);
    CacheEntry& e = CacheSlot(hash);
    if (!CacheHit(e, id, hash, CacheKind::kOp, device, op_name, 0)) [[unlikely]] {
      FillOp(e, hash, op_name, device);
    }
    return e.shard;
  }

  // This thread's shard of the transfer series of the size bucket of `bytes`.
  detail::Shard* CachedTransfer(uint64_t bytes, std::string_view device) {
    const uint64_t exponent = TransferExponent(bytes);
    const uint64_t hash = CacheHash(CacheKind::kTransfer, device, {}, exponent);
    CacheEntry& e = CacheSlot(hash);
    if (!CacheHit(e, id, hash, CacheKind::kTransfer, device, {}, exponent)) [[unlikely]] {
      FillTransfer(e, hash, bytes, device);
    }
    return e.shard;
  }

  QueueSlot* CachedQueue(std::string_view device) {
    const uint64_t hash = CacheHash(CacheKind::kQueue, device, {}, 0);
    CacheEntry& e = CacheSlot(hash);
    if (!CacheHit(e, id, hash, CacheKind::kQueue, device, {}, 0)) [[unlikely]] {
      FillQueue(e, hash, device);
    }
    return e.queue;
  }

  // The misses, out of line: they build strings and take the lock, and inlined they would give
  // the hit path a large stack frame and register spills.
  [[gnu::noinline, gnu::cold]] void FillOp(CacheEntry& e, uint64_t hash, std::string_view op_name,
                                           std::string_view device) {
    detail::Shard* shard = ShardFor(Find(metrics::kOpExecutionTime, device, labels::kOp, op_name));
    CacheStore(e, id, hash, CacheKind::kOp, device, op_name, 0, shard, nullptr);
  }

  [[gnu::noinline, gnu::cold]] void FillTransfer(CacheEntry& e, uint64_t hash, uint64_t bytes,
                                                 std::string_view device) {
    detail::Shard* shard = ShardFor(
        Find(metrics::kTransferLatency, device, labels::kBufferSize, TransferSizeBucket(bytes)));
    CacheStore(e, id, hash, CacheKind::kTransfer, device, {}, TransferExponent(bytes), shard,
               nullptr);
  }

  [[gnu::noinline, gnu::cold]] void FillQueue(CacheEntry& e, uint64_t hash,
                                              std::string_view device) {
    CacheStore(e, id, hash, CacheKind::kQueue, device, {}, 0, nullptr, FindQueue(device));
  }
};

Recorder::Recorder() : impl_(std::make_unique<Impl>()) {}
Recorder::~Recorder() = default;

Recorder& Recorder::Global() {
  static Recorder* recorder = new Recorder();  // never destroyed: threads may record at exit
  return *recorder;
}

OpSeries Recorder::Op(std::string_view op_name, std::string_view device) {
  return OpSeries(impl_->Find(metrics::kOpExecutionTime, device, labels::kOp, op_name));
}

OpSeries Recorder::Transfer(uint64_t bytes, std::string_view device) {
  return OpSeries(impl_->Find(metrics::kTransferLatency, device, labels::kBufferSize,
                              TransferSizeBucket(bytes)));
}

void Recorder::RecordOp(std::string_view op_name, int64_t duration_ns, std::string_view device) {
  if (!IsPlausibleDuration(duration_ns)) return;
  impl_->CachedOp(op_name, device)->Record(static_cast<uint64_t>(duration_ns));
}

void Recorder::RecordTransfer(uint64_t bytes, int64_t latency_ns, std::string_view device) {
  if (!IsPlausibleDuration(latency_ns)) return;
  impl_->CachedTransfer(bytes, device)->Record(static_cast<uint64_t>(latency_ns));
}

void Recorder::SetQueueDepth(int64_t depth, std::string_view device) {
  impl_->CachedQueue(device)->depth.store(std::max(depth, QueueSlot::kNoDepth + 1),
                                          std::memory_order_relaxed);
}

namespace {
Distribution ToDistribution(const std::deque<detail::Shard>& shards) {
  static const std::vector<double> kBounds = [] {
    std::vector<double> bounds;
    for (int i = 1; i <= kRecorderFiniteBuckets; ++i) {
      bounds.push_back(static_cast<double>(RecorderBucketLowerNs(i)) * 1e-9);
    }
    return bounds;
  }();
  Distribution d = Distribution::WithBounds(kBounds);
  uint64_t min_ns = std::numeric_limits<uint64_t>::max(), max_ns = 0, sum_ns = 0;
  for (const detail::Shard& shard : shards) {
    const uint64_t n = shard.count.load(std::memory_order_relaxed);
    if (n == 0) continue;
    uint64_t bucket_total = 0;
    for (int i = 0; i < kRecorderBuckets; ++i) {
      const uint64_t c = shard.buckets[i].load(std::memory_order_relaxed);
      d.counts[static_cast<size_t>(i)] += c;
      bucket_total += c;
    }
    d.count += bucket_total;  // the bucket counts are the truth if a record is in flight
    sum_ns += shard.sum_ns.load(std::memory_order_relaxed);
    min_ns = std::min(min_ns, shard.min_ns.load(std::memory_order_relaxed));
    max_ns = std::max(max_ns, shard.max_ns.load(std::memory_order_relaxed));
  }
  if (d.count > 0) {
    d.sum = static_cast<double>(sum_ns) * 1e-9;
    d.min = static_cast<double>(min_ns) * 1e-9;
    d.max = static_cast<double>(max_ns) * 1e-9;
  }
  return d;
}
}  // namespace

std::vector<Reading> Recorder::Snapshot(std::string_view device, int64_t timestamp_ns) const {
  Reading ops;
  ops.metric = std::string(metrics::kOpExecutionTime);
  Reading transfers;
  transfers.metric = std::string(metrics::kTransferLatency);
  Reading queue;
  queue.metric = std::string(metrics::kQueueSize);
  ops.device = transfers.device = queue.device = std::string(device);

  std::lock_guard lock(impl_->mutex);
  for (const auto& [key, series] : impl_->series) {
    if (series->device != device) continue;
    Distribution d;
    {
      std::lock_guard shard_lock(series->mutex);
      d = ToDistribution(series->shards);
    }
    if (d.count == 0) continue;
    Sample sample;
    sample.labels.Set(labels::kDevice, device);
    sample.labels.Set(series->label_key, series->label_value);
    sample.timestamp_ns = timestamp_ns;
    sample.value = std::move(d);
    (series->metric == metrics::kOpExecutionTime ? ops : transfers)
        .samples.push_back(std::move(sample));
  }
  const int64_t depth = [&] {
    auto it = impl_->queue_depth.find(device);
    return it == impl_->queue_depth.end() ? QueueSlot::kNoDepth
                                          : it->second->depth.load(std::memory_order_relaxed);
  }();
  if (depth != QueueSlot::kNoDepth) {
    Sample sample;
    sample.labels.Set(labels::kDevice, device);
    sample.labels.Set("source", "sdk");
    sample.timestamp_ns = timestamp_ns;
    sample.value = static_cast<double>(depth);
    queue.samples.push_back(std::move(sample));
  }
  for (Reading* r : {&ops, &transfers, &queue}) {
    if (r->samples.empty()) {
      r->state = ReadingState::kNoData;
      r->reason = "no data: nothing recorded through the xpuperf SDK in this process";
    }
  }
  return {std::move(ops), std::move(transfers), std::move(queue)};
}

std::vector<std::string> Recorder::Devices() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<std::string> devices;
  auto add = [&](const std::string& d) {
    if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
  };
  for (const auto& [key, series] : impl_->series) {
    if (series->HasData()) add(series->device);
  }
  for (const auto& [device, slot] : impl_->queue_depth) {
    if (slot->has_value()) add(device);
  }
  return devices;
}

void Recorder::Reset() {
  std::lock_guard lock(impl_->mutex);
  for (auto& [key, series] : impl_->series) {
    std::lock_guard shard_lock(series->mutex);
    for (detail::Shard& shard : series->shards) shard.Clear();
  }
  for (auto& [device, slot] : impl_->queue_depth) {
    slot->depth.store(QueueSlot::kNoDepth, std::memory_order_relaxed);
  }
}

std::string TransferSizeBucket(uint64_t bytes) {
  const uint64_t rounded = bytes <= 1                    ? 1
                           : bytes > (uint64_t{1} << 62) ? uint64_t{1} << 63
                                                         : std::bit_ceil(bytes);
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  uint64_t value = rounded;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  return std::to_string(value) + kUnits[unit];
}

}  // namespace xpuperf
