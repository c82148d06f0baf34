// CudaQueue: the ExecutionQueue of one GPU. TimeSeconds holds the stream behind a spin kernel
// while the host enqueues the work, records an event before and after it, then releases the spin
// kernel: the elapsed time between the events is device time with no host enqueue gaps in it
// (nvbandwidth's method). The spin kernel gives up after a timeout, so work that blocks the host
// while enqueueing (pageable copies, a full launch queue) delays the sample instead of deadlocking.
//
// The first TimeSeconds runs the work once ungated before timing it: CUDA loads kernels lazily, at
// their first launch, and loading waits for the device to go idle, which a spinning kernel never
// does (the CUDA Programming Guide's lazy-loading caveat); loaded beforehand, nothing waits.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "xpuperf/bench/queue.h"
#include "xpuperf/core/status.h"

namespace xpuperf::cuda_bench {

class CudaQueue final : public bench::ExecutionQueue {
 public:
  static Result<std::unique_ptr<CudaQueue>> Create(int device);
  ~CudaQueue() override;
  CudaQueue(const CudaQueue&) = delete;
  CudaQueue& operator=(const CudaQueue&) = delete;

  std::string timing_source() const override;
  // Device seconds between the events around `enqueue`. On a CUDA error it returns 1 s (ending
  // the sampler's calibration) and keeps the error for status().
  double TimeSeconds(const std::function<void()>& enqueue) override;

  cudaStream_t stream() const { return stream_; }
  int device() const { return device_; }
  // Behind the spin kernel at most kMaxGatedRepetitions repetitions are enqueued per sample: a
  // stream takes about a thousand pending operations before enqueueing blocks (until the spin
  // timeout), and a bidirectional copy enqueues 6 per repetition.
  static constexpr int64_t kMaxGatedRepetitions = 128;
  int64_t max_repetitions() const override;

  // Whether the spin kernel gates the stream (on by default). Off for work that blocks the host
  // while it is enqueued.
  void set_spin_gate(bool on) { spin_gate_ = on; }
  // Records the first failure of work enqueued inside TimeSeconds.
  void Record(Status status);
  // The first error seen since creation (Ok when none).
  Status status() const { return status_; }
  // How many samples the spin kernel's timeout ended.
  int spin_timeouts() const { return spin_timeouts_; }

 private:
  explicit CudaQueue(int device) : device_(device) {}
  int device_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  int* host_flags_ = nullptr;  // [0]: release flag, [1]: timed out; mapped pinned memory
  int* device_flags_ = nullptr;
  bool spin_gate_ = true;
  bool loaded_ = false;  // the work ran once ungated (see TimeSeconds)
  int spin_timeouts_ = 0;
  Status status_;
};

}  // namespace xpuperf::cuda_bench
