// The device-memory pattern test and the verified stress of `xpuperf diag` on a CUDA device.
#include "xpuperf/cuda_bench/device_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "cuda/cuda_queue.h"
#include "cuda/cuda_util.h"
#include "kernels.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/cuda_bench/cuda_benchmarks.h"
#include "xpuperf/cuda_bench/memory_test_patterns.h"

namespace xpuperf::cuda_bench {
namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kChains = 8;
// x <- x * 1 + 1/16 from x0 = 1 + j/8 + (thread mod 8)/16: exact in fp32 for 2^14 steps (every
// value a multiple of 1/16 below 2^11), so each thread's sum is known exactly and one wrong step
// anywhere in the chain stays in it.
constexpr double kStressMultiplier = 1.0;
constexpr double kStressAddend = 0.0625;
constexpr int64_t kStressIterations = int64_t{1} << 14;

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Result<int> DeviceAt(const std::string& pci_bus_id) {
  XPUPERF_RETURN_IF_ERROR(CudaAvailability());
  int device = -1;
  if (cudaError_t e = cudaDeviceGetByPCIBusId(&device, pci_bus_id.c_str()); e != cudaSuccess) {
    (void)cudaGetLastError();
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("unsupported: the CUDA runtime sees no device at PCI {}: {}",
                                 pci_bus_id, cudaGetErrorString(e)));
  }
  return device;
}

// The bytes to test: what was asked, at most 90 % of the free memory, whole words.
uint64_t BytesToTest(int device, uint64_t asked) {
  const uint64_t free = FreeDeviceBytes(device);
  uint64_t bytes = free > 0 ? std::min<uint64_t>(asked, free / 10 * 9) : asked;
  return bytes / 8 * 8;
}

struct Counters {
  DeviceBuffer buffer;  // {wrong, first_wrong}
  static Result<Counters> Create() {
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::Allocate(2 * sizeof(uint64_t)));
    return Counters{std::move(b)};
  }
  unsigned long long* wrong() const { return buffer.as<unsigned long long>(); }
  unsigned long long* first_wrong() const { return buffer.as<unsigned long long>() + 1; }
  Status Reset(cudaStream_t stream) const {
    const unsigned long long initial[2] = {0, std::numeric_limits<unsigned long long>::max()};
    XPUPERF_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(buffer.get(), initial, sizeof(initial), cudaMemcpyHostToDevice, stream));
    return Status::Ok();
  }
};

// One pattern written and verified; the wrong words are added to *result.
Status OnePattern(const DeviceBuffer& data, uint64_t words, int pattern, uint64_t seed,
                  const Counters& counters, const DeviceMemoryTestOptions& options,
                  cudaStream_t stream, DeviceMemoryTestResult& result) {
  auto* words_ptr = data.as<uint64_t>();
  XPUPERF_RETURN_IF_ERROR(counters.Reset(stream));
  XPUPERF_RETURN_IF_ERROR(
      CudaCheck(kernels::LaunchMemtestFill(words_ptr, words, pattern, seed, stream), "fill"));
  if (options.inject_fault_at_word && *options.inject_fault_at_word < words) {
    const uint64_t wrong = ~MemoryTestWord(pattern, *options.inject_fault_at_word, seed);
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(words_ptr + *options.inject_fault_at_word, &wrong,
                                                 sizeof(wrong), cudaMemcpyHostToDevice, stream));
  }
  XPUPERF_RETURN_IF_ERROR(
      CudaCheck(kernels::LaunchMemtestVerify(words_ptr, words, pattern, seed, counters.wrong(),
                                             counters.first_wrong(), stream),
                "verify"));
  XPUPERF_ASSIGN_OR_RETURN(const unsigned long long wrong, ReadCounter(counters.wrong(), stream));
  result.words_checked += words;
  ++result.patterns;
  if (wrong == 0) return Status::Ok();
  if (result.errors == 0) {
    XPUPERF_ASSIGN_OR_RETURN(const unsigned long long index,
                             ReadCounter(counters.first_wrong(), stream));
    uint64_t read = 0;
    XPUPERF_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(&read, words_ptr + index, sizeof(read), cudaMemcpyDeviceToHost));
    result.first_error = fmt::format("pattern {}: word {} read {:#018x} expected {:#018x}",
                                     kMemoryTestPatternNames[pattern], index, read,
                                     MemoryTestWord(pattern, index, seed));
  }
  result.errors += wrong;
  return Status::Ok();
}

