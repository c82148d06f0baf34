// Internal: one compiled loop program run for bench::CollectSamples. Each sample executes the
// program once with the sample's repetition count as the loop's trip count (the last argument), on
// every device of the executable at once; a repetition is one loop iteration.
#pragma once

#include <map>
#include <vector>

#include "pjrt_target.h"
#include "xpuperf/bench/queue.h"
#include "xpuperf/bench/sampler.h"
#include "xpuperf/pjrt/client.h"

namespace xpuperf::pjrt_bench {

class LoopRunner {
 public:
  // inputs[d] are the arguments of the executable's d-th device, without the trip count.
  LoopRunner(const pjrt::Client& client, const pjrt::Executable& executable,
             std::vector<std::vector<const pjrt::Buffer*>> inputs);

  // Runs once with `iterations` (verification runs, dispatch timing).
  Status Run(int64_t iterations);
  // Samples with `queue`'s clock; where the plugin has a profiler extension, the profiler records
  // the same executions and queue.device_timing gets their device time (device_timing.h).
  Result<bench::TimedSamples> Sample(PjrtHostQueue& queue, const bench::SamplingOptions& sampling);
  // outputs[d][o] of the last execution.
  const std::vector<std::vector<pjrt::Buffer>>& outputs() const { return outputs_; }

 private:
  // The profile plane number of the executable's first device: its local hardware id, else its
  // position among the client's devices.
  int DeviceOrdinal() const;

  const pjrt::Client& client_;
  const pjrt::Executable& executable_;
  std::vector<std::vector<const pjrt::Buffer*>> inputs_;
  // One trip-count scalar per device and count, made on first use (before timing settles).
  std::map<int64_t, std::vector<pjrt::Buffer>> counts_;
  std::vector<std::vector<pjrt::Buffer>> outputs_;
};

}  // namespace xpuperf::pjrt_bench
