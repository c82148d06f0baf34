// gpu_stream (HBM STREAM kernels) and gpu_l2_sweep (read bandwidth over working-set sizes).
#include <fmt/format.h>

#include <algorithm>

#include "cuda/gpu_benchmarks.h"
#include "kernels.h"
#include "pattern.h"
#include "xpuperf/bench/stream.h"
#include "xpuperf/cuda_bench/formulas.h"

namespace xpuperf::cuda_bench {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr int kThreadsPerBlock = 256;

kernels::StreamOp OpOf(bench::StreamKernel kernel) {
  switch (kernel) {
    case bench::StreamKernel::kCopy:
      return kernels::StreamOp::kCopy;
    case bench::StreamKernel::kScale:
      return kernels::StreamOp::kScale;
    case bench::StreamKernel::kAdd:
      return kernels::StreamOp::kAdd;
    case bench::StreamKernel::kTriad:
      return kernels::StreamOp::kTriad;
  }
  return kernels::StreamOp::kCopy;
}

int BlocksFilling(const CudaDeviceInfo& device) {
  return device.multiprocessors *
         std::max(1, device.max_threads_per_multiprocessor / kThreadsPerBlock);
}

class GpuStreamBenchmark final : public GpuBenchmark {
 public:
  GpuStreamBenchmark() : GpuBenchmark("gpu_stream") {}

 protected:
  Status CheckPoint(const CudaDeviceInfo& device, const nlohmann::json& point) const override {
    XPUPERF_ASSIGN_OR_RETURN(const std::string kernel, TextParameter(point, "kernel", "triad"));
    XPUPERF_RETURN_IF_ERROR(bench::ParseStreamKernel(kernel));
    XPUPERF_ASSIGN_OR_RETURN(const uint64_t array_mib, CountParameter(point, "array_mib", 0));
    if (!GpuStreamArrayBytes(array_mib, device.l2_bytes, device.memory_bytes).ok()) {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: the STREAM arrays do not fit in this GPU's memory");
    }
    return Status::Ok();
  }

 public:
  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const std::string kernel_text,
                             TextParameter(point, "kernel", "triad"));
    XPUPERF_ASSIGN_OR_RETURN(const bench::StreamKernel kernel,
                             bench::ParseStreamKernel(kernel_text));
    XPUPERF_ASSIGN_OR_RETURN(const uint64_t array_mib, CountParameter(point, "array_mib", 0));
    XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo device, TargetDevice(context));
    XPUPERF_ASSIGN_OR_RETURN(const uint64_t array_bytes,
                             GpuStreamArrayBytes(array_mib, device.l2_bytes, device.memory_bytes));
    ScopedDevice scope(device.index);
    XPUPERF_ASSIGN_OR_RETURN(auto queue, CudaQueue::Create(device.index));
    const size_t n = array_bytes / sizeof(double);
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer a, DeviceBuffer::Allocate(array_bytes));
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::Allocate(array_bytes));
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer c, DeviceBuffer::Allocate(array_bytes));
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer wrong, DeviceBuffer::Allocate(sizeof(uint64_t)));
    XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchStreamInit(a.as<double>(), b.as<double>(),
                                                           c.as<double>(), n, queue->stream()));
    const kernels::StreamOp op = OpOf(kernel);
    const int blocks = BlocksFilling(device);
    const auto run = [&](int64_t repetitions) {
      for (int64_t r = 0; r < repetitions; ++r) {
        queue->Record(
            CudaCheck(kernels::LaunchStream(op, a.as<double>(), b.as<double>(), c.as<double>(),
                                            bench::kStreamScalar, n, blocks, queue->stream()),
                      "STREAM kernel"));
      }
    };
    XPUPERF_ASSIGN_OR_RETURN(const bench::TimedSamples samples, Sample(*queue, context, run));
    XPUPERF_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(wrong.get(), 0, sizeof(uint64_t), queue->stream()));
    XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchStreamVerify(
        op, a.as<double>(), b.as<double>(), c.as<double>(), bench::kStreamScalar, n,
        wrong.as<unsigned long long>(), queue->stream()));
    XPUPERF_ASSIGN_OR_RETURN(const unsigned long long wrong_count,
                             ReadCounter(wrong.as<unsigned long long>(), queue->stream()));
    const std::string kernel_name(bench::StreamKernelName(kernel));
    if (wrong_count != 0) {
      return MakeError(ErrorCode::kInternal, fmt::format("gpu_stream {}: {} of {} elements wrong",
                                                         kernel_name, wrong_count, n));
    }
    const double per_element = bench::StreamBytesPerElement(kernel);
    const double bytes = per_element * static_cast<double>(n);
    bench::Measurement m = Throughput(kernel_name + "_bandwidth", samples, bytes, false, point,
                                      device, *queue, context);
    m.parameters["kernel"] = kernel_name;
    m.parameters["array_bytes"] = array_bytes;
    m.parameters["blocks"] = blocks;
    m.parameters["byte_counting"] = "stream";
    m.flops_per_repetition = bench::StreamFlopsPerElement(kernel) * static_cast<double>(n);
    m.formula = fmt::format(
                    "bytes = {} B/element (STREAM counting, doubles) x {} elements = "
                    "{:.6g}; ",
                    per_element, n, bytes) +
                m.formula;
    return std::vector<bench::Measurement>{std::move(m)};
  }
};

