// The baselines the GPU benchmarks are compared with (docs/PERFORMANCE.md): the library or runtime
// call alone in a bare loop timed with events, no xpuperf engine around it.
//   cuda_baselines gemm M N K      bf16 cublasLtMatmul (D = A^T B, fp32 accumulation), TFLOP/s
//   cuda_baselines h2d|d2h BYTES   cudaMemcpyAsync with pinned host memory, GB/s
//   cuda_baselines d2d BYTES       cudaMemcpyAsync device to device, GB/s counting read + write
// Prints the median of 7 timed batches, each after a warm-up.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels.h"

namespace {

void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cuda_baselines: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void Check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cuda_baselines: %s: cuBLASLt status %d\n", what, static_cast<int>(s));
    std::exit(1);
  }
}

template <typename Enqueue>
double MedianSeconds(int per_batch, Enqueue enqueue) {
  cudaEvent_t start, stop;
  Check(cudaEventCreate(&start), "event");
  Check(cudaEventCreate(&stop), "event");
  for (int i = 0; i < per_batch; ++i) enqueue();  // warm-up
  Check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> seconds;
  for (int batch = 0; batch < 7; ++batch) {
    Check(cudaEventRecord(start, nullptr), "record");
    for (int i = 0; i < per_batch; ++i) enqueue();
    Check(cudaEventRecord(stop, nullptr), "record");
    Check(cudaEventSynchronize(stop), "sync");
    float ms = 0;
    Check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    seconds.push_back(ms / 1e3 / per_batch);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

int Gemm(int64_t m, int64_t n, int64_t k) {
  using namespace xpuperf::cuda_bench;
  void *a, *b, *d, *workspace;
  const size_t workspace_bytes = size_t{32} << 20;
  Check(cudaMalloc(&a, m * k * 2), "malloc");
  Check(cudaMalloc(&b, k * n * 2), "malloc");
  Check(cudaMalloc(&d, m * n * 2), "malloc");
  Check(cudaMalloc(&workspace, workspace_bytes), "malloc");
  Check(kernels::LaunchFillUniform(kernels::ElementType::kBf16, a, m * k, 1, nullptr), "fill");
  Check(kernels::LaunchFillUniform(kernels::ElementType::kBf16, b, k * n, 2, nullptr), "fill");
  cublasLtHandle_t handle;
  Check(cublasLtCreate(&handle), "create");
  cublasLtMatmulDesc_t desc;
  Check(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
  const cublasOperation_t t = CUBLAS_OP_T;
  Check(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t)), "transa");
  cublasLtMatrixLayout_t la, lb, ld;
  Check(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, k, m, k), "layout");
  Check(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, n, k), "layout");
  Check(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, m, n, m), "layout");
  cublasLtMatmulPreference_t preference;
  Check(cublasLtMatmulPreferenceCreate(&preference), "preference");
  const uint64_t ws = workspace_bytes;
  Check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &ws, sizeof(ws)),
        "workspace");
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  Check(cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, ld, ld, preference, 1, &heuristic,
                                       &found),
        "heuristic");
  if (found == 0) {
    std::fprintf(stderr, "cuda_baselines: no algorithm\n");
    return 1;
  }
  const float alpha = 1, beta = 0;
  const double seconds = MedianSeconds(20, [&] {
    Check(cublasLtMatmul(handle, desc, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &heuristic.algo,
                         workspace, workspace_bytes, nullptr),
          "matmul");
  });
  std::printf("bf16 cublasLtMatmul %lldx%lldx%lld: %.1f TFLOP/s (median %.4g ms)\n",
              static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k),
              2.0 * m * n * k / seconds / 1e12, seconds * 1e3);
  return 0;
}

int Copy(const std::string& direction, size_t bytes) {
  void *host = nullptr, *device = nullptr, *device2 = nullptr;
  Check(cudaMallocHost(&host, bytes), "cudaMallocHost");
  Check(cudaMalloc(&device, bytes), "malloc");
  Check(cudaMalloc(&device2, bytes), "malloc");
  Check(xpuperf::cuda_bench::kernels::LaunchFillBytes(device, bytes, 7, nullptr), "fill");
  void* dst = direction == "h2d" ? device : direction == "d2h" ? host : device2;
  void* src = direction == "h2d" ? host : device;
  const double seconds = MedianSeconds(10, [&] {
    Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, nullptr), "cudaMemcpyAsync");
  });
  const double counted = direction == "d2d" ? 2.0 * bytes : 1.0 * bytes;
  std::printf("%s cudaMemcpyAsync %zu bytes: %.2f GB/s (median %.4g ms)\n", direction.c_str(),
              bytes, counted / seconds / 1e9, seconds * 1e3);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "gemm" && argc == 5) {
    return Gemm(std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4]));
  }
  if ((what == "h2d" || what == "d2h" || what == "d2d") && argc == 3) {
    return Copy(what, static_cast<size_t>(std::atoll(argv[2])));
  }
  std::fprintf(stderr, "usage: cuda_baselines gemm M N K | h2d|d2h|d2d BYTES\n");
  return 2;
}
