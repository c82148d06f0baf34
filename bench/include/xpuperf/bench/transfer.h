// Host <-> device copies as the host_transfer benchmarks see them. The CPU implements "device"
// memory as a buffer on a chosen NUMA node (the stand-in for a GPU's HBM); the CUDA backend
// implements it with cudaMalloc / cudaMallocHost / malloc and copy-engine or SM copies. Either way
// the benchmark code is the same: allocate, fill with a pattern, enqueue copies on the engine's
// queue (whose TimeSeconds times them), verify the destination.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "xpuperf/bench/queue.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

enum class HostMemoryKind {
  kPageable,  // plain malloc: the driver (or the kernel) may have to fault pages in
  kPinned,    // page-locked: mlock on the CPU, cudaMallocHost on NVIDIA
};

enum class CopyDirection {
  kHostToDevice,
  kDeviceToHost,
  kBidirectional,  // H2D and D2H at the same time; bytes count both directions
  kDeviceToDevice,
};

std::string_view HostMemoryKindName(HostMemoryKind kind);     // "pageable", "pinned"
std::string_view CopyDirectionName(CopyDirection direction);  // "h2d", "d2h", "bidir", "d2d"
Result<HostMemoryKind> ParseHostMemoryKind(std::string_view name);
Result<CopyDirection> ParseCopyDirection(std::string_view name);

// Memory owned by an engine. data() is host-addressable only for host buffers (and for the CPU's
// "device" buffers); fill and verify go through the engine.
class TransferBuffer {
 public:
  virtual ~TransferBuffer() = default;
  virtual void* data() = 0;
  virtual size_t bytes() const = 0;
  virtual bool on_device() const = 0;
  // "pageable host, node 0", "pinned host", "device (cpu node 1)", "device (cuda:0)".
  virtual std::string description() const = 0;
};

class TransferEngine {
 public:
  virtual ~TransferEngine() = default;
  // "cpu memcpy", "cuda copy engine", "cuda sm copy": recorded with each measurement.
  virtual std::string name() const = 0;
  // kUnsupported with the reason when the kind cannot be provided (mlock limit, no NUMA node N).
  // numa_node < 0: wherever the allocator puts it.
  virtual Result<std::unique_ptr<TransferBuffer>> AllocateHost(size_t bytes, HostMemoryKind kind,
                                                               int numa_node) = 0;
  virtual Result<std::unique_ptr<TransferBuffer>> AllocateDevice(size_t bytes) = 0;
  // Writes a pattern derived from seed (never zeros) into buffer.
  virtual Status Fill(TransferBuffer& buffer, uint64_t seed) = 0;
  // Ok when buffer holds the pattern of seed; kInternal naming the first wrong byte otherwise.
  virtual Status Verify(TransferBuffer& buffer, uint64_t seed) = 0;
  // Enqueues one copy of `bytes` from src to dst on queue(); does not wait.
  virtual Status EnqueueCopy(TransferBuffer& dst, TransferBuffer& src, size_t bytes) = 0;
  // Enqueues two copies that run concurrently (bidirectional): src1 -> dst1 and src2 -> dst2.
  virtual Status EnqueueConcurrentCopies(TransferBuffer& dst1, TransferBuffer& src1,
                                         TransferBuffer& dst2, TransferBuffer& src2,
                                         size_t bytes) = 0;
  // The queue whose TimeSeconds brackets enqueued copies (host clock on the CPU, events on CUDA).
  virtual ExecutionQueue& queue() = 0;
  // The NUMA node the device sits on (the CPU engine: the node its device buffers are bound to; a
  // GPU: its PCI device's numa_node), or -1 when unknown. Host buffers on this node are "local",
  // on any other node "remote".
  virtual int device_numa_node() const { return -1; }
};

// The CPU's engine: "device" buffers are bound to one NUMA node (mbind; first touch from a thread
// pinned to that node where mbind is refused), pinned host buffers are mlock'ed, pageable ones
// plain heap memory. Copies are memcpy: below kCpuParallelCopyMinBytes on the calling thread, from
// there on split over a pinned OpenMP team of `threads`; a bidirectional pair runs its two copies
// at once, each on half of the team (one thread each for small copies).
struct CpuTransferOptions {
  int threads = 0;         // copy threads; 0 = every CPU this process may run on
  int device_node = -1;    // -1: the node of the first allowed CPU (unbound when unknown)
  std::string root = "/";  // where /sys is read from
  // Locks pages in memory; ::mlock unless a test injects a failure (return -1 and set errno).
  std::function<int(const void*, size_t)> lock;
};

inline constexpr size_t kCpuParallelCopyMinBytes = size_t{1} << 20;

// Create on the main thread (the copy team is pinned from there).
std::unique_ptr<TransferEngine> MakeCpuTransferEngine(CpuTransferOptions options);

}  // namespace xpuperf::bench
