// Cost of the tracer to the thread that records: an empty scope with tracing off and on, a
// counter sample, against the floor of any timed range (two reads of the clock). Enabled runs
// write a real trace (to the temporary directory, removed afterwards) with the background flusher
// running. They measure the steady state of a traced workload whose flusher keeps up: every
// kBatch events the timer is paused while Flush() writes them, so their chunks return to the
// tracer's pool, as they do when the workload does real work between ranges. (A burst of tens of
// millions of empty ranges outruns any JSON writer; then the fresh chunks' page faults, ~8 ns per
// event here, or dropping, dominate.) Setup records one batch first to fill the pool. A run that
// dropped events says so on stderr.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>

#include "xpuperf/tracer/tracer.h"

namespace xpuperf::tracer {
namespace {

// Enabled runs use a fixed number of iterations, so that the trace file stays bounded
// (~90 bytes of JSON per event).
constexpr int64_t kEnabledIterations = 2'000'000;

std::string BenchTracePath() {
  return (std::filesystem::temp_directory_path() /
          ("xpuperf-tracer-benchmark-" + std::to_string(getpid()) + ".json"))
      .string();
}

constexpr int64_t kBatch = 100'000;  // per thread; two threads' batches fit the chunk pool

void StartTracing(bool record_ops) {
  Options options;
  options.path = BenchTracePath();
  options.max_pending_bytes = size_t{512} << 20;
  options.record_op_distribution = record_ops;
  if (!Start(options).ok()) std::abort();
  for (int64_t i = 0; i < 2 * kBatch; ++i) {
    XPUPERF_SCOPE("warm_up");
  }
  if (!Flush().ok()) std::abort();
}

// Runs `body` kBatch times per timed stretch, with Flush() untimed in between.
template <typename Body>
void RunFlushedBatches(benchmark::State& state, Body&& body) {
  while (state.KeepRunningBatch(kBatch)) {
    for (int64_t i = 0; i < kBatch; ++i) body(i);
    state.PauseTiming();
    if (!Flush().ok()) std::abort();
    state.ResumeTiming();
  }
}
void StartTracingSetup(const benchmark::State&) { StartTracing(false); }
void StartTracingWithOpsSetup(const benchmark::State&) { StartTracing(true); }

void StopTracingTeardown(const benchmark::State&) {
  auto summary = Stop();
  if (!summary.ok()) std::abort();
  if (summary->dropped_events != 0) {
    std::fprintf(stderr, "tracer benchmark: %llu events dropped\n",
                 static_cast<unsigned long long>(summary->dropped_events));
  }
  std::filesystem::remove(summary->path);
}

void BM_BaselineRdtscPair(benchmark::State& state) {
  for (auto _ : state) {
    const uint64_t begin = detail::NowTicks();
    const uint64_t end = detail::NowTicks();
    benchmark::DoNotOptimize(end - begin);
  }
}
BENCHMARK(BM_BaselineRdtscPair)->Threads(1)->Threads(2);

void BM_BaselineClockGettimePair(benchmark::State& state) {
  for (auto _ : state) {
    timespec begin, end;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    clock_gettime(CLOCK_MONOTONIC, &end);
    benchmark::DoNotOptimize(end.tv_nsec - begin.tv_nsec);
  }
}
BENCHMARK(BM_BaselineClockGettimePair)->Threads(1)->Threads(2);

void BM_ScopeDisabled(benchmark::State& state) {
  for (auto _ : state) {
    XPUPERF_SCOPE("disabled_scope");
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_ScopeDisabled)->Threads(1)->Threads(2);

void BM_ScopeEnabled(benchmark::State& state) {
  RunFlushedBatches(state, [](int64_t) {
    XPUPERF_SCOPE("enabled_scope");
    benchmark::ClobberMemory();
  });
}
BENCHMARK(BM_ScopeEnabled)
    ->Setup(StartTracingSetup)
    ->Teardown(StopTracingTeardown)
    ->Iterations(kEnabledIterations)
    ->Threads(1)
    ->Threads(2);

void BM_ScopeEnabledWithOpDistribution(benchmark::State& state) {
  RunFlushedBatches(state, [](int64_t) {
    XPUPERF_SCOPE("enabled_recorded_scope");
    benchmark::ClobberMemory();
  });
}
BENCHMARK(BM_ScopeEnabledWithOpDistribution)
    ->Setup(StartTracingWithOpsSetup)
    ->Teardown(StopTracingTeardown)
    ->Iterations(kEnabledIterations)
    ->Threads(1)
    ->Threads(2);

void BM_DynamicScopeEnabled(benchmark::State& state) {
  const std::string name = "layer_17";  // short enough for std::string's inline buffer
  RunFlushedBatches(state, [&](int64_t) {
    XPUPERF_SCOPE_DYNAMIC(name);
    benchmark::ClobberMemory();
  });
}
BENCHMARK(BM_DynamicScopeEnabled)
    ->Setup(StartTracingSetup)
    ->Teardown(StopTracingTeardown)
    ->Iterations(kEnabledIterations)
    ->Threads(1)
    ->Threads(2);

void BM_CounterDisabled(benchmark::State& state) {
  int64_t value = 0;  // an integer: a double += 1 would chain 4-cycle adds across iterations
  for (auto _ : state) {
    XPUPERF_COUNTER("disabled_counter", value);
    ++value;
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_CounterDisabled)->Threads(1)->Threads(2);

void BM_CounterEnabled(benchmark::State& state) {
  RunFlushedBatches(state, [](int64_t i) { XPUPERF_COUNTER("enabled_counter", i); });
}
BENCHMARK(BM_CounterEnabled)
    ->Setup(StartTracingSetup)
    ->Teardown(StopTracingTeardown)
    ->Iterations(kEnabledIterations)
    ->Threads(1)
    ->Threads(2);

}  // namespace
}  // namespace xpuperf::tracer
