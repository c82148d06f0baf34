// gpu_gemm: cuBLASLt D = A^T B (column-major, A k x m, B k x n, D m x n), alpha 1, beta 0.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "cuda/cublaslt.h"
#include "cuda/gpu_benchmarks.h"
#include "kernels.h"
#include "xpuperf/cuda_bench/formulas.h"

namespace xpuperf::cuda_bench {
namespace {

constexpr size_t kWorkspaceBytes = size_t{32} << 20;
constexpr int kCheckedEntries = 256;

struct TypeSetup {
  cudaDataType_t ab;
  cudaDataType_t cd;
  cublasComputeType_t compute;
  cudaDataType_t scale;
  kernels::ElementType in;
  kernels::ElementType out;
  // |D - ref| <= accumulation x sum |a b| + output x |ref|: accumulation rounding (tf32 also
  // rounds the inputs), then the rounding of the stored output.
  double accumulation_tolerance;
  double output_tolerance;
};

TypeSetup SetupFor(GpuPrecision precision) {
  switch (precision) {
    case GpuPrecision::kFp64:
      return {CUDA_R_64F,
              CUDA_R_64F,
              CUBLAS_COMPUTE_64F,
              CUDA_R_64F,
              kernels::ElementType::kF64,
              kernels::ElementType::kF64,
              1e-12,
              0};
    case GpuPrecision::kFp32:
      return {CUDA_R_32F,
              CUDA_R_32F,
              CUBLAS_COMPUTE_32F,
              CUDA_R_32F,
              kernels::ElementType::kF32,
              kernels::ElementType::kF32,
              1e-5,
              0};
    case GpuPrecision::kTf32:
      return {CUDA_R_32F,
              CUDA_R_32F,
              CUBLAS_COMPUTE_32F_FAST_TF32,
              CUDA_R_32F,
              kernels::ElementType::kF32,
              kernels::ElementType::kF32,
              4e-3,
              0};
    case GpuPrecision::kFp16:
      return {CUDA_R_16F,
              CUDA_R_16F,
              CUBLAS_COMPUTE_32F,
              CUDA_R_32F,
              kernels::ElementType::kF16,
              kernels::ElementType::kF16,
              1e-4,
              1.0 / 1024};
    case GpuPrecision::kBf16:
      return {CUDA_R_16BF,
              CUDA_R_16BF,
              CUBLAS_COMPUTE_32F,
              CUDA_R_32F,
              kernels::ElementType::kBf16,
              kernels::ElementType::kBf16,
              1e-4,
              1.0 / 128};
    case GpuPrecision::kFp8:
      // Hopper's fp8 tensor cores accumulate with fewer than fp32's bits.
      return {CUDA_R_8F_E4M3,
              CUDA_R_16BF,
              CUBLAS_COMPUTE_32F,
              CUDA_R_32F,
              kernels::ElementType::kFp8E4M3,
              kernels::ElementType::kBf16,
              1e-3,
              1.0 / 128};
  }
  return {};
}

// Owns the cuBLASLt objects of one problem.
class LtMatmul {
 public:
  explicit LtMatmul(const CublasLt& lt) : lt_(lt) {}
  ~LtMatmul() {
    if (preference_ != nullptr) lt_.MatmulPreferenceDestroy(preference_);
    for (cublasLtMatrixLayout_t layout : {a_, b_, c_}) {
      if (layout != nullptr) lt_.MatrixLayoutDestroy(layout);
    }
    if (desc_ != nullptr) lt_.MatmulDescDestroy(desc_);
    if (handle_ != nullptr) lt_.Destroy(handle_);
  }
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  Status Prepare(const TypeSetup& setup, const bench::GemmShape& s) {
    XPUPERF_RETURN_IF_ERROR(CublasCheck(lt_.Create(&handle_), "cublasLtCreate"));
    XPUPERF_RETURN_IF_ERROR(
        CublasCheck(lt_.MatmulDescCreate(&desc_, setup.compute, setup.scale), "MatmulDescCreate"));
    const cublasOperation_t transpose = CUBLAS_OP_T;
    const cublasOperation_t none = CUBLAS_OP_N;
    XPUPERF_RETURN_IF_ERROR(
        CublasCheck(lt_.MatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose,
                                               sizeof(transpose)),
                    "TRANSA"));
    XPUPERF_RETURN_IF_ERROR(CublasCheck(
        lt_.MatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof(none)),
        "TRANSB"));
    XPUPERF_RETURN_IF_ERROR(
        CublasCheck(lt_.MatrixLayoutCreate(&a_, setup.ab, static_cast<uint64_t>(s.k),
                                           static_cast<uint64_t>(s.m), s.k),
                    "layout A"));
    XPUPERF_RETURN_IF_ERROR(
        CublasCheck(lt_.MatrixLayoutCreate(&b_, setup.ab, static_cast<uint64_t>(s.k),
                                           static_cast<uint64_t>(s.n), s.k),
                    "layout B"));
    XPUPERF_RETURN_IF_ERROR(
        CublasCheck(lt_.MatrixLayoutCreate(&c_, setup.cd, static_cast<uint64_t>(s.m),
                                           static_cast<uint64_t>(s.n), s.m),
                    "layout D"));
    XPUPERF_RETURN_IF_ERROR(
        CublasCheck(lt_.MatmulPreferenceCreate(&preference_), "MatmulPreferenceCreate"));
    const uint64_t workspace = kWorkspaceBytes;
    XPUPERF_RETURN_IF_ERROR(CublasCheck(
        lt_.MatmulPreferenceSetAttribute(preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                         &workspace, sizeof(workspace)),
        "workspace preference"));
    int found = 0;
    XPUPERF_RETURN_IF_ERROR(
        CublasCheck(lt_.MatmulAlgoGetHeuristic(handle_, desc_, a_, b_, c_, c_, preference_, 1,
                                               &heuristic_, &found),
                    "MatmulAlgoGetHeuristic"));
    if (found == 0) {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: cuBLASLt offers no algorithm for this precision and shape");
    }
    return Status::Ok();
  }

