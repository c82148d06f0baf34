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
  // false when a stop request (SIGINT/SIGTERM) ended the run: `pending` holds the points not run
  // (the one that was running included), `done` the points that ran, each by its label
  // ("gemm {\"m\":64} on nvidia0"), which a resumed run skips.
  bool complete = true;
  std::vector<std::string> done;
  std::vector<std::string> pending;
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
// a point that fails to run or verify fails the whole run. A stop request ends the run after the
// points finished so far: the outcome is returned with complete = false (its caller writes them as
// a partial result). Progress goes to `progress` one line per point: "[i/n]", the point, its time
// and first figure ("UNSTABLE: <reason>" where it is), the time so far and an estimate of what is
// left from the points' own times. Not thread-safe.
Result<SuiteOutcome> RunSuite(const Suite& suite, const RunFilter& filter,
                              const BenchmarkRegistry& registry, RunContext& context,
                              std::ostream& progress);

// The same, with GPUs: each point of a benchmark named gpu_* runs once on each of `gpus` (the
// progress and skip lines say "on <id>", each measurement gets parameters.device = <id>); the other
// benchmarks run on context.device. With no GPUs, gpu_* points are offered context.device and are
// skipped with the reason their CanRun gives ("unsupported: no CUDA driver").
// `done`: labels of points a partial run already measured (--resume); they are not run again.
Result<SuiteOutcome> RunSuite(const Suite& suite, const RunFilter& filter,
                              const BenchmarkRegistry& registry, RunContext& context,
                              std::ostream& progress, const std::vector<Device>& gpus,
                              const std::vector<std::string>& done = {});

}  // namespace xpuperf::bench
