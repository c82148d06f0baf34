// gpu_peak_fma: FMA chains in registers, {precision: fp64|fp32|fp16|bf16}.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "cuda/gpu_benchmarks.h"
#include "kernels.h"
#include "xpuperf/cuda_bench/formulas.h"

namespace xpuperf::cuda_bench {
namespace {

// x <- x m + c converges to c / (1 - m) = 1; m and c are exact in every precision. In fp16/bf16
// a chain stops moving once the step 0.25 |1 - x| rounds away, within 2 ulps of 1 (1.6% in bf16).
constexpr double kMultiplier = 0.75;
constexpr double kAddend = 0.25;
constexpr int kThreadsPerBlock = 256;
constexpr int64_t kIterations = int64_t{1} << 14;

Result<GpuPrecision> ParsePrecision(const nlohmann::json& point) {
  XPUPERF_ASSIGN_OR_RETURN(const std::string name, TextParameter(point, "precision", "fp32"));
  XPUPERF_ASSIGN_OR_RETURN(const GpuPrecision precision, ParseGpuPrecision(name));
  if (precision == GpuPrecision::kTf32 || precision == GpuPrecision::kFp8) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "gpu_peak_fma: precision must be fp64, fp32, fp16 or bf16");
  }
  return precision;
}

kernels::FmaType TypeOf(GpuPrecision precision) {
  switch (precision) {
    case GpuPrecision::kFp64:
      return kernels::FmaType::kFp64;
    case GpuPrecision::kFp16:
      return kernels::FmaType::kFp16;
    case GpuPrecision::kBf16:
      return kernels::FmaType::kBf16;
    default:
      return kernels::FmaType::kFp32;
  }
}

// The chain of one thread recomputed on the host: exact for fp32/fp64 (IEEE fma on both sides).
double HostChainSum(GpuPrecision precision, int64_t thread, int64_t iterations) {
  double sum = 0;
  for (int j = 0; j < kGpuFmaChains; ++j) {
    const double x0 = 1.0 + 0.125 * j + 0.0625 * static_cast<double>(thread % 8);
    if (precision == GpuPrecision::kFp32) {
      float x = static_cast<float>(x0);
      for (int64_t i = 0; i < iterations; ++i) {
        x = std::fma(x, static_cast<float>(kMultiplier), static_cast<float>(kAddend));
      }
      sum += x;
    } else {
      double x = x0;
      for (int64_t i = 0; i < iterations; ++i) x = std::fma(x, kMultiplier, kAddend);
      sum += x;
    }
  }
  return sum;
}

class GpuPeakFmaBenchmark final : public GpuBenchmark {
 public:
  GpuPeakFmaBenchmark() : GpuBenchmark("gpu_peak_fma") {}

 protected:
  Status CheckPoint(const CudaDeviceInfo& device, const nlohmann::json& point) const override {
    XPUPERF_ASSIGN_OR_RETURN(const GpuPrecision precision, ParsePrecision(point));
    return CheckComputeCapability(device, MinComputeCapability(precision, false),
                                  GpuPrecisionName(precision));
  }

 public:
  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const GpuPrecision precision, ParsePrecision(point));
    XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo device, TargetDevice(context));
    ScopedDevice scope(device.index);
    XPUPERF_ASSIGN_OR_RETURN(auto queue, CudaQueue::Create(device.index));
    const int blocks_per_sm = std::max(1, device.max_threads_per_multiprocessor / kThreadsPerBlock);
    const int blocks = device.multiprocessors * blocks_per_sm;
    const int64_t threads = static_cast<int64_t>(blocks) * kThreadsPerBlock;
    XPUPERF_ASSIGN_OR_RETURN(const uint64_t requested,
                             CountParameter(point, "iterations", kIterations));
    const auto iterations = static_cast<int64_t>(requested);
    if (iterations < 64 || iterations > (int64_t{1} << 30)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "gpu_peak_fma: iterations must be from 64 to 2^30");
    }
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer out,
                             DeviceBuffer::Allocate(static_cast<size_t>(threads) * sizeof(double)));
    const kernels::FmaType type = TypeOf(precision);
    const auto run = [&](int64_t repetitions) {
      for (int64_t r = 0; r < repetitions; ++r) {
        queue->Record(
            CudaCheck(kernels::LaunchFmaChains(type, out.as<double>(), blocks, kThreadsPerBlock,
                                               iterations, kMultiplier, kAddend, queue->stream()),
                      "FMA kernel"));
      }
    };
    XPUPERF_ASSIGN_OR_RETURN(const bench::TimedSamples samples, Sample(*queue, context, run));

    // Every thread's sum of chains: exact against the host for fp32/fp64, within 3% of the fixed
    // point (8 chains x lanes x 1) for the 16-bit types.
    std::vector<double> sums(static_cast<size_t>(threads));
    XPUPERF_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(sums.data(), out.get(), sums.size() * sizeof(double), cudaMemcpyDeviceToHost));
    const bool exact = precision == GpuPrecision::kFp32 || precision == GpuPrecision::kFp64;
    std::vector<double> expected_by_phase(8);
    for (int64_t t = 0; t < 8; ++t) {
      expected_by_phase[static_cast<size_t>(t)] =
          exact ? HostChainSum(precision, t, iterations)
                : kGpuFmaChains * FmaLanes(precision) * FmaFixedPoint(kMultiplier, kAddend);
    }
    int64_t wrong = 0;
    int64_t first_wrong = -1;
    for (int64_t t = 0; t < threads; ++t) {
      const double expected = expected_by_phase[static_cast<size_t>(t % 8)];
      const double got = sums[static_cast<size_t>(t)];
      const bool ok = exact ? got == expected : std::fabs(got - expected) <= 0.03 * expected;
      if (!ok) {
        if (first_wrong < 0) first_wrong = t;
        ++wrong;
      }
    }
    if (wrong > 0) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("gpu_peak_fma {}: {} of {} threads wrong (first: thread {} "
                                   "sum {} expected {})",
                                   GpuPrecisionName(precision), wrong, threads, first_wrong,
                                   sums[static_cast<size_t>(first_wrong)],
                                   expected_by_phase[static_cast<size_t>(first_wrong % 8)]));
    }
    const double flops = PeakFmaFlops(precision, iterations, threads);
    bench::Measurement m = Throughput(std::string(GpuPrecisionName(precision)) + "_flops", samples,
                                      flops, true, point, device, *queue, context);
    m.parameters["precision"] = GpuPrecisionName(precision);
    m.parameters["blocks"] = blocks;
    m.parameters["threads_per_block"] = kThreadsPerBlock;
    m.parameters["iterations"] = iterations;
    m.formula =
        fmt::format("FLOP = 2 x {} lanes x {} chains x {} iterations x {} threads = {:.6g}; ",
                    FmaLanes(precision), kGpuFmaChains, iterations, threads, flops) +
        m.formula;
    return std::vector<bench::Measurement>{std::move(m)};
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakeGpuPeakFmaBenchmark() {
  return std::make_unique<GpuPeakFmaBenchmark>();
}

}  // namespace xpuperf::cuda_bench
