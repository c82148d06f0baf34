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

int LoopRunner::DeviceOrdinal() const {
  if (executable_.devices().empty()) return 0;
  for (size_t i = 0; i < client_.devices().size(); ++i) {
    if (client_.device_handle(static_cast<int>(i)) != executable_.devices().front()) continue;
    const int hardware = client_.devices()[i].local_hardware_id;
    return hardware >= 0 ? hardware : static_cast<int>(i);
  }
  return 0;
}

Result<bench::TimedSamples> LoopRunner::Sample(PjrtHostQueue& queue,
                                               const bench::SamplingOptions& sampling) {
  queue.device_timing = {};
  std::unique_ptr<pjrt::PluginProfiler> profiler;
  if (auto created = pjrt::PluginProfiler::Create(client_.api()); !created.ok()) {
    queue.device_timing.note = created.error().message;
  } else if (Status started = (*created)->Start(); !started.ok()) {
    queue.device_timing.note = "unsupported: " + started.error().message;
  } else {
    profiler = std::move(created).value();
  }
  Status failed = Status::Ok();
  auto samples = bench::CollectSamples(queue, sampling, [&](int64_t repetitions) {
    if (!failed.ok()) return;
    Status s = Run(repetitions);
    if (!s.ok()) failed = s;
  });
  if (profiler != nullptr) {
    Status stopped = profiler->Stop();
    auto xspace = stopped.ok() ? profiler->CollectXSpace() : Result<std::string>(stopped.error());
    auto modules = xspace.ok() ? ModuleSecondsFromXSpace(*xspace, DeviceOrdinal())
                               : Result<std::vector<double>>(xspace.error());
    if (!modules.ok()) {
      queue.device_timing.note = "unsupported: " + modules.error().message;
    } else if (samples.ok()) {
      queue.device_timing =
          DeviceTimingFromModules(*modules, samples->seconds_per_rep.size(), samples->repetitions);
    }
  }
  if (!failed.ok()) return failed.error();
  return samples;
}

}  // namespace xpuperf::pjrt_bench
