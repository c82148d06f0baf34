// Cost of recording one value in-process (Recorder), against a bare relaxed atomic increment.
// Durations, sizes and depths vary per iteration so that bucket selection and transfer-size
// labelling do real work, as in a workload; the inputs are precomputed so their generation is not
// timed. Threads(2) runs two threads recording into the same series at once.
#include <benchmark/benchmark.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <random>

#include "xpuperf/core/recorder.h"

namespace xpuperf {
namespace {

constexpr size_t kInputs = 4096;  // power of two: the index is i & (kInputs - 1)

// Log-uniform durations from 100 ns to ~10 ms, in ns: spread over ~17 powers of two of buckets.
const std::array<int64_t, kInputs>& Durations() {
  static const auto values = [] {
    std::array<int64_t, kInputs> out{};
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> exponent(2.0, 7.0);  // 10^2 .. 10^7 ns
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

// One recorder for all threads of a benchmark, like Recorder::Global() in a real process.
Recorder& SharedRecorder() {
  static Recorder* recorder = new Recorder();
  return *recorder;
}

void BM_BaselineAtomicIncrementShared(benchmark::State& state) {
  static std::atomic<uint64_t> counter{0};
  for (auto _ : state) counter.fetch_add(1, std::memory_order_relaxed);
}
BENCHMARK(BM_BaselineAtomicIncrementShared)->Threads(1)->Threads(2);

void BM_BaselineAtomicIncrementPerThread(benchmark::State& state) {
  alignas(64) std::atomic<uint64_t> counter{0};  // on this thread's stack: never shared
  for (auto _ : state) counter.fetch_add(1, std::memory_order_relaxed);
  benchmark::DoNotOptimize(counter.load());
}
BENCHMARK(BM_BaselineAtomicIncrementPerThread)->Threads(1)->Threads(2);

void BM_OpSeriesRecordNs(benchmark::State& state) {
  const OpSeries series = SharedRecorder().Op("matmul");
  const auto& durations = Durations();
  size_t i = 0;
  for (auto _ : state) series.RecordNs(durations[i++ & (kInputs - 1)]);
}
BENCHMARK(BM_OpSeriesRecordNs)->Threads(1)->Threads(2);

void BM_RecorderRecordOp(benchmark::State& state) {
  Recorder& recorder = SharedRecorder();
  const auto& durations = Durations();
  size_t i = 0;
  for (auto _ : state) recorder.RecordOp("matmul", durations[i++ & (kInputs - 1)]);
}
BENCHMARK(BM_RecorderRecordOp)->Threads(1)->Threads(2);

// Four op names in turn: a workload that records several ops from one loop.
void BM_RecorderRecordOpFourNames(benchmark::State& state) {
  static constexpr std::string_view kNames[] = {"matmul", "softmax", "layernorm", "all_reduce"};
  Recorder& recorder = SharedRecorder();
  const auto& durations = Durations();
  size_t i = 0;
  for (auto _ : state) {
    recorder.RecordOp(kNames[i & 3], durations[i & (kInputs - 1)]);
    ++i;
  }
}
BENCHMARK(BM_RecorderRecordOpFourNames)->Threads(1)->Threads(2);

void BM_RecorderRecordTransfer(benchmark::State& state) {
  Recorder& recorder = SharedRecorder();
  const auto& durations = Durations();
  const auto& sizes = TransferSizes();
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ & (kInputs - 1);
    recorder.RecordTransfer(sizes[k], durations[k]);
  }
}
BENCHMARK(BM_RecorderRecordTransfer)->Threads(1)->Threads(2);

void BM_RecorderSetQueueDepth(benchmark::State& state) {
  Recorder& recorder = SharedRecorder();
  int64_t depth = 0;
  for (auto _ : state) recorder.SetQueueDepth(depth++ & 63);
}
BENCHMARK(BM_RecorderSetQueueDepth)->Threads(1)->Threads(2);

}  // namespace
}  // namespace xpuperf
