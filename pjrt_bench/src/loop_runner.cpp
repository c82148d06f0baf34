#include "loop_runner.h"

namespace xpuperf::pjrt_bench {

LoopRunner::LoopRunner(const pjrt::Client& client, const pjrt::Executable& executable,
                       std::vector<std::vector<const pjrt::Buffer*>> inputs)
    : client_(client), executable_(executable), inputs_(std::move(inputs)) {}

Status LoopRunner::Run(int64_t iterations) {
  auto it = counts_.find(iterations);
  if (it == counts_.end()) {
    std::vector<pjrt::Buffer> per_device;
    for (PJRT_Device* device : executable_.devices()) {
      const int64_t value = iterations;
      XPUPERF_ASSIGN_OR_RETURN(pjrt::Buffer b,
                               client_.FromHost(&value, pjrt::ElementType::kS64, {}, device));
      per_device.push_back(std::move(b));
    }
    it = counts_.emplace(iterations, std::move(per_device)).first;
  }
  std::vector<std::vector<const pjrt::Buffer*>> arguments = inputs_;
  for (size_t d = 0; d < arguments.size(); ++d) arguments[d].push_back(&it->second[d]);
  outputs_.clear();  // frees the previous outputs before the next ones are allocated
  XPUPERF_ASSIGN_OR_RETURN(outputs_, executable_.Execute(arguments));
  return Status::Ok();
}

Result<bench::TimedSamples> LoopRunner::Sample(bench::ExecutionQueue& queue,
                                               const bench::SamplingOptions& sampling) {
  Status failed = Status::Ok();
  auto samples = bench::CollectSamples(queue, sampling, [&](int64_t repetitions) {
    if (!failed.ok()) return;
    Status s = Run(repetitions);
    if (!s.ok()) failed = s;
  });
  if (!failed.ok()) return failed.error();
  return samples;
}

}  // namespace xpuperf::pjrt_bench
