// NCCL loaded with dlopen (libnccl.so.2): the toolkit's nccl.h gives the types and prototypes.
#pragma once

#include <nccl.h>

#include "xpuperf/core/status.h"
#include "xpuperf/cuda_bench/library_loader.h"

namespace xpuperf::cuda_bench {

struct Nccl {
  DynamicLibrary library;
  decltype(&ncclGetVersion) GetVersion = nullptr;
  decltype(&ncclGetErrorString) GetErrorString = nullptr;
  decltype(&ncclCommInitAll) CommInitAll = nullptr;
  decltype(&ncclGetUniqueId) GetUniqueId = nullptr;
  decltype(&ncclCommInitRank) CommInitRank = nullptr;
  decltype(&ncclCommDestroy) CommDestroy = nullptr;
  decltype(&ncclAllReduce) AllReduce = nullptr;
  decltype(&ncclAllGather) AllGather = nullptr;
  decltype(&ncclReduceScatter) ReduceScatter = nullptr;
  decltype(&ncclBroadcast) Broadcast = nullptr;
  decltype(&ncclSend) Send = nullptr;
  decltype(&ncclRecv) Recv = nullptr;
  decltype(&ncclGroupStart) GroupStart = nullptr;
  decltype(&ncclGroupEnd) GroupEnd = nullptr;

  // Ok, or kInternal "<what>: <ncclGetErrorString>".
  Status Check(ncclResult_t result, const char* what) const;
};

// The process's NCCL, loaded once; kUnsupported "unsupported: libnccl.so.2 not found (...)".
Result<const Nccl*> LoadNccl();
Result<Nccl> LoadNcclFrom(const std::vector<std::string>& candidates);

}  // namespace xpuperf::cuda_bench
