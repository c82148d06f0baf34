// CUDA runtime helpers for the benchmarks' host code: errors as Status, device properties, RAII
// device and pinned buffers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::cuda_bench {

// Ok for cudaSuccess; otherwise kInternal "<what>: <cudaGetErrorString> (<cudaGetErrorName>)".
Status CudaCheck(cudaError_t error, std::string_view what);

#define XPUPERF_CUDA_RETURN_IF_ERROR(call) \
  XPUPERF_RETURN_IF_ERROR(::xpuperf::cuda_bench::CudaCheck((call), #call))

struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  int compute_capability = 0;  // major * 10 + minor
  int multiprocessors = 0;
  uint64_t l2_bytes = 0;
  uint64_t memory_bytes = 0;
  int max_threads_per_multiprocessor = 0;
};
// kUnsupported when the runtime cannot see the device.
Result<CudaDeviceInfo> QueryDevice(int index);
// Free bytes on the device (cudaMemGetInfo); 0 when unknown.
uint64_t FreeDeviceBytes(int index);

// "unsupported: <precision> needs sm_<min> (device is sm_<cc>)" when cc is too old.
Status CheckComputeCapability(const CudaDeviceInfo& device, int minimum, std::string_view what);

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static Result<DeviceBuffer> Allocate(size_t bytes);
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  void* get() const { return data_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// Makes `index` current for the scope and restores the previous device afterwards.
class ScopedDevice {
 public:
  explicit ScopedDevice(int index);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = -1;
};

// Reads a device counter (unsigned long long) back synchronously on stream.
Result<unsigned long long> ReadCounter(const unsigned long long* device_counter,
                                       cudaStream_t stream);

}  // namespace xpuperf::cuda_bench
