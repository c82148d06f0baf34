#include "cuda/cublaslt.h"

#include <fmt/format.h>

namespace xpuperf::cuda_bench {

Result<CublasLt> LoadCublasLtFrom(const std::vector<std::string>& candidates) {
  XPUPERF_ASSIGN_OR_RETURN(
      DynamicLibrary library,
      DynamicLibrary::Open(candidates, DynamicLibraryOptions{
                                           .expected_symbols = {"cublasLtCreate"},
                                           .kind = "cuBLASLt library",
                                       }));
  CublasLt lt{std::move(library)};
  const DynamicLibrary& l = lt.library;
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.Create, "cublasLtCreate"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.Destroy, "cublasLtDestroy"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.GetVersion, "cublasLtGetVersion"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.Matmul, "cublasLtMatmul"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.MatmulDescCreate, "cublasLtMatmulDescCreate"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.MatmulDescDestroy, "cublasLtMatmulDescDestroy"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.MatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.MatrixLayoutCreate, "cublasLtMatrixLayoutCreate"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.MatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.MatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.MatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy"));
  XPUPERF_RETURN_IF_ERROR(
      l.Bind(&lt.MatmulPreferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&lt.MatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic"));
  return lt;
}

Result<const CublasLt*> LoadCublasLt() {
  static const Result<CublasLt> loaded =
      LoadCublasLtFrom(CudaLibraryCandidates({"libcublasLt.so.13", "libcublasLt.so"}));
  if (!loaded.ok()) return loaded.error();
  return &loaded.value();
}

Status CublasCheck(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  return MakeError(ErrorCode::kInternal,
                   fmt::format("{}: cuBLASLt status {}", what, static_cast<int>(status)));
}

}  // namespace xpuperf::cuda_bench
