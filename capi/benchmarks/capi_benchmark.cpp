// Cost of recording through the C ABI (libxpuperf.so), the path of Python/Rust/Go bindings: the
// same work as core/benchmarks/recorder_benchmark.cpp's Recorder::Record* rows plus strlen of the
// names and thread-local access from a shared library (global-dynamic TLS). Inputs vary per
// iteration and are precomputed, as there.
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>

#include "xpuperf/xpuperf.h"

namespace {

constexpr size_t kInputs = 4096;  // power of two: the index is i & (kInputs - 1)

// Log-uniform durations from 100 ns to 10 ms, in ns.
const std::array<int64_t, kInputs>& Durations() {
  static const auto values = [] {
    std::array<int64_t, kInputs> out{};
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> exponent(2.0, 7.0);
    for (int64_t& v : out) v = static_cast<int64_t>(std::pow(10.0, exponent(rng)));
    return out;
  }();
  return values;
}

// Transfer sizes from 1 B to 64 MiB, not all powers of two.
const std::array<uint64_t, kInputs>& TransferSizes() {
  static const auto values = [] {
    std::array<uint64_t, kInputs> out{};
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int> shift(0, 26);
    for (uint64_t& v : out) {
      const uint64_t base = uint64_t{1} << shift(rng);
      v = base + rng() % base;
    }
    return out;
  }();
  return values;
}

void BM_CapiRecordOp(benchmark::State& state) {
  const auto& durations = Durations();
  size_t i = 0;
  for (auto _ : state) xpuperf_record_op("matmul", durations[i++ & (kInputs - 1)], nullptr);
}
BENCHMARK(BM_CapiRecordOp)->Threads(1)->Threads(2);

void BM_CapiRecordTransfer(benchmark::State& state) {
  const auto& durations = Durations();
  const auto& sizes = TransferSizes();
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ & (kInputs - 1);
    xpuperf_record_transfer(sizes[k], durations[k], nullptr);
  }
}
BENCHMARK(BM_CapiRecordTransfer)->Threads(1)->Threads(2);

void BM_CapiSetQueueDepth(benchmark::State& state) {
  int64_t depth = 0;
  for (auto _ : state) xpuperf_set_queue_depth(depth++ & 63, nullptr);
}
BENCHMARK(BM_CapiSetQueueDepth)->Threads(1)->Threads(2);

}  // namespace
