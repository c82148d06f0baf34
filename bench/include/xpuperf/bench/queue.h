// Where benchmark kernels execute and how they are timed. The CPU runs work synchronously on the
// calling thread (and its OpenMP team) and times it with the monotonic clock; a GPU backend
// implements the same interface with a stream and events recorded around the enqueued work.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace xpuperf::bench {

class ExecutionQueue {
 public:
  virtual ~ExecutionQueue() = default;
  // "host", "cuda stream", ...: recorded with each measurement.
  virtual std::string timing_source() const = 0;
  // Runs `enqueue` (which submits kernels to this queue), waits for them to finish and returns the
  // elapsed time between the start and the end of the submitted work, in seconds. Not thread-safe:
  // one caller at a time.
  virtual double TimeSeconds(const std::function<void()>& enqueue) = 0;
  // The most repetitions one sample may enqueue: a GPU stream held behind a spin kernel while the
  // host enqueues can take only so many pending operations before enqueueing blocks.
  virtual int64_t max_repetitions() const { return INT64_MAX; }
};

// The CPU's queue: runs the work inline and reads CLOCK_MONOTONIC around it.
class HostQueue final : public ExecutionQueue {
 public:
  std::string timing_source() const override { return "host CLOCK_MONOTONIC"; }
  double TimeSeconds(const std::function<void()>& enqueue) override;
};

}  // namespace xpuperf::bench
