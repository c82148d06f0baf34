// The registry behind session handles: a handle encodes a slot and that slot's generation, so a
// stale or forged handle never reaches freed memory. Thread-safe (one mutex; lookups are short).
#include <cstdint>
#include <mutex>
#include <vector>

#include "capi_internal.h"

namespace xpuperf::capi {
namespace {

// handle = generation << 32 | (slot + 1) << 4 | kTag. The low nibble never matches an aligned
// pointer, generations start at 1 and only grow, so a closed handle stays invalid for good.
constexpr uintptr_t kTag = 0x5;
constexpr uintptr_t kTagMask = 0xf;

struct Slot {
  uint32_t generation = 0;
  std::shared_ptr<SessionState> state;
};

struct Registry {
  std::mutex mutex;
  std::vector<Slot> slots;
  std::vector<uint32_t> free_slots;
};

Registry& Sessions() {
  static Registry* registry = new Registry();  // never destroyed: handles may outlive statics
  return *registry;
}

bool Decode(const xpuperf_session* handle, uint32_t* slot, uint32_t* generation) {
  static_assert(sizeof(uintptr_t) == 8, "handles need 64-bit pointers");
  const uintptr_t value = reinterpret_cast<uintptr_t>(handle);
  if ((value & kTagMask) != kTag) return false;
  const uintptr_t index = (value & 0xffffffffu) >> 4;
  if (index == 0) return false;
  *slot = static_cast<uint32_t>(index - 1);
  *generation = static_cast<uint32_t>(value >> 32);
  return true;
}

// Under the registry's mutex.
Slot* Find(Registry& registry, const xpuperf_session* handle, const char* function) {
  if (handle == nullptr) {
    Fail(XPUPERF_ERROR_INVALID_ARGUMENT, std::string(function) + ": session is NULL");
    return nullptr;
  }
  uint32_t slot = 0;
  uint32_t generation = 0;
  if (!Decode(handle, &slot, &generation) || slot >= registry.slots.size() || generation == 0) {
    Fail(XPUPERF_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": not a session handle from xpuperf_open");
    return nullptr;
  }
  Slot& entry = registry.slots[slot];
  if (entry.generation != generation || !entry.state) {
    Fail(XPUPERF_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": the session was closed (handle used after xpuperf_close)");
    return nullptr;
  }
  return &entry;
}

}  // namespace

xpuperf_session* RegisterSession(std::shared_ptr<SessionState> state) {
  Registry& registry = Sessions();
  std::lock_guard lock(registry.mutex);
  uint32_t slot = 0;
  if (!registry.free_slots.empty()) {
    slot = registry.free_slots.back();
    registry.free_slots.pop_back();
  } else {
    slot = static_cast<uint32_t>(registry.slots.size());
    registry.slots.emplace_back();
  }
  Slot& entry = registry.slots[slot];
  ++entry.generation;
  if (entry.generation == 0) ++entry.generation;  // wrapped after 2^32 reuses of one slot
  entry.state = std::move(state);
  const uintptr_t value = (uintptr_t{entry.generation} << 32) | ((uintptr_t{slot} + 1) << 4) | kTag;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a tagged integer, only ever decoded, never deref'd
  return reinterpret_cast<xpuperf_session*>(value);
}

std::shared_ptr<SessionState> LookupSession(const xpuperf_session* handle, const char* function) {
  Registry& registry = Sessions();
  std::lock_guard lock(registry.mutex);
  Slot* entry = Find(registry, handle, function);
  return entry ? entry->state : nullptr;
}

bool UnregisterSession(const xpuperf_session* handle, std::shared_ptr<SessionState>* removed) {
  Registry& registry = Sessions();
  std::lock_guard lock(registry.mutex);
  Slot* entry = Find(registry, handle, "xpuperf_close");
  if (entry == nullptr) return false;
  *removed = std::move(entry->state);
  entry->state.reset();
  registry.free_slots.push_back(static_cast<uint32_t>(entry - registry.slots.data()));
  return true;
}

}  // namespace xpuperf::capi
