// Events whose names are built at run time: DynamicScope, dynamic instants, Begin/EndRange.
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "xpuperf/tracer/tracer.h"

namespace xpuperf::tracer {

using detail::EventKind;

DynamicScope::DynamicScope(std::string_view name, const char* category) : category_(category) {
  state_ = detail::g_state.load(std::memory_order_relaxed);
  if (state_ != 0) {
    name_.assign(name);
    begin_ = detail::NowTicks();
  }
}

DynamicScope::~DynamicScope() {
  if (state_ == 0) return;
  const uint64_t end = detail::NowTicks();
  detail::AppendNamed(state_, {begin_, end, category_, EventKind::kCompleteDynamic, 0}, name_);
  if (state_ & detail::kRecordOpsBit) detail::RecordOpDuration(name_, end - begin_);
}

void Instant(std::string_view dynamic_name, const char* category) noexcept {
  const uint32_t state = detail::g_state.load(std::memory_order_relaxed);
  if (state == 0) return;
  detail::AppendNamed(state, {detail::NowTicks(), 0, category, EventKind::kInstantDynamic, 0},
                      dynamic_name);
}

void Counter(std::string_view dynamic_name, double value) noexcept {
  const uint32_t state = detail::g_state.load(std::memory_order_relaxed);
  if (state == 0 || !std::isfinite(value)) return;
  detail::AppendNamed(
      state,
      {detail::NowTicks(), std::bit_cast<uint64_t>(value), nullptr, EventKind::kCounterDynamic, 0},
      dynamic_name);
}

namespace {

struct OpenRange {
  std::string name;
  const char* category;
  uint64_t begin_ticks;
  uint32_t state;
};

// This thread's open BeginRange()s, innermost last. Only ranges begun while tracing was on are
// kept, so a disabled BeginRange/EndRange pair costs a load and a branch each.
thread_local std::vector<OpenRange> open_ranges;

}  // namespace

void BeginRange(std::string_view name, const char* category) noexcept {
  const uint32_t state = detail::g_state.load(std::memory_order_relaxed);
  if (state == 0) return;
  try {
    open_ranges.push_back({std::string(name), category, 0, state});
    open_ranges.back().begin_ticks = detail::NowTicks();
  } catch (...) {
  }
}

void EndRange() noexcept {
  if (open_ranges.empty()) return;
  const uint64_t end = detail::NowTicks();
  OpenRange range = std::move(open_ranges.back());
  open_ranges.pop_back();
  detail::AppendNamed(range.state,
                      {range.begin_ticks, end, range.category, EventKind::kCompleteDynamic, 0},
                      range.name);
  if (range.state & detail::kRecordOpsBit)
    detail::RecordOpDuration(range.name, end - range.begin_ticks);
}

}  // namespace xpuperf::tracer
