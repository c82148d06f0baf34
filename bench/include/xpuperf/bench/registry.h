// A set of benchmarks found by name. The CPU benchmarks of this library are added by
// AddCpuBenchmarks (src/cpu_benchmarks.cpp); the registry of every built-in benchmark (CPU, GPU,
// network) is assembled outside the engine, by xpuperf::MakeBuiltinBenchmarkRegistry
// (builtin_benchmarks/).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "xpuperf/bench/benchmark.h"

namespace xpuperf::bench {

class BenchmarkRegistry {
 public:
  void Add(std::unique_ptr<Benchmark> benchmark);
  // nullptr when unknown.
  Benchmark* Find(std::string_view name) const;
  const std::vector<std::unique_ptr<Benchmark>>& benchmarks() const { return benchmarks_; }
  // Comma-separated names, for error messages.
  std::string Names() const;

 private:
  std::vector<std::unique_ptr<Benchmark>> benchmarks_;
};

// Adds the CPU benchmarks (peak_fma, gemm, stream, cache_sweep, host_transfer, attention) on the
// host's root "/". Not thread-safe to run benchmarks concurrently.
void AddCpuBenchmarks(BenchmarkRegistry& registry);

// A Measurement for a throughput derived from samples: value = count / median seconds / scale.
// `count` is FLOPs or bytes per repetition; is_flops says which field it fills.
Measurement MakeThroughput(std::string benchmark, std::string metric, const TimedSamples& samples,
                           double count, bool is_flops, const RunContext& context);

}  // namespace xpuperf::bench
