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
  // Adaptive sampling: after `samples`, more samples are taken while the robust coefficient of
  // variation (statistics.h) of the kept samples is above target_cv, until max_point_seconds of
  // kept samples or max_samples. A point that ends above the target is marked unstable (runner.h).
  double target_cv = 0.03;
  double max_point_seconds = 2.0;
  int max_samples = 1000;
  // The time cap of a point's timed executions (calibration, warm-up and samples), in seconds;
  // 0 = none. After calibration, a point whose warm-up and kept samples would take the cap past
  // it is given up before they run (IsOverTimeCap); adaptive sampling stops at the cap.
  double time_cap_seconds = 300;
};

// The error of a point given up because of its time cap: kUnsupported, "over its time cap (...)".
bool IsOverTimeCap(const Error& error);

struct TimedSamples {
  int64_t repetitions = 1;              // per sample
  std::vector<double> seconds_per_rep;  // one entry per kept sample
};

// Calls run(repetitions) on the queue: doubles repetitions from 1 until a sample lasts at least
// min_sample_seconds (or max_repetitions, or the queue's max_repetitions()), runs the warm-up
// samples, then the kept samples, then more while their robust CV is above target_cv (see above).
// kInvalidArgument for samples < 1 or a non-positive min_sample_seconds; IsOverTimeCap when the
// point would run past options.time_cap_seconds.
Result<TimedSamples> CollectSamples(ExecutionQueue& queue, const SamplingOptions& options,
                                    const std::function<void(int64_t repetitions)>& run);

}  // namespace xpuperf::bench
