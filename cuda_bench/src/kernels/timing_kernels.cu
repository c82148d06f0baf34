// The spin kernel that holds a stream until the host has enqueued all the work to be timed.
#include "kernels.h"

namespace xpuperf::cuda_bench::kernels {
namespace {

__device__ uint64_t GlobalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void SpinWait(const volatile int* flag, int* timed_out, uint64_t timeout_ns) {
  const uint64_t start = GlobalTimerNs();
  while (*flag == 0) {
    if (GlobalTimerNs() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(1000);
  }
}

}  // namespace

cudaError_t LaunchSpinWait(const volatile int* flag, int* timed_out, uint64_t timeout_ns,
                           cudaStream_t stream) {
  SpinWait<<<1, 1, 0, stream>>>(flag, timed_out, timeout_ns);
  return cudaGetLastError();
}

}  // namespace xpuperf::cuda_bench::kernels
