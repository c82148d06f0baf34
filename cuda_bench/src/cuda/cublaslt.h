// cuBLASLt loaded with dlopen: the toolkit header gives the types and prototypes (decltype), the
// library is found at run time, so nothing links against it.
#pragma once

#include <cublasLt.h>

#include "xpuperf/core/status.h"
#include "xpuperf/cuda_bench/library_loader.h"

namespace xpuperf::cuda_bench {

struct CublasLt {
  DynamicLibrary library;
  decltype(&cublasLtCreate) Create = nullptr;
  decltype(&cublasLtDestroy) Destroy = nullptr;
  decltype(&cublasLtGetVersion) GetVersion = nullptr;
  decltype(&cublasLtMatmul) Matmul = nullptr;
  decltype(&cublasLtMatmulDescCreate) MatmulDescCreate = nullptr;
  decltype(&cublasLtMatmulDescDestroy) MatmulDescDestroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) MatmulDescSetAttribute = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) MatrixLayoutCreate = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) MatrixLayoutDestroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) MatmulPreferenceCreate = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) MatmulPreferenceDestroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) MatmulPreferenceSetAttribute = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) MatmulAlgoGetHeuristic = nullptr;
};

// The process's cuBLASLt (libcublasLt.so.13, libcublasLt.so, then under the toolkit), loaded
// once. kUnsupported "unsupported: libcublasLt.so.13 not found (...)" without it.
Result<const CublasLt*> LoadCublasLt();
// Loads from the given candidates (tests use it with a missing library).
Result<CublasLt> LoadCublasLtFrom(const std::vector<std::string>& candidates);

// Ok, or kInternal "<what>: cuBLASLt status <n>".
Status CublasCheck(cublasStatus_t status, const char* what);

}  // namespace xpuperf::cuda_bench
