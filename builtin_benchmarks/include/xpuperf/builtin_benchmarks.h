// The one place where the built-in benchmarks are assembled: the CPU benchmarks of bench, the
// gpu_* benchmarks of cuda_bench and the `collectives` launcher. It sits outside those components
// (as builtin_backends.h does for backends), so that none of them depends on another's registry.
#pragma once

#include "xpuperf/bench/registry.h"

namespace xpuperf {

// Every benchmark of this build, in `bench list` order: CPU, collectives, then gpu_* (which report
// "unsupported: built without CUDA" in a build without CUDA). Not thread-safe to run benchmarks
// concurrently.
bench::BenchmarkRegistry MakeBuiltinBenchmarkRegistry();

}  // namespace xpuperf
