#include "cuda/cuda_queue.h"

#include <fmt/format.h>

#include <atomic>

#include "cuda/cuda_util.h"
#include "kernels.h"

namespace xpuperf::cuda_bench {
namespace {

constexpr uint64_t kSpinTimeoutNs = uint64_t{2'000'000'000};

}  // namespace

Result<std::unique_ptr<CudaQueue>> CudaQueue::Create(int device) {
  ScopedDevice scope(device);
  std::unique_ptr<CudaQueue> queue(new CudaQueue(device));
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&queue->stream_, cudaStreamNonBlocking));
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaEventCreate(&queue->start_));
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaEventCreate(&queue->stop_));
  void* flags = nullptr;
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped));
  queue->host_flags_ = static_cast<int*>(flags);
  queue->host_flags_[0] = 0;
  queue->host_flags_[1] = 0;
  void* device_flags = nullptr;
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(&device_flags, flags, 0));
  queue->device_flags_ = static_cast<int*>(device_flags);
  return queue;
}

CudaQueue::~CudaQueue() {
  ScopedDevice scope(device_);
  if (stream_ != nullptr) {
    (void)cudaStreamSynchronize(stream_);
    (void)cudaStreamDestroy(stream_);
  }
  if (start_ != nullptr) (void)cudaEventDestroy(start_);
  if (stop_ != nullptr) (void)cudaEventDestroy(stop_);
  if (host_flags_ != nullptr) (void)cudaFreeHost(host_flags_);
}

std::string CudaQueue::timing_source() const {
  std::string source =
      fmt::format("cuda events on cuda:{}{}", device_,
                  spin_gate_ ? " (stream held by a spin kernel while enqueueing)" : "");
  if (spin_timeouts_ > 0) {
    source += fmt::format(
        "; {} sample{} outlasted the spin kernel's 2 s timeout and include host "
        "enqueue time",
        spin_timeouts_, spin_timeouts_ == 1 ? "" : "s");
  }
  return source;
}

int64_t CudaQueue::max_repetitions() const { return spin_gate_ ? kMaxGatedRepetitions : INT64_MAX; }

void CudaQueue::Record(Status status) {
  if (status_.ok() && !status.ok()) status_ = std::move(status);
}

double CudaQueue::TimeSeconds(const std::function<void()>& enqueue) {
  constexpr double kFailed = 1.0;
  if (!status_.ok()) return kFailed;
  ScopedDevice scope(device_);
  if (spin_gate_ && !loaded_) {
    // Loads the kernels (and library kernels) the work launches, with nothing spinning.
    enqueue();
    Record(CudaCheck(cudaStreamSynchronize(stream_), "loading the timed work's kernels"));
    loaded_ = true;
    if (!status_.ok()) return kFailed;
  }
  std::atomic_ref<int> release(host_flags_[0]);
  release.store(0, std::memory_order_release);
  host_flags_[1] = 0;
  if (spin_gate_) {
    Record(CudaCheck(
        kernels::LaunchSpinWait(device_flags_, device_flags_ + 1, kSpinTimeoutNs, stream_),
        "spin kernel"));
  }
  Record(CudaCheck(cudaEventRecord(start_, stream_), "cudaEventRecord"));
  enqueue();
  Record(CudaCheck(cudaEventRecord(stop_, stream_), "cudaEventRecord"));
  release.store(1, std::memory_order_release);
  Record(CudaCheck(cudaEventSynchronize(stop_), "waiting for the timed work"));
  float ms = 0;
  Record(CudaCheck(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime"));
  if (spin_gate_ && std::atomic_ref<int>(host_flags_[1]).load(std::memory_order_acquire) != 0) {
    ++spin_timeouts_;
  }
  if (!status_.ok()) return kFailed;
  return static_cast<double>(ms) / 1e3;
}

}  // namespace xpuperf::cuda_bench
