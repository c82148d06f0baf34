// gemm: OpenBLAS sgemm/dgemm over square and LLM-shaped (m, n, k), verified on sampled entries.
#pragma once

#include <memory>
#include <string>

#include "xpuperf/bench/benchmark.h"

namespace xpuperf::bench {

std::unique_ptr<Benchmark> MakeGemmBenchmark(std::string root);

}  // namespace xpuperf::bench