  cublasStatus_t Run(const void* alpha, const void* a, const void* b, const void* beta, void* d,
                     void* workspace, cudaStream_t stream) const {
    return lt_.Matmul(handle_, desc_, alpha, a, a_, b, b_, beta, d, c_, d, c_, &heuristic_.algo,
                      workspace, kWorkspaceBytes, stream);
  }

 private:
  const CublasLt& lt_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr;
  cublasLtMatrixLayout_t b_ = nullptr;
  cublasLtMatrixLayout_t c_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
};

struct OperandSet {
  DeviceBuffer a;
  DeviceBuffer b;
  DeviceBuffer d;
};

class GpuGemmBenchmark final : public GpuBenchmark {
 public:
  GpuGemmBenchmark() : GpuBenchmark("gpu_gemm") {}

 protected:
  Status CheckPoint(const CudaDeviceInfo& device, const nlohmann::json& point) const override {
    XPUPERF_ASSIGN_OR_RETURN(const GpuGemmPoint parsed, ParseGpuGemmPoint(point));
    XPUPERF_RETURN_IF_ERROR(LoadCublasLt());
    const int minimum =
        parsed.precision == GpuPrecision::kFp8 ? 90 : MinComputeCapability(parsed.precision, true);
    XPUPERF_RETURN_IF_ERROR(CheckComputeCapability(
        device, minimum, fmt::format("{} GEMM", GpuPrecisionName(parsed.precision))));
    const double bytes = GpuGemmBytes(parsed.shape, parsed.precision) + kWorkspaceBytes;
    if (bytes > 0.8 * static_cast<double>(device.memory_bytes)) {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: the matrices do not fit in this GPU's memory");
    }
    return Status::Ok();
  }

