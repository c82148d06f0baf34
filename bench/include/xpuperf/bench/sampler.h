// Warm-up, repetition calibration and timed samples, common to every benchmark.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "xpuperf/bench/queue.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

struct SamplingOptions {
  int warmup_samples = 1;            // timed but discarded
  int samples = 10;                  // kept
  double min_sample_seconds = 0.01;  // repetitions grow until one sample lasts this long
  int64_t max_repetitions = int64_t{1} << 30;
};

struct TimedSamples {
  int64_t repetitions = 1;              // per sample
  std::vector<double> seconds_per_rep;  // one entry per kept sample
};

// Calls run(repetitions) on the queue: doubles repetitions from 1 until a sample lasts at least
// min_sample_seconds (or max_repetitions, or the queue's max_repetitions()), runs the warm-up
// samples, then the kept samples.
// kInvalidArgument for samples < 1 or a non-positive min_sample_seconds.
Result<TimedSamples> CollectSamples(ExecutionQueue& queue, const SamplingOptions& options,
                                    const std::function<void(int64_t repetitions)>& run);

}  // namespace xpuperf::bench
