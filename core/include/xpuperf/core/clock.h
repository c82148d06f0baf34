// Time sources, injected so that rate computations are testable with recorded data.
#pragma once

#include <cstdint>

namespace xpuperf {

// Nanoseconds. Thread-safe implementations only.
class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time for rates and intervals (ns, arbitrary epoch).
  virtual int64_t MonotonicNs() const = 0;
  // Wall-clock time for sample timestamps (ns since the Unix epoch).
  virtual int64_t WallNs() const = 0;
};

// The real clocks: CLOCK_MONOTONIC and CLOCK_REALTIME.
class SystemClock final : public Clock {
 public:
  int64_t MonotonicNs() const override;
  int64_t WallNs() const override;
  static const SystemClock& Instance();
};

// A clock that only moves when told to; for tests. Not thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t wall_ns = 1'700'000'000'000'000'000) : wall_ns_(wall_ns) {}
  int64_t MonotonicNs() const override { return mono_ns_; }
  int64_t WallNs() const override { return wall_ns_ + mono_ns_; }
  void AdvanceNs(int64_t ns) { mono_ns_ += ns; }

 private:
  int64_t wall_ns_;
  int64_t mono_ns_ = 0;
};

}  // namespace xpuperf
