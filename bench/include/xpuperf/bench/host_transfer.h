// host_transfer: host <-> device copy bandwidth (large copies) and latency (small copies), written
// only against TransferEngine so that every backend measures the same thing the same way. The CPU
// registers it with CpuTransferEngine (host memory copies between NUMA-placed buffers); the CUDA
// backend registers it with its own engine.
//
// Sweep point: {direction: h2d|d2h|bidir|d2d, host_memory: pageable|pinned, bytes: N,
//               placement: local|remote}. Defaults: h2d, pinned, 64 MiB, local.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/bench/transfer.h"

namespace xpuperf::bench {

// Makes the engine for one device. `threads` is the run's --threads (0 = every allowed CPU); an
// engine that copies with host threads uses it, others ignore it. kUnsupported when the device has
// no such engine.
using TransferEngineFactory =
    std::function<Result<std::unique_ptr<TransferEngine>>(const Device& device, int threads)>;

// Copies of at most this many bytes report latency (microseconds per copy); larger ones bandwidth.
inline constexpr uint64_t kTransferLatencyMaxBytes = uint64_t{64} << 10;

// Bytes one repetition is credited with for bandwidth (GB/s = 1e9 B/s): `bytes` for h2d and d2h;
// 2 x bytes for bidir (one copy each way at once); 2 x bytes for d2d (the copy reads and writes
// device memory, as CUDA's bandwidthTest counts it).
double TransferBytesCounted(CopyDirection direction, uint64_t bytes);

// "h2d_bandwidth" (GB/s) or "h2d_latency" (us), likewise for d2h, bidir, d2d.
std::string TransferMetricName(CopyDirection direction, bool latency);

// "0", "0-1,4" (the kernel's node list format) -> {0}, {0, 1, 4}. kParse for anything else.
Result<std::vector<int>> ParseNodeList(std::string_view text);

// The online NUMA nodes from <root>/sys/devices/system/node/online; empty when it cannot be read.
std::vector<int> OnlineNumaNodes(const std::string& root);

// The benchmark `name` measuring the engines `factory` makes. `root` is where /sys is read from.
std::unique_ptr<Benchmark> MakeHostTransferBenchmark(TransferEngineFactory factory,
                                                     std::string name = "host_transfer",
                                                     std::string root = "/");

}  // namespace xpuperf::bench
