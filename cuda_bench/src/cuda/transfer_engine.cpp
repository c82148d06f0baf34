#include "cuda/transfer_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include "cuda/cuda_queue.h"
#include "cuda/cuda_util.h"
#include "kernels.h"
#include "pattern.h"

namespace xpuperf::cuda_bench {
namespace {

enum class BufferKind { kPageableHost, kPinnedHost, kDevice };

class CudaTransferBuffer final : public bench::TransferBuffer {
 public:
  CudaTransferBuffer(void* data, size_t bytes, BufferKind kind, int device)
      : data_(data), bytes_(bytes), kind_(kind), device_(device) {}
  ~CudaTransferBuffer() override {
    switch (kind_) {
      case BufferKind::kPageableHost:
        std::free(data_);
        break;
      case BufferKind::kPinnedHost:
        (void)cudaFreeHost(data_);
        break;
      case BufferKind::kDevice: {
        ScopedDevice scope(device_);
        (void)cudaFree(data_);
        break;
      }
    }
  }
  CudaTransferBuffer(const CudaTransferBuffer&) = delete;
  CudaTransferBuffer& operator=(const CudaTransferBuffer&) = delete;
  void* data() override { return data_; }
  size_t bytes() const override { return bytes_; }
  bool on_device() const override { return kind_ == BufferKind::kDevice; }
  std::string description() const override {
    switch (kind_) {
      case BufferKind::kPageableHost:
        return "pageable host";
      case BufferKind::kPinnedHost:
        return "pinned host";
      case BufferKind::kDevice:
        return fmt::format("device (cuda:{})", device_);
    }
    return "";
  }
  BufferKind kind() const { return kind_; }

 private:
  void* data_;
  size_t bytes_;
  BufferKind kind_;
  int device_;
};

// The host side of PatternByte, eight bytes per hash.
void FillHost(uint8_t* data, size_t bytes, uint64_t seed) {
  for (size_t word = 0; word * 8 < bytes; ++word) {
    const uint64_t hash = PatternHash(seed, word);
    for (size_t b = 0; b < 8 && word * 8 + b < bytes; ++b) {
      const auto byte = static_cast<uint8_t>(hash >> (8 * b));
      data[word * 8 + b] = byte == 0 ? 0x5A : byte;
    }
  }
}

Status VerifyHost(const uint8_t* data, size_t bytes, uint64_t seed) {
  for (size_t word = 0; word * 8 < bytes; ++word) {
    const uint64_t hash = PatternHash(seed, word);
    for (size_t b = 0; b < 8 && word * 8 + b < bytes; ++b) {
      auto expected = static_cast<uint8_t>(hash >> (8 * b));
      if (expected == 0) expected = 0x5A;
      if (data[word * 8 + b] != expected) {
        return MakeError(ErrorCode::kInternal,
                         fmt::format("host buffer: byte {} is {:#04x}, expected {:#04x}",
                                     word * 8 + b, data[word * 8 + b], expected));
      }
    }
  }
  return Status::Ok();
}

class CudaTransferEngine final : public bench::TransferEngine {
 public:
  CudaTransferEngine(int device, bool sm_copies, std::unique_ptr<CudaQueue> queue,
                     cudaStream_t second, cudaEvent_t fork, cudaEvent_t join, int blocks,
                     int numa_node)
      : device_(device),
        sm_copies_(sm_copies),
        queue_(std::move(queue)),
        second_(second),
        fork_(fork),
        join_(join),
        blocks_(blocks),
        numa_node_(numa_node) {}
  ~CudaTransferEngine() override {
    ScopedDevice scope(device_);
    (void)cudaStreamSynchronize(second_);
    (void)cudaStreamDestroy(second_);
    (void)cudaEventDestroy(fork_);
    (void)cudaEventDestroy(join_);
  }

  std::string name() const override { return sm_copies_ ? "cuda sm copy" : "cuda copy engine"; }

