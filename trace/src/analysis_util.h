// Internal helpers shared by the analyses.
#pragma once

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "xpuperf/trace/analyses.h"

namespace xpuperf::trace::internal {

// Kernel class of every event name, computed once per distinct name.
class KernelClassCache {
 public:
  explicit KernelClassCache(const Trace& trace) : trace_(trace), cache_(trace.strings.size(), -1) {}
  KernelClass Of(const TraceEvent& e) {
    if (e.kind == EventKind::kMemcpy || e.kind == EventKind::kMemset) return KernelClass::kMemory;
    int8_t& c = cache_[e.name];
    if (c < 0) c = static_cast<int8_t>(ClassifyKernel(trace_.Name(e), e.kind));
    return static_cast<KernelClass>(c);
  }

 private:
  const Trace& trace_;
  std::vector<int8_t> cache_;
};

// correlation id -> index of the launch call (cuda_runtime / cuda_driver event). Correlation ids
// are mostly dense counters: a direct table when they are, a hash map otherwise.
class LaunchIndex {
 public:
  // Index of the launch call with this correlation, or -1.
  int64_t Find(int64_t correlation) const {
    if (correlation < 0) return -1;
    if (!dense_.empty() || sparse_.empty()) {
      uint64_t slot = static_cast<uint64_t>(correlation - base_);
      return slot < dense_.size() ? dense_[slot] : -1;
    }
    auto it = sparse_.find(correlation);
    return it == sparse_.end() ? -1 : static_cast<int64_t>(it->second);
  }
  std::vector<int64_t> dense_;
  int64_t base_ = 0;
  std::unordered_map<int64_t, uint32_t> sparse_;
};
LaunchIndex BuildLaunchIndex(const Trace& trace);

// (device, stream) -> indices of that stream's GPU ops in start order.
struct StreamOps {
  int device = -1;
  int stream = -1;
  std::vector<uint32_t> ops;
};
std::vector<StreamOps> GpuOpsByStream(const Trace& trace);

// True for CPU ops whose inputs define a matrix product (defined with the reader).
bool IsGemmOpName(std::string_view name);

// M, N, K and batch of a matrix-product op from its input shapes; false when they do not describe
// a product.
bool GemmShape(std::string_view op, const std::vector<std::vector<int64_t>>& in, GemmPoint* p);
// The product of dims[from, to); -1 when one is unknown or it leaves the exact range of a double.
int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to);

// Nearest-rank percentile (q in [0, 1]) of `values`, which it reorders (pass a copy to keep them).
int64_t Percentile(std::vector<int64_t>& values, double q);

}  // namespace xpuperf::trace::internal
