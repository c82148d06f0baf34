#include "cuda/cuda_util.h"

#include <fmt/format.h>

#include <mutex>
#include <utility>

#include "xpuperf/cuda_bench/cuda_benchmarks.h"

namespace xpuperf::cuda_bench {

Status CudaCheck(cudaError_t error, std::string_view what) {
  if (error == cudaSuccess) return Status::Ok();
  // Reported here, so a later launch's cudaGetLastError() does not report it again as its own.
  (void)cudaGetLastError();
  return MakeError(ErrorCode::kInternal, fmt::format("{}: {} ({})", what, cudaGetErrorString(error),
                                                     cudaGetErrorName(error)));
}

Status CudaAvailability() {
  static const Status status = [] {
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    // The runtime's error is sticky for a failed initialisation; clear what can be cleared.
    (void)cudaGetLastError();
    if (error == cudaErrorInsufficientDriver || error == cudaErrorNoDevice ||
        error == cudaErrorInitializationError) {
      if (error == cudaErrorNoDevice) {
        return Status(MakeError(ErrorCode::kUnsupported, "unsupported: no CUDA device"));
      }
      int driver = 0;
      if (cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0) {
        return Status(MakeError(ErrorCode::kUnsupported, "unsupported: no CUDA driver"));
      }
      if (error == cudaErrorInsufficientDriver) {
        return Status(
            MakeError(ErrorCode::kUnsupported,
                      fmt::format("unsupported: CUDA driver {}.{} is older than the "
                                  "runtime xpuperf was built with ({})",
                                  driver / 1000, driver % 1000 / 10, cudaGetErrorString(error))));
      }
      return Status(MakeError(ErrorCode::kUnsupported,
                              std::string("unsupported: ") + cudaGetErrorString(error)));
    }
    if (error != cudaSuccess) {
      return Status(MakeError(ErrorCode::kUnsupported,
                              std::string("unsupported: ") + cudaGetErrorString(error)));
    }
    if (count == 0) {
      return Status(MakeError(ErrorCode::kUnsupported, "unsupported: no CUDA device"));
    }
    return Status::Ok();
  }();
  return status;
}

Result<CudaDeviceInfo> QueryDevice(int index) {
  XPUPERF_RETURN_IF_ERROR(CudaAvailability());
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, index); e != cudaSuccess) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("unsupported: CUDA device {}: {}", index, cudaGetErrorString(e)));
  }
  CudaDeviceInfo info;
  info.index = index;
  info.name = prop.name;
  info.compute_capability = prop.major * 10 + prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.l2_bytes = static_cast<uint64_t>(prop.l2CacheSize);
  info.memory_bytes = prop.totalGlobalMem;
  info.max_threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
  return info;
}

uint64_t FreeDeviceBytes(int index) {
  ScopedDevice scope(index);
  size_t free_bytes = 0;
  size_t total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return 0;
  return free_bytes;
}

Status CheckComputeCapability(const CudaDeviceInfo& device, int minimum, std::string_view what) {
  if (device.compute_capability >= minimum) return Status::Ok();
  return MakeError(ErrorCode::kUnsupported,
                   fmt::format("unsupported: {} needs sm_{} or newer (device {} is sm_{})", what,
                               minimum, device.index, device.compute_capability));
}

std::vector<Device> ListCudaDevices() {
  std::vector<Device> devices;
  if (!CudaAvailability().ok()) return devices;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return devices;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    Device device;
    device.backend = "nvidia";
    device.id = fmt::format("nvidia{}", i);
    device.index = i;
    device.vendor = "NVIDIA";
    device.model = prop.name;
    std::string uuid = "GPU-";
    for (int b = 0; b < 16; ++b) {
      if (b == 4 || b == 6 || b == 8 || b == 10) uuid += '-';
      uuid += fmt::format("{:02x}", static_cast<unsigned char>(prop.uuid.bytes[b]));
    }
    device.uuid = uuid;
    device.bus_id =
        fmt::format("{:08x}:{:02x}:{:02x}.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
    device.memory_bytes = prop.totalGlobalMem;
    device.topology.packages = 1;
    device.topology.cores = prop.multiProcessorCount;
    device.topology.source = "cuda runtime";
    device.topology.caches.push_back(
        CacheLevel{2, "unified", static_cast<uint64_t>(prop.l2CacheSize), 1, 128});
    device.features = {fmt::format("sm_{}{}", prop.major, prop.minor),
                       fmt::format("multiprocessors={}", prop.multiProcessorCount)};
    devices.push_back(std::move(device));
  }
  return devices;
}

Result<DeviceBuffer> DeviceBuffer::Allocate(size_t bytes) {
  DeviceBuffer buffer;
  if (cudaError_t e = cudaMalloc(&buffer.data_, bytes == 0 ? 1 : bytes); e != cudaSuccess) {
    (void)cudaGetLastError();
    return MakeError(ErrorCode::kInternal,
                     fmt::format("cudaMalloc of {} MiB: {}", bytes >> 20, cudaGetErrorString(e)));
  }
  buffer.bytes_ = bytes;
  return buffer;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) cudaFree(data_);
}

ScopedDevice::ScopedDevice(int index) {
  if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  if (previous_ != index) (void)cudaSetDevice(index);
}

ScopedDevice::~ScopedDevice() {
  if (previous_ >= 0) (void)cudaSetDevice(previous_);
}

Result<unsigned long long> ReadCounter(const unsigned long long* device_counter,
                                       cudaStream_t stream) {
  unsigned long long value = 0;
  XPUPERF_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(&value, device_counter, sizeof(value), cudaMemcpyDeviceToHost, stream));
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return value;
}

}  // namespace xpuperf::cuda_bench
