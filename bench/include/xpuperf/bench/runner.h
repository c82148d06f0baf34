// Runs a suite's benchmarks on one device: filters, CanRun checks, progress lines, measurements.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/suite.h"

namespace xpuperf::bench {

struct RunFilter {
  std::vector<Component> components;    // empty = all
  std::vector<std::string> benchmarks;  // empty = all
};

struct SuiteOutcome {
  std::vector<Measurement> measurements;
  std::vector<std::string> skipped;  // "gemm {...}: unsupported: ..." for points that cannot run
  // One sentence per broken physical-consistency check (consistency.h).
  std::vector<std::string> inconsistencies;
};

// Whether a point's figure can be trusted, judged by the runner for every measurement: its samples'
// CV against the sampling target (one sample: spread unknown), and for points run on the host the
// other processes' CPU share and steal time while it ran (machine_state.h). After the suite, the
// physical consistency checks of consistency.h. Each failed judgement marks the measurement
// unstable with its reason.
void JudgeSpread(Measurement& measurement, const SamplingOptions& sampling);

// Runs every entry that passes the filter; a point whose CanRun fails is skipped with its reason,
// a point that fails to run or verify fails the whole run (no partial results are reported).
// Progress goes to `progress` one line per point, with "UNSTABLE: <reason>" where a point is.
// Not thread-safe.
Result<SuiteOutcome> RunSuite(const Suite& suite, const RunFilter& filter,
                              const BenchmarkRegistry& registry, RunContext& context,
                              std::ostream& progress);

// The same, with GPUs: each point of a benchmark named gpu_* runs once on each of `gpus` (the
// progress and skip lines say "on <id>", each measurement gets parameters.device = <id>); the other
// benchmarks run on context.device. With no GPUs, gpu_* points are offered context.device and are
// skipped with the reason their CanRun gives ("unsupported: no CUDA driver").
Result<SuiteOutcome> RunSuite(const Suite& suite, const RunFilter& filter,
                              const BenchmarkRegistry& registry, RunContext& context,
                              std::ostream& progress, const std::vector<Device>& gpus);

}  // namespace xpuperf::bench
