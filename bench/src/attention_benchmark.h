// attention: the CPU flash-attention forward (fp32, causal and non-causal) in GFLOP/s, verified
// against the naive softmax(Q K^T / sqrt(d)) V, and related to the fp32 GEMM rate of the same run.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "xpuperf/bench/attention.h"
#include "xpuperf/bench/benchmark.h"

namespace xpuperf::bench {

// The best fp32 GEMM rate (GFLOP/s) among `measurements` (benchmark "gemm", metric "fp32_flops"),
// with the measurement it came from; nullopt when there is none.
std::optional<std::pair<double, const Measurement*>> BestFp32GemmRate(
    const std::vector<Measurement>& measurements);

}  // namespace xpuperf::bench