  Result<std::unique_ptr<bench::TransferBuffer>> AllocateHost(size_t bytes,
                                                              bench::HostMemoryKind kind,
                                                              int numa_node) override {
    if (numa_node >= 0 && numa_node != numa_node_) {
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("unsupported: the CUDA engine does not bind host buffers to "
                                   "NUMA node {}",
                                   numa_node));
    }
    if (kind == bench::HostMemoryKind::kPageable) {
      if (sm_copies_) {
        return MakeError(ErrorCode::kUnsupported,
                         "unsupported: SM copies need page-locked (pinned) host memory");
      }
      void* data = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
      if (data == nullptr) {
        return MakeError(ErrorCode::kUnavailable,
                         fmt::format("cannot allocate {} bytes of host memory", bytes));
      }
      // cudaMemcpyAsync from pageable memory can return only after the copy: a spin kernel
      // holding the stream would then wait for its timeout.
      queue_->set_spin_gate(false);
      return std::unique_ptr<bench::TransferBuffer>(
          new CudaTransferBuffer(data, bytes, BufferKind::kPageableHost, device_));
    }
    ScopedDevice scope(device_);
    void* data = nullptr;
    if (cudaError_t e = cudaMallocHost(&data, bytes == 0 ? 1 : bytes); e != cudaSuccess) {
      (void)cudaGetLastError();
      return MakeError(
          ErrorCode::kUnsupported,
          fmt::format("unsupported: cudaMallocHost of {} bytes: {}", bytes, cudaGetErrorString(e)));
    }
    return std::unique_ptr<bench::TransferBuffer>(
        new CudaTransferBuffer(data, bytes, BufferKind::kPinnedHost, device_));
  }

  Result<std::unique_ptr<bench::TransferBuffer>> AllocateDevice(size_t bytes) override {
    ScopedDevice scope(device_);
    void* data = nullptr;
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaMalloc(&data, bytes == 0 ? 1 : bytes));
    return std::unique_ptr<bench::TransferBuffer>(
        new CudaTransferBuffer(data, bytes, BufferKind::kDevice, device_));
  }