// Each thread's FMA sum for the stress chains, by thread mod 8, computed on the host in fp32.
std::vector<double> ExpectedChainSums() {
  std::vector<double> sums(8);
  for (int phase = 0; phase < 8; ++phase) {
    double sum = 0;
    for (int j = 0; j < kChains; ++j) {
      float x = 1.0f + 0.125f * static_cast<float>(j) + 0.0625f * static_cast<float>(phase);
      for (int64_t i = 0; i < kStressIterations; ++i) {
        x = std::fma(x, static_cast<float>(kStressMultiplier), static_cast<float>(kStressAddend));
      }
      sum += x;
    }
    sums[static_cast<size_t>(phase)] = sum;
  }
  return sums;
}

}  // namespace

Result<DeviceMemoryTestResult> RunDeviceMemoryTest(const std::string& pci_bus_id,
                                                   const DeviceMemoryTestOptions& options) {
  XPUPERF_ASSIGN_OR_RETURN(const int device, DeviceAt(pci_bus_id));
  ScopedDevice scope(device);
  const uint64_t bytes = BytesToTest(device, options.bytes);
  if (bytes == 0) return MakeError(ErrorCode::kInvalidArgument, "no device memory to test");
  XPUPERF_ASSIGN_OR_RETURN(auto queue, CudaQueue::Create(device));
  XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer data, DeviceBuffer::Allocate(bytes));
  XPUPERF_ASSIGN_OR_RETURN(Counters counters, Counters::Create());
  const auto start = std::chrono::steady_clock::now();
  DeviceMemoryTestResult result;
  result.bytes = bytes;
  for (int pass = 0; pass < options.passes; ++pass) {
    for (int pattern = 0; pattern < kMemoryTestPatterns; ++pattern) {
      if (CancellationRequested()) return MakeError(ErrorCode::kUnavailable, "interrupted");
      XPUPERF_RETURN_IF_ERROR(OnePattern(data, bytes / 8, pattern,
                                         options.seed + static_cast<uint64_t>(pass), counters,
                                         options, queue->stream(), result));
    }
  }
  result.seconds = Since(start);
  return result;
}

Result<DeviceStressResult> RunDeviceStress(const std::string& pci_bus_id, uint64_t bytes,
                                           const std::atomic<bool>& stop) {
  XPUPERF_ASSIGN_OR_RETURN(const int device, DeviceAt(pci_bus_id));
  ScopedDevice scope(device);
  XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo info, QueryDevice(device));
  XPUPERF_ASSIGN_OR_RETURN(auto queue, CudaQueue::Create(device));
  const int blocks =
      info.multiprocessors * std::max(1, info.max_threads_per_multiprocessor / kThreadsPerBlock);
  const size_t threads = static_cast<size_t>(blocks) * kThreadsPerBlock;
  XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer sums_device,
                           DeviceBuffer::Allocate(threads * sizeof(double)));
  const uint64_t memory_bytes = BytesToTest(device, bytes);
  XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer data, DeviceBuffer::Allocate(memory_bytes));
  XPUPERF_ASSIGN_OR_RETURN(Counters counters, Counters::Create());
  const std::vector<double> expected = ExpectedChainSums();
  std::vector<double> sums(threads);
  DeviceStressResult result;
  DeviceMemoryTestResult memory;
  const auto start = std::chrono::steady_clock::now();
  while (!stop.load() && !CancellationRequested()) {
    XPUPERF_RETURN_IF_ERROR(
        CudaCheck(kernels::LaunchFmaChains(kernels::FmaType::kFp32, sums_device.as<double>(),
                                           blocks, kThreadsPerBlock, kStressIterations,
                                           kStressMultiplier, kStressAddend, queue->stream()),
                  "FMA kernel"));
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(sums.data(), sums_device.get(),
                                                 threads * sizeof(double), cudaMemcpyDeviceToHost,
                                                 queue->stream()));
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(queue->stream()));
    for (size_t t = 0; t < threads; ++t) {
      if (sums[t] == expected[t % 8]) continue;
      if (result.compute_mismatches++ == 0 && result.first_error.empty()) {
        result.first_error =
            fmt::format("FMA thread {} sum {} expected {}", t, sums[t], expected[t % 8]);
      }
    }
    if (memory_bytes > 0) {
      XPUPERF_RETURN_IF_ERROR(OnePattern(data, memory_bytes / 8, kMemoryTestPatterns - 1,
                                         result.rounds + 1, counters, {}, queue->stream(), memory));
      if (memory.errors > result.memory_errors && result.first_error.empty())
        result.first_error = memory.first_error;
      result.memory_errors = memory.errors;
    }
    ++result.rounds;
  }
  result.seconds = Since(start);
  return result;
}

}  // namespace xpuperf::cuda_bench