class GpuL2SweepBenchmark final : public GpuBenchmark {
 public:
  GpuL2SweepBenchmark() : GpuBenchmark("gpu_l2_sweep") {}

 protected:
  Status CheckPoint(const CudaDeviceInfo& device, const nlohmann::json& point) const override {
    return L2SweepSizes(point, device.l2_bytes).ok() ? Status::Ok()
                                                     : L2SweepSizes(point, device.l2_bytes).error();
  }

 public:
  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo device, TargetDevice(context));
    XPUPERF_ASSIGN_OR_RETURN(const std::vector<uint64_t> sizes,
                             L2SweepSizes(point, device.l2_bytes));
    ScopedDevice scope(device.index);
    XPUPERF_ASSIGN_OR_RETURN(auto queue, CudaQueue::Create(device.index));
    const uint64_t largest = sizes.back();
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer data, DeviceBuffer::Allocate(largest));
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer sum, DeviceBuffer::Allocate(sizeof(unsigned int)));
    constexpr uint32_t kSeed = 0x5eed;
    XPUPERF_CUDA_RETURN_IF_ERROR(
        kernels::LaunchFillU32(data.as<uint32_t>(), largest / 4, kSeed, queue->stream()));
    // The host's sum of the pattern, one prefix per size.
    std::vector<uint32_t> prefix_sums;
    {
      uint32_t running = 0;
      size_t next = 0;
      for (uint64_t i = 0; i < largest / 4 && next < sizes.size(); ++i) {
        running += PatternU32(kSeed, i);
        if ((i + 1) * 4 == sizes[next]) {
          prefix_sums.push_back(running);
          ++next;
        }
      }
    }
    std::vector<bench::Measurement> out;
    for (size_t s = 0; s < sizes.size(); ++s) {
      const uint64_t bytes = sizes[s];
      const size_t vectors = bytes / 16;
      // Each launch reads at least 256 MiB so that launch overhead stays small.
      const int passes = static_cast<int>(std::max<uint64_t>(1, 256 * kMiB / bytes));
      const int blocks = BlocksFilling(device);
      const auto run = [&](int64_t repetitions) {
        for (int64_t r = 0; r < repetitions; ++r) {
          queue->Record(
              CudaCheck(kernels::LaunchReadSum(data.get(), vectors, passes, sum.as<unsigned int>(),
                                               blocks, queue->stream()),
                        "read kernel"));
        }
      };
      XPUPERF_ASSIGN_OR_RETURN(const bench::TimedSamples samples, Sample(*queue, context, run));
      // One more launch from a zero sum: every word read `passes` times.
      XPUPERF_CUDA_RETURN_IF_ERROR(
          cudaMemsetAsync(sum.get(), 0, sizeof(unsigned int), queue->stream()));
      XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchReadSum(
          data.get(), vectors, passes, sum.as<unsigned int>(), blocks, queue->stream()));
      unsigned int got = 0;
      XPUPERF_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(&got, sum.get(), sizeof(got), cudaMemcpyDeviceToHost, queue->stream()));
      XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(queue->stream()));
      const uint32_t expected = prefix_sums[s] * static_cast<uint32_t>(passes);
      if (got != expected) {
        return MakeError(ErrorCode::kInternal,
                         fmt::format("gpu_l2_sweep: checksum of the {} KiB working set is {:#x}, "
                                     "expected {:#x}",
                                     bytes / 1024, got, expected));
      }
      const double counted = static_cast<double>(bytes) * passes;
      bench::Measurement m =
          Throughput("read_bandwidth", samples, counted, false, point, device, *queue, context);
      m.parameters["working_set_bytes"] = bytes;
      m.parameters["passes"] = passes;
      m.parameters["blocks"] = blocks;
      m.parameters["l2_bytes"] = device.l2_bytes;
      m.formula = fmt::format(
                      "bytes = {} working set x {} passes = {:.6g} (16-byte ld.global.cg "
                      "loads, L1 bypassed); ",
                      bytes, passes, counted) +
                  m.formula;
      out.push_back(std::move(m));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakeGpuStreamBenchmark() {
  return std::make_unique<GpuStreamBenchmark>();
}

std::unique_ptr<bench::Benchmark> MakeGpuL2SweepBenchmark() {
  return std::make_unique<GpuL2SweepBenchmark>();
}

}  // namespace xpuperf::cuda_bench