  Status Fill(bench::TransferBuffer& buffer, uint64_t seed) override {
    if (!buffer.on_device()) {
      FillHost(static_cast<uint8_t*>(buffer.data()), buffer.bytes(), seed);
      return Status::Ok();
    }
    ScopedDevice scope(device_);
    XPUPERF_CUDA_RETURN_IF_ERROR(
        kernels::LaunchFillBytes(buffer.data(), buffer.bytes(), seed, queue_->stream()));
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(queue_->stream()));
    return Status::Ok();
  }

  Status Verify(bench::TransferBuffer& buffer, uint64_t seed) override {
    // A CUDA error while timing (the queue keeps the first) makes the samples meaningless.
    XPUPERF_RETURN_IF_ERROR(queue_->status());
    ScopedDevice scope(device_);
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(queue_->stream()));
    if (!buffer.on_device()) {
      return VerifyHost(static_cast<const uint8_t*>(buffer.data()), buffer.bytes(), seed);
    }
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer counters, DeviceBuffer::Allocate(2 * sizeof(uint64_t)));
    const unsigned long long initial[2] = {0, ~0ull};
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(counters.get(), initial, sizeof(initial),
                                                 cudaMemcpyHostToDevice, queue_->stream()));
    auto* c = counters.as<unsigned long long>();
    XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchVerifyBytes(buffer.data(), buffer.bytes(), seed, c,
                                                            c + 1, queue_->stream()));
    unsigned long long result[2] = {0, 0};
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(result, counters.get(), sizeof(result),
                                                 cudaMemcpyDeviceToHost, queue_->stream()));
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(queue_->stream()));
    if (result[0] != 0) {
      return MakeError(
          ErrorCode::kInternal,
          fmt::format("device buffer: {} words wrong, the first at byte {}", result[0], result[1]));
    }
    return Status::Ok();
  }

  Status EnqueueCopy(bench::TransferBuffer& dst, bench::TransferBuffer& src,
                     size_t bytes) override {
    XPUPERF_RETURN_IF_ERROR(CheckSizes(dst, src, bytes));
    if (sm_copies_) {
      return CudaCheck(
          kernels::LaunchCopy(dst.data(), src.data(), bytes, blocks_, queue_->stream()),
          "copy kernel");
    }
    return CudaCheck(
        cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDefault, queue_->stream()),
        "cudaMemcpyAsync");
  }

  Status EnqueueConcurrentCopies(bench::TransferBuffer& dst1, bench::TransferBuffer& src1,
                                 bench::TransferBuffer& dst2, bench::TransferBuffer& src2,
                                 size_t bytes) override {
    XPUPERF_RETURN_IF_ERROR(CheckSizes(dst1, src1, bytes));
    XPUPERF_RETURN_IF_ERROR(CheckSizes(dst2, src2, bytes));
    const cudaStream_t main = queue_->stream();
    if (sm_copies_) {
      return CudaCheck(kernels::LaunchDualCopy(dst1.data(), src1.data(), dst2.data(), src2.data(),
                                               bytes, blocks_, main),
                       "dual copy kernel");
    }
    // The second copy runs on a second stream that forks from and joins the timed one.
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaEventRecord(fork_, main));
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(second_, fork_, 0));
    XPUPERF_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(dst1.data(), src1.data(), bytes, cudaMemcpyDefault, main));
    XPUPERF_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(dst2.data(), src2.data(), bytes, cudaMemcpyDefault, second_));
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaEventRecord(join_, second_));
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(main, join_, 0));
    return Status::Ok();
  }

  bench::ExecutionQueue& queue() override { return *queue_; }
  int device_numa_node() const override { return numa_node_; }

 private:
  static Status CheckSizes(bench::TransferBuffer& dst, bench::TransferBuffer& src, size_t bytes) {
    if (bytes > dst.bytes() || bytes > src.bytes()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("copy of {} bytes between buffers of {} and {} bytes", bytes,
                                   src.bytes(), dst.bytes()));
    }
    return Status::Ok();
  }

  int device_;
  bool sm_copies_;
  std::unique_ptr<CudaQueue> queue_;
  cudaStream_t second_;
  cudaEvent_t fork_;
  cudaEvent_t join_;
  int blocks_;
  int numa_node_;
};

}  // namespace

int PciNumaNode(const std::string& root, const std::string& bus_id) {
  std::string id = bus_id;
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // The CUDA runtime prints an 8-digit domain; sysfs uses 4.
  if (id.size() == 16 && id.compare(0, 4, "0000") == 0) id = id.substr(4);
  std::ifstream file(root + "/sys/bus/pci/devices/" + id + "/numa_node");
  int node = -1;
  if (!(file >> node)) return -1;
  return node < 0 ? -1 : node;
}

Result<std::unique_ptr<bench::TransferEngine>> MakeCudaTransferEngine(int device, bool sm_copies) {
  XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo info, QueryDevice(device));
  ScopedDevice scope(device);
  XPUPERF_ASSIGN_OR_RETURN(std::unique_ptr<CudaQueue> queue, CudaQueue::Create(device));
  cudaStream_t second = nullptr;
  cudaEvent_t fork = nullptr;
  cudaEvent_t join = nullptr;
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  char bus_id[32] = {};
  int numa_node = -1;
  if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device) == cudaSuccess) {
    numa_node = PciNumaNode("/", bus_id);
  } else {
    (void)cudaGetLastError();  // the NUMA node stays unknown; later launches must not see this
  }
  const int blocks = info.multiprocessors * 4;
  return std::unique_ptr<bench::TransferEngine>(new CudaTransferEngine(
      device, sm_copies, std::move(queue), second, fork, join, blocks, numa_node));
}

}  // namespace xpuperf::cuda_bench