 public:
  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const GpuGemmPoint parsed, ParseGpuGemmPoint(point));
    XPUPERF_ASSIGN_OR_RETURN(const CublasLt* lt, LoadCublasLt());
    XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo device, TargetDevice(context));
    ScopedDevice scope(device.index);
    XPUPERF_ASSIGN_OR_RETURN(auto queue, CudaQueue::Create(device.index));
    const TypeSetup setup = SetupFor(parsed.precision);
    const bench::GemmShape& s = parsed.shape;
    const size_t a_elements = static_cast<size_t>(s.k * s.m);
    const size_t b_elements = static_cast<size_t>(s.k * s.n);
    const size_t d_elements = static_cast<size_t>(s.m * s.n);
    const size_t in_bytes = static_cast<size_t>(InputElementBytes(parsed.precision));
    const size_t out_bytes = static_cast<size_t>(OutputElementBytes(parsed.precision));
    const uint64_t set_bytes =
        a_elements * in_bytes + b_elements * in_bytes + d_elements * out_bytes;
    const int sets = RotationSets(set_bytes, device.l2_bytes, FreeDeviceBytes(device.index));

    LtMatmul matmul(*lt);
    XPUPERF_RETURN_IF_ERROR(matmul.Prepare(setup, s));
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer workspace, DeviceBuffer::Allocate(kWorkspaceBytes));
    std::vector<OperandSet> operands;
    for (int i = 0; i < sets; ++i) {
      OperandSet set;
      XPUPERF_ASSIGN_OR_RETURN(set.a, DeviceBuffer::Allocate(a_elements * in_bytes));
      XPUPERF_ASSIGN_OR_RETURN(set.b, DeviceBuffer::Allocate(b_elements * in_bytes));
      XPUPERF_ASSIGN_OR_RETURN(set.d, DeviceBuffer::Allocate(d_elements * out_bytes));
      XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchFillUniform(setup.in, set.a.get(), a_elements,
                                                              1000 + 2 * i, queue->stream()));
      XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchFillUniform(setup.in, set.b.get(), b_elements,
                                                              1001 + 2 * i, queue->stream()));
      // NaN everywhere until the product overwrites it.
      XPUPERF_CUDA_RETURN_IF_ERROR(
          cudaMemsetAsync(set.d.get(), 0xFF, d_elements * out_bytes, queue->stream()));
      operands.push_back(std::move(set));
    }
    const double alpha64 = 1.0;
    const double beta64 = 0.0;
    const float alpha32 = 1.0f;
    const float beta32 = 0.0f;
    const bool double_scale = setup.scale == CUDA_R_64F;
    const void* alpha = double_scale ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = double_scale ? static_cast<const void*>(&beta64) : &beta32;
    int64_t next = 0;
    const auto run = [&](int64_t repetitions) {
      for (int64_t r = 0; r < repetitions; ++r) {
        const OperandSet& set = operands[static_cast<size_t>(next++ % sets)];
        queue->Record(CublasCheck(matmul.Run(alpha, set.a.get(), set.b.get(), beta, set.d.get(),
                                             workspace.get(), queue->stream()),
                                  "cublasLtMatmul"));
      }
    };
    XPUPERF_ASSIGN_OR_RETURN(const bench::TimedSamples samples, Sample(*queue, context, run));

    // Sampled entries of every set, against a double-precision inner product.
    XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer counters, DeviceBuffer::Allocate(2 * sizeof(uint64_t)));
    XPUPERF_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(counters.get(), 0, 2 * sizeof(uint64_t), queue->stream()));
    auto* wrong = counters.as<unsigned long long>();
    // Every set the timed repetitions wrote (all of them unless there were fewer repetitions).
    const int written = static_cast<int>(std::min<int64_t>(sets, next));
    for (int i = 0; i < written; ++i) {
      const OperandSet& set = operands[static_cast<size_t>(i)];
      XPUPERF_CUDA_RETURN_IF_ERROR(
          kernels::LaunchGemmCheck(setup.in, setup.out, set.a.get(), set.b.get(), set.d.get(), s.m,
                                   s.n, s.k, kCheckedEntries, 77 + i, setup.accumulation_tolerance,
                                   setup.output_tolerance, wrong, wrong + 1, queue->stream()));
    }
    unsigned long long host_counters[2] = {0, 0};
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host_counters, counters.get(),
                                                 sizeof(host_counters), cudaMemcpyDeviceToHost,
                                                 queue->stream()));
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(queue->stream()));
    double max_relative = 0;
    std::memcpy(&max_relative, &host_counters[1], sizeof(max_relative));
    const std::string precision(GpuPrecisionName(parsed.precision));
    if (host_counters[0] != 0) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("gpu_gemm {} {}x{}x{}: {} of {} checked entries wrong (largest "
                                   "error {:.3g} of sum |a b|)",
                                   precision, s.m, s.n, s.k, host_counters[0],
                                   kCheckedEntries * written, max_relative));
    }
    const double flops = bench::GemmFlops(s);
    bench::Measurement m =
        Throughput(precision + "_flops", samples, flops, true, point, device, *queue, context);
    m.parameters["precision"] = precision;
    m.parameters["m"] = s.m;
    m.parameters["n"] = s.n;
    m.parameters["k"] = s.k;
    m.parameters["rotation_sets"] = sets;
    m.parameters["bytes"] = GpuGemmBytes(s, parsed.precision);
    m.parameters["cublaslt_version"] = lt->GetVersion();
    m.parameters["max_checked_error"] = max_relative;
    m.bytes_per_repetition = GpuGemmBytes(s, parsed.precision);
    m.formula = fmt::format("FLOP = 2 m n k = 2 x {} x {} x {} = {:.6g}; ", s.m, s.n, s.k, flops) +
                m.formula;
    return std::vector<bench::Measurement>{std::move(m)};
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakeGpuGemmBenchmark() {
  return std::make_unique<GpuGemmBenchmark>();
}

}  // namespace xpuperf::cuda_bench
