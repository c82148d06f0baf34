// gpu_attention: the flash-attention forward kernel in bf16, checked against the fp32 reference
// kernel on a small shape of the same head_dim and mask before the requested shape is timed.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "cuda/gpu_benchmarks.h"
#include "kernels.h"
#include "xpuperf/cuda_bench/formulas.h"

namespace xpuperf::cuda_bench {
namespace {

// bf16 operands and output: METHOD.md's range for bf16 is 1e-3 to 1e-2.
constexpr double kMaxRelativeError = 2e-2;

float Bf16ToFloat(uint16_t bits) {
  const uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float value = 0;
  std::memcpy(&value, &widened, sizeof(value));
  return value;
}

struct Operands {
  DeviceBuffer q, k, v, o;
};

Result<Operands> MakeOperands(const AttentionPoint& p, uint64_t seed, cudaStream_t stream) {
  const size_t elements = static_cast<size_t>(p.batch * p.heads * p.seq * p.head_dim);
  Operands ops;
  XPUPERF_ASSIGN_OR_RETURN(ops.q, DeviceBuffer::Allocate(elements * 2));
  XPUPERF_ASSIGN_OR_RETURN(ops.k, DeviceBuffer::Allocate(elements * 2));
  XPUPERF_ASSIGN_OR_RETURN(ops.v, DeviceBuffer::Allocate(elements * 2));
  XPUPERF_ASSIGN_OR_RETURN(ops.o, DeviceBuffer::Allocate(elements * 2));
  XPUPERF_CUDA_RETURN_IF_ERROR(
      kernels::LaunchFillUniform(kernels::ElementType::kBf16, ops.q.get(), elements, seed, stream));
  XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchFillUniform(kernels::ElementType::kBf16, ops.k.get(),
                                                          elements, seed + 1, stream));
  XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchFillUniform(kernels::ElementType::kBf16, ops.v.get(),
                                                          elements, seed + 2, stream));
  // bf16 NaN everywhere until the kernel writes it.
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(ops.o.get(), 0xFF, elements * 2, stream));
  return ops;
}

cudaError_t LaunchFlash(const AttentionPoint& p, const Operands& ops, cudaStream_t stream) {
  return kernels::LaunchFlashAttention(ops.q.get(), ops.k.get(), ops.v.get(), ops.o.get(),
                                       p.batch * p.heads, p.seq, static_cast<int>(p.head_dim),
                                       p.causal, 1.0f / std::sqrt(static_cast<float>(p.head_dim)),
                                       stream);
}

}  // namespace

// The flash kernel against the reference on a small problem: ||O - ref|| / ||ref|| and NaNs.
// Exposed for the GPU tests through the declaration in their own file.
Result<double> CheckAttentionAgainstReference(int head_dim, bool causal, int64_t seq,
                                              cudaStream_t stream) {
  AttentionPoint small;
  small.batch = 1;
  small.heads = 2;
  small.seq = seq;
  small.head_dim = head_dim;
  small.causal = causal;
  XPUPERF_ASSIGN_OR_RETURN(Operands ops, MakeOperands(small, 4242, stream));
  const size_t elements = static_cast<size_t>(small.heads * small.seq * small.head_dim);
  XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer reference,
                           DeviceBuffer::Allocate(elements * sizeof(float)));
  XPUPERF_CUDA_RETURN_IF_ERROR(LaunchFlash(small, ops, stream));
  XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchAttentionReference(
      ops.q.get(), ops.k.get(), ops.v.get(), reference.as<float>(), small.heads, small.seq,
      head_dim, causal, 1.0f / std::sqrt(static_cast<float>(head_dim)), stream));
  std::vector<uint16_t> flash(elements);
  std::vector<float> expected(elements);
  XPUPERF_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(flash.data(), ops.o.get(), elements * 2, cudaMemcpyDeviceToHost, stream));
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(
      expected.data(), reference.get(), elements * sizeof(float), cudaMemcpyDeviceToHost, stream));
  XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  double error = 0;
  double norm = 0;
  for (size_t i = 0; i < elements; ++i) {
    const double got = Bf16ToFloat(flash[i]);
    if (!std::isfinite(got) || !std::isfinite(expected[i])) {
      return MakeError(
          ErrorCode::kInternal,
          fmt::format("gpu_attention: element {} is {} (reference {})", i, got, expected[i]));
    }
    error += (got - expected[i]) * (got - expected[i]);
    norm += static_cast<double>(expected[i]) * expected[i];
  }
  return norm > 0 ? std::sqrt(error / norm) : std::sqrt(error);
}

