// The CUDA implementations of the gpu_* benchmarks and their common base.
#pragma once

#include <memory>
#include <string>

#include "cuda/cuda_queue.h"
#include "cuda/cuda_util.h"
#include "gpu_benchmark_info.h"
#include "xpuperf/bench/benchmark.h"
#include "xpuperf/bench/sampler.h"

namespace xpuperf::cuda_bench {

// Name, description and default sweep from GpuBenchmarkInfoFor(name). CanRun: the CUDA driver
// and device must be present, the device must be an NVIDIA one, then CheckPoint decides.
class GpuBenchmark : public bench::Benchmark {
 public:
  explicit GpuBenchmark(const std::string& name) : info_(GpuBenchmarkInfoFor(name)) {}
  std::string name() const override { return info_.name; }
  bench::Component component() const override { return info_.component; }
  std::string description() const override { return info_.description; }
  std::vector<nlohmann::json> default_sweep() const override { return info_.default_sweep; }
  std::optional<bench::ParameterSchema> parameter_schema() const override { return info_.schema; }
  Status CanRun(const Device& device, const nlohmann::json& point) const override;

 protected:
  // kInvalidArgument for a malformed point, kUnsupported when this device cannot run it.
  virtual Status CheckPoint(const CudaDeviceInfo& device, const nlohmann::json& point) const = 0;
  // The device the run targets (context.device->index).
  static Result<CudaDeviceInfo> TargetDevice(const bench::RunContext& context);
  // Runs `run` through the sampler on queue, then returns the queue's first CUDA error, if any.
  static Result<bench::TimedSamples> Sample(CudaQueue& queue, const bench::RunContext& context,
                                            const std::function<void(int64_t)>& run);
  // A throughput measurement from the samples, timed on queue, with the point and the device in
  // its parameters.
  bench::Measurement Throughput(const std::string& metric, const bench::TimedSamples& samples,
                                double count, bool is_flops, const nlohmann::json& point,
                                const CudaDeviceInfo& device, const CudaQueue& queue,
                                const bench::RunContext& context) const;

 private:
  const GpuBenchmarkInfo& info_;
};

std::unique_ptr<bench::Benchmark> MakeGpuPeakFmaBenchmark();
std::unique_ptr<bench::Benchmark> MakeGpuGemmBenchmark();
std::unique_ptr<bench::Benchmark> MakeGpuStreamBenchmark();
std::unique_ptr<bench::Benchmark> MakeGpuL2SweepBenchmark();
std::unique_ptr<bench::Benchmark> MakeGpuHostTransferBenchmark();
std::unique_ptr<bench::Benchmark> MakeGpuCollectivesBenchmark();
std::unique_ptr<bench::Benchmark> MakeGpuAttentionBenchmark();

// The flash-attention kernel against the reference kernel on batch 1, 2 heads, `seq` tokens:
// ||O - ref|| / ||ref||; kInternal when an element is not finite.
Result<double> CheckAttentionAgainstReference(int head_dim, bool causal, int64_t seq,
                                              cudaStream_t stream);

}  // namespace xpuperf::cuda_bench
