#include "xpuperf/bench/sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "xpuperf/bench/statistics.h"
#include "xpuperf/core/cancellation.h"

namespace xpuperf::bench {
namespace {

constexpr std::string_view kOverTimeCap = "over its time cap";

}  // namespace

bool IsOverTimeCap(const Error& error) {
  return error.code == ErrorCode::kUnsupported && error.message.starts_with(kOverTimeCap);
}

Result<TimedSamples> CollectSamples(ExecutionQueue& queue, const SamplingOptions& options,
                                    const std::function<void(int64_t repetitions)>& run) {
  if (options.samples < 1 || options.warmup_samples < 0) {
    return MakeError(ErrorCode::kInvalidArgument, "samples must be >= 1 and warm-up >= 0");
  }
  if (!(options.min_sample_seconds > 0) || options.max_repetitions < 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "min_sample_seconds and max_repetitions must be positive");
  }
  if (!(options.target_cv > 0) || !(options.max_point_seconds >= 0) ||
      !(options.time_cap_seconds >= 0)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "target_cv must be positive, max_point_seconds and time_cap_seconds not "
                     "negative");
  }
  const auto start = std::chrono::steady_clock::now();
  const auto spent = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const bool capped = options.time_cap_seconds > 0;
  TimedSamples result;
  const int64_t max_repetitions = std::min(options.max_repetitions, queue.max_repetitions());
  // Calibration doubles as the first warm-up: caches and pages are hot afterwards.
  double sample_seconds = 0;
  while (true) {
    // Every sample is preceded by a cancellation check: Ctrl-C stops within about one sample.
    XPUPERF_RETURN_IF_ERROR(CheckCancelled());
    sample_seconds = queue.TimeSeconds([&] { run(result.repetitions); });
    if (sample_seconds >= options.min_sample_seconds || result.repetitions >= max_repetitions) {
      break;
    }
    result.repetitions = std::min(result.repetitions * 2, max_repetitions);
  }
  // The rest is foreseeable from the last calibration sample: given up before it runs when it
  // would end past the cap.
  const int rest = options.warmup_samples + options.samples;
  const double foreseen = spent() + sample_seconds * rest;
  if (capped && foreseen > options.time_cap_seconds) {
    return MakeError(
        ErrorCode::kUnsupported,
        fmt::format("{} ({:g} s): one sample of {} repetition{} took {:.3g} s, so {} warm-up and "
                    "{} kept samples would end at about {:.0f} s; lower the point's size or "
                    "raise the cap (--point-time-cap, or time_cap_seconds in the suite)",
                    kOverTimeCap, options.time_cap_seconds, result.repetitions,
                    result.repetitions == 1 ? "" : "s", sample_seconds, options.warmup_samples,
                    options.samples, foreseen));
  }
  for (int i = 0; i < options.warmup_samples; ++i) {
    XPUPERF_RETURN_IF_ERROR(CheckCancelled());
    (void)queue.TimeSeconds([&] { run(result.repetitions); });
  }
  double kept_seconds = 0;
  const auto take_sample = [&]() -> Status {
    XPUPERF_RETURN_IF_ERROR(CheckCancelled());
    const double seconds = queue.TimeSeconds([&] { run(result.repetitions); });
    kept_seconds += seconds;
    result.seconds_per_rep.push_back(seconds / static_cast<double>(result.repetitions));
    return Status::Ok();
  };
  for (int i = 0; i < options.samples; ++i) XPUPERF_RETURN_IF_ERROR(take_sample());
  // Adaptive part: more samples while the spread is above the target, within the caps.
  const size_t max_samples = static_cast<size_t>(std::max(options.max_samples, options.samples));
  while (result.seconds_per_rep.size() < max_samples && kept_seconds < options.max_point_seconds &&
         (!capped || spent() < options.time_cap_seconds) &&
         ComputeStatistics(result.seconds_per_rep).robust_cv > options.target_cv) {
    XPUPERF_RETURN_IF_ERROR(take_sample());
  }
  return result;
}

}  // namespace xpuperf::bench
