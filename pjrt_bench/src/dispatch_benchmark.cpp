// pjrt_dispatch: what one PJRT execution costs with no work in it (a program returning its
// argument): the overhead every other PJRT benchmark pays once per sample, and what a framework
// pays per jitted call.
#include <fmt/format.h>

#include "loop_runner.h"
#include "pjrt_benchmarks_internal.h"
#include "programs.h"

namespace xpuperf::pjrt_bench {
namespace {

class PjrtDispatchBenchmark final : public PjrtBenchmark {
 public:
  PjrtDispatchBenchmark() : PjrtBenchmark(bench::Component::kCompute) {}
  std::string name() const override { return "pjrt_dispatch"; }
  std::string description() const override {
    return "per-execution overhead of a PJRT device: Execute + completion of an empty program, us";
  }
  std::vector<nlohmann::json> default_sweep() const override { return {nlohmann::json::object()}; }

  std::optional<bench::ParameterSchema> parameter_schema() const override {
    return TargetParameters();
  }

  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(PjrtTarget * target, OpenTarget(PluginChoice(point)));
    XPUPERF_ASSIGN_OR_RETURN(const int device, DevicePosition(name(), point, *target));
    const pjrt::Client& client = *target->client;
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Executable executable,
                             client.Compile(DispatchProgram(), {1, {device}}));
    const float value = 3.5f;
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Buffer x,
                             client.FromHost(&value, pjrt::ElementType::kF32, {}, device));
    LoopRunner runner(client, executable, {{&x}});
    XPUPERF_RETURN_IF_ERROR(runner.Run(1));  // the trip-count buffer, made before timing
    PjrtHostQueue queue;
    Status failed = Status::Ok();
    auto samples = bench::CollectSamples(queue, context.sampling, [&](int64_t repetitions) {
      for (int64_t r = 0; r < repetitions && failed.ok(); ++r) failed = runner.Run(1);
    });
    XPUPERF_RETURN_IF_ERROR(failed);
    if (!samples.ok()) return samples.error();
    float back = 0;
    XPUPERF_RETURN_IF_ERROR(runner.outputs().at(0).at(0).ToHost(&back, sizeof(back)));
    if (back != value) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("pjrt_dispatch: the program returned {} for {}", back, value));
    }
    bench::Measurement m;
    m.benchmark = name();
    m.metric = "dispatch_latency";
    m.unit = "us";
    m.sample_seconds = samples->seconds_per_rep;
    m.statistics = bench::ComputeStatistics(samples->seconds_per_rep);
    m.repetitions_per_sample = samples->repetitions;
    m.value = m.statistics.median * 1e6;
    m.formula = fmt::format(
        "us per execution = median {:.6g} s per repetition x 1e6; a repetition "
        "is one Execute of an empty program, waited for",
        m.statistics.median);
    m.parameters = {{"device", device}};
    Attribute(m, *target, device, queue);
    return std::vector<bench::Measurement>{std::move(m)};
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakePjrtDispatchBenchmark() {
  return std::make_unique<PjrtDispatchBenchmark>();
}

}  // namespace xpuperf::pjrt_bench
