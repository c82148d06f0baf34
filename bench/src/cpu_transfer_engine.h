// The CPU's TransferEngine (declared through MakeCpuTransferEngine in xpuperf/bench/transfer.h):
// buffers placed on NUMA nodes, mlock for pinned memory, memcpy on a pinned OpenMP team.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "xpuperf/bench/queue.h"
#include "xpuperf/bench/threads.h"
#include "xpuperf/bench/transfer.h"

namespace xpuperf::bench {

// Not thread-safe: one caller (the main thread) at a time.
class CpuTransferEngine final : public TransferEngine {
 public:
  explicit CpuTransferEngine(CpuTransferOptions options);
  std::string name() const override;
  Result<std::unique_ptr<TransferBuffer>> AllocateHost(size_t bytes, HostMemoryKind kind,
                                                       int numa_node) override;
  Result<std::unique_ptr<TransferBuffer>> AllocateDevice(size_t bytes) override;
  Status Fill(TransferBuffer& buffer, uint64_t seed) override;
  Status Verify(TransferBuffer& buffer, uint64_t seed) override;
  Status EnqueueCopy(TransferBuffer& dst, TransferBuffer& src, size_t bytes) override;
  Status EnqueueConcurrentCopies(TransferBuffer& dst1, TransferBuffer& src1, TransferBuffer& dst2,
                                 TransferBuffer& src2, size_t bytes) override;
  ExecutionQueue& queue() override { return queue_; }
  int device_numa_node() const override { return device_node_; }

 private:
  // Page-aligned memory placed on `node` (< 0: wherever the kernel puts it).
  Result<std::unique_ptr<TransferBuffer>> Allocate(size_t bytes, int node, bool on_device,
                                                   std::string what);

  CpuTransferOptions options_;
  PinnedOpenMpTeam team_;
  int device_node_ = -1;
  HostQueue queue_;
};

// The node whose cpulist holds `cpu`, from <root>/sys/devices/system/node; -1 when unknown.
int NumaNodeOfCpu(const std::string& root, int cpu);

// The CPUs of a node from <root>/sys/devices/system/node/node<N>/cpulist; empty when unknown.
std::vector<int> CpusOfNumaNode(const std::string& root, int node);

}  // namespace xpuperf::bench
