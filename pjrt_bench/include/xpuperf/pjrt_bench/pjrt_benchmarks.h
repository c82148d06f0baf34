// Benchmarks on any PJRT device (TPU through libtpu, NVIDIA GPUs through the CUDA plugin, XLA's CPU
// plugin): pjrt_gemm, pjrt_stream, pjrt_host_transfer, pjrt_collectives, pjrt_attention and
// pjrt_dispatch. Each generates a StableHLO program, verifies its output against a host reference
// and times many iterations inside one compiled loop. Points choose the plugin with `plugin`
// (a path or "tpu", "cuda", "cpu"; default: the first found, see xpuperf/pjrt/discovery.h).
#pragma once

#include "xpuperf/bench/registry.h"

namespace xpuperf::pjrt_bench {

void AddPjrtBenchmarks(bench::BenchmarkRegistry& registry);

}  // namespace xpuperf::pjrt_bench
