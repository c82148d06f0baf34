#include <fmt/format.h>

#include "cuda/gpu_benchmarks.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/cuda_bench/cuda_benchmarks.h"

namespace xpuperf::cuda_bench {

Status GpuBenchmark::CanRun(const Device& device, const nlohmann::json& point) const {
  XPUPERF_RETURN_IF_ERROR(CudaAvailability());
  if (device.backend != "nvidia") {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("unsupported: {} runs on NVIDIA GPUs, not on {} ({})", name(),
                                 device.id, device.backend));
  }
  XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo info, QueryDevice(device.index));
  return CheckPoint(info, point);
}

Result<CudaDeviceInfo> GpuBenchmark::TargetDevice(const bench::RunContext& context) {
  if (context.device == nullptr || context.device->backend != "nvidia") {
    return MakeError(ErrorCode::kInvalidArgument, "a gpu_ benchmark needs an NVIDIA device");
  }
  return QueryDevice(context.device->index);
}

Result<bench::TimedSamples> GpuBenchmark::Sample(CudaQueue& queue, const bench::RunContext& context,
                                                 const std::function<void(int64_t)>& run) {
  XPUPERF_ASSIGN_OR_RETURN(bench::TimedSamples samples,
                           bench::CollectSamples(queue, context.sampling, run));
  XPUPERF_RETURN_IF_ERROR(queue.status());
  return samples;
}

bench::Measurement GpuBenchmark::Throughput(const std::string& metric,
                                            const bench::TimedSamples& samples, double count,
                                            bool is_flops, const nlohmann::json& point,
                                            const CudaDeviceInfo& device, const CudaQueue& queue,
                                            const bench::RunContext& context) const {
  bench::Measurement m = bench::MakeThroughput(name(), metric, samples, count, is_flops, context);
  m.parameters = point;
  m.parameters["device_name"] = device.name;
  m.parameters["compute_capability"] = fmt::format("sm_{}", device.compute_capability);
  m.timing_source = queue.timing_source();
  return m;
}

}  // namespace xpuperf::cuda_bench