namespace {

class GpuAttentionBenchmark final : public GpuBenchmark {
 public:
  GpuAttentionBenchmark() : GpuBenchmark("gpu_attention") {}

 protected:
  Status CheckPoint(const CudaDeviceInfo& device, const nlohmann::json& point) const override {
    XPUPERF_ASSIGN_OR_RETURN(const AttentionPoint parsed, ParseAttentionPoint(point));
    XPUPERF_RETURN_IF_ERROR(CheckComputeCapability(device, 80, "bf16 attention"));
    if (parsed.batch * parsed.heads > 65535) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "gpu_attention: batch x heads must be at most 65535");
    }
    if (AttentionBytes(parsed) > 0.5 * static_cast<double>(device.memory_bytes)) {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: Q, K, V and O do not fit in half of this GPU's memory");
    }
    return Status::Ok();
  }

 public:
  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const AttentionPoint p, ParseAttentionPoint(point));
    XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo device, TargetDevice(context));
    ScopedDevice scope(device.index);
    XPUPERF_ASSIGN_OR_RETURN(auto queue, CudaQueue::Create(device.index));
    XPUPERF_ASSIGN_OR_RETURN(const double check_error,
                             CheckAttentionAgainstReference(static_cast<int>(p.head_dim), p.causal,
                                                            256, queue->stream()));
    if (!(check_error <= kMaxRelativeError)) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("gpu_attention: ||O - ref|| / ||ref|| = {:.3g} on the 256-token "
                                   "check (limit {})",
                                   check_error, kMaxRelativeError));
    }
    XPUPERF_ASSIGN_OR_RETURN(Operands ops, MakeOperands(p, 99, queue->stream()));
    const auto run = [&](int64_t repetitions) {
      for (int64_t r = 0; r < repetitions; ++r) {
        queue->Record(CudaCheck(LaunchFlash(p, ops, queue->stream()), "flash attention kernel"));
      }
    };
    XPUPERF_ASSIGN_OR_RETURN(const bench::TimedSamples samples, Sample(*queue, context, run));
    // The timed output: written everywhere (no NaN left from the poison) and finite.
    const size_t elements = static_cast<size_t>(p.batch * p.heads * p.seq * p.head_dim);
    std::vector<uint16_t> out(std::min<size_t>(elements, size_t{1} << 20));
    XPUPERF_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(out.data(), ops.o.get(), out.size() * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < out.size(); ++i) {
      if (!std::isfinite(Bf16ToFloat(out[i]))) {
        return MakeError(ErrorCode::kInternal,
                         fmt::format("gpu_attention: output element {} is not finite", i));
      }
    }
    const double flops = AttentionFlops(p);
    bench::Measurement m = Throughput(p.causal ? "bf16_causal_flops" : "bf16_flops", samples, flops,
                                      true, point, device, *queue, context);
    m.parameters["batch"] = p.batch;
    m.parameters["heads"] = p.heads;
    m.parameters["seq_len"] = p.seq;
    m.parameters["head_dim"] = p.head_dim;
    m.parameters["causal"] = p.causal;
    m.parameters["check_relative_error"] = check_error;
    m.bytes_per_repetition = AttentionBytes(p);
    m.formula = fmt::format("FLOP = {} h d b with s={} h={} d={} b={} = {:.6g}; ",
                            p.causal ? "(4 s^2 - 2 s^2)" : "4 s^2", p.seq, p.heads, p.head_dim,
                            p.batch, flops) +
                m.formula;
    return std::vector<bench::Measurement>{std::move(m)};
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakeGpuAttentionBenchmark() {
  return std::make_unique<GpuAttentionBenchmark>();
}

}  // namespace xpuperf::cuda_bench
