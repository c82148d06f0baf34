// The CUDA TransferEngine behind gpu_host_transfer: pageable (malloc) or pinned (cudaMallocHost)
// host memory, cudaMalloc device memory, copies by the copy engines (cudaMemcpyAsync) or by a copy
// kernel on the SMs, timed on a CudaQueue.
#pragma once

#include <memory>

#include "xpuperf/bench/transfer.h"
#include "xpuperf/core/status.h"

namespace xpuperf::cuda_bench {

// sm_copies: copies by a kernel (host memory must be pinned) instead of the copy engines.
Result<std::unique_ptr<bench::TransferEngine>> MakeCudaTransferEngine(int device, bool sm_copies);

// The NUMA node of a PCI device from <root>/sys/bus/pci/devices/<bus_id>/numa_node, or -1.
int PciNumaNode(const std::string& root, const std::string& bus_id);

}  // namespace xpuperf::cuda_bench
