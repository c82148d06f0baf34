#include "cuda/nccl.h"

#include <fmt/format.h>

namespace xpuperf::cuda_bench {

Status Nccl::Check(ncclResult_t result, const char* what) const {
  if (result == ncclSuccess) return Status::Ok();
  return MakeError(ErrorCode::kInternal,
                   fmt::format("{}: {} (NCCL {})", what,
                               GetErrorString != nullptr ? GetErrorString(result) : "error",
                               static_cast<int>(result)));
}

Result<Nccl> LoadNcclFrom(const std::vector<std::string>& candidates) {
  XPUPERF_ASSIGN_OR_RETURN(
      DynamicLibrary library,
      DynamicLibrary::Open(candidates, DynamicLibraryOptions{
                                           .expected_symbols = {"ncclGetVersion"},
                                           .kind = "NCCL library",
                                       }));
  Nccl nccl{std::move(library)};
  const DynamicLibrary& l = nccl.library;
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.GetVersion, "ncclGetVersion"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.GetErrorString, "ncclGetErrorString"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.CommInitAll, "ncclCommInitAll"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.GetUniqueId, "ncclGetUniqueId"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.CommInitRank, "ncclCommInitRank"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.CommDestroy, "ncclCommDestroy"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.AllReduce, "ncclAllReduce"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.AllGather, "ncclAllGather"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.ReduceScatter, "ncclReduceScatter"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.Broadcast, "ncclBroadcast"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.Send, "ncclSend"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.Recv, "ncclRecv"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.GroupStart, "ncclGroupStart"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&nccl.GroupEnd, "ncclGroupEnd"));
  return nccl;
}

Result<const Nccl*> LoadNccl() {
  static const Result<Nccl> loaded =
      LoadNcclFrom(CudaLibraryCandidates({"libnccl.so.2", "libnccl.so"}));
  if (!loaded.ok()) return loaded.error();
  return &loaded.value();
}

}  // namespace xpuperf::cuda_bench
