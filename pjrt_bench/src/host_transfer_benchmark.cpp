// pjrt_host_transfer: host <-> device copies through PJRT, as frameworks issue them
// (jax.device_put = PJRT_Client_BufferFromHostBuffer, jax.device_get = PJRT_Buffer_ToHostBuffer),
// each waited for before the next. Bandwidth in GB/s (1e9 bytes; Google's suite labels GiB/s as
// GB/s) above 64 KiB, microseconds per copy up to it. The destination is verified byte for byte.
#include <fmt/format.h>

#include <cstring>

#include "host_array.h"
#include "pjrt_benchmarks_internal.h"

namespace xpuperf::pjrt_bench {
namespace {

constexpr int64_t kLatencyMaxBytes = int64_t{64} * 1024;

class PjrtHostTransferBenchmark final : public PjrtBenchmark {
 public:
  PjrtHostTransferBenchmark() : PjrtBenchmark(bench::Component::kHostTransfer) {}
  std::string name() const override { return "pjrt_host_transfer"; }
  std::string description() const override {
    return "host <-> device copies on a PJRT device (BufferFromHostBuffer / ToHostBuffer, "
           "pageable host memory): GB/s above 64 KiB, us per copy up to it";
  }
  std::vector<nlohmann::json> default_sweep() const override {
    std::vector<nlohmann::json> sweep;
    for (const char* direction : {"h2d", "d2h"}) {
      for (int64_t bytes : {int64_t{8}, int64_t{65536}, int64_t{1} << 24, int64_t{1} << 28}) {
        sweep.push_back({{"direction", direction}, {"bytes", bytes}});
      }
    }
    return sweep;
  }

  std::optional<bench::ParameterSchema> parameter_schema() const override {
    bench::ParameterSchema schema = {
        bench::ChoiceParameter("direction", "h2d", {"h2d", "d2h"}),
        bench::IntegerParameter("bytes", int64_t{1} << 26, 1,
                                static_cast<double>(int64_t{1} << 36))};
    for (bench::ParameterSpec& spec : TargetParameters()) schema.push_back(std::move(spec));
    return schema;
  }

  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    const std::string direction = TextOf(point, "direction");
    const int64_t bytes = IntegerOf(point, "bytes");
    XPUPERF_RETURN_IF_ERROR(CheckHostBytes(name(), 2.0 * static_cast<double>(bytes)));
    XPUPERF_ASSIGN_OR_RETURN(PjrtTarget * target, OpenTarget(PluginChoice(point)));
    XPUPERF_ASSIGN_OR_RETURN(const int device, DevicePosition(name(), point, *target));
    const pjrt::Client& client = *target->client;

    HostArray source(pjrt::ElementType::kS8, bytes);
    source.Fill([](size_t i) { return static_cast<double>(static_cast<int8_t>(i * 131 + 7)); });
    HostArray destination(pjrt::ElementType::kS8, bytes);
    PjrtHostQueue queue;
    Status failed = Status::Ok();
    pjrt::Buffer on_device;
    if (direction == "d2h") {
      XPUPERF_ASSIGN_OR_RETURN(
          on_device, client.FromHost(source.data(), pjrt::ElementType::kS8, {bytes}, device));
    }
    auto samples = bench::CollectSamples(queue, context.sampling, [&](int64_t repetitions) {
      for (int64_t r = 0; r < repetitions && failed.ok(); ++r) {
        if (direction == "h2d") {
          auto b = client.FromHost(source.data(), pjrt::ElementType::kS8, {bytes}, device);
          if (!b.ok()) {
            failed = b.error();
          } else {
            on_device = std::move(b).value();
          }
        } else {
          failed = on_device.ToHost(destination.data(), destination.size_bytes());
        }
      }
    });
    XPUPERF_RETURN_IF_ERROR(failed);
    if (!samples.ok()) return samples.error();
    if (direction == "h2d") {
      XPUPERF_RETURN_IF_ERROR(on_device.ToHost(destination.data(), destination.size_bytes()));
    }
    if (std::memcmp(destination.data(), source.data(), source.size_bytes()) != 0) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("pjrt_host_transfer {}: the copied bytes differ", direction));
    }

    bench::Measurement m;
    const bool latency = bytes <= kLatencyMaxBytes;
    if (latency) {
      m.benchmark = name();
      m.metric = direction + "_latency";
      m.unit = "us";
      m.sample_seconds = samples->seconds_per_rep;
      m.statistics = bench::ComputeStatistics(samples->seconds_per_rep);
      m.repetitions_per_sample = samples->repetitions;
      m.bytes_per_repetition = static_cast<double>(bytes);
      m.value = m.statistics.median * 1e6;
      m.formula = fmt::format(
          "us per copy = median {:.6g} s per repetition x 1e6; a repetition is "
          "one {}-byte copy, waited for",
          m.statistics.median, bytes);
    } else {
      m = bench::MakeThroughput(name(), direction + "_bandwidth", *samples,
                                static_cast<double>(bytes), false, context);
      m.formula = fmt::format("bytes = {} per repetition (each byte once); ", bytes) + m.formula;
    }
    m.parameters = {{"direction", direction},
                    {"bytes", bytes},
                    {"host_memory", "pageable"},
                    {"device", device}};
    Attribute(m, *target, device, queue);
    m.timing_source = "host CLOCK_MONOTONIC around each PJRT transfer until its event";
    return std::vector<bench::Measurement>{std::move(m)};
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakePjrtHostTransferBenchmark() {
  return std::make_unique<PjrtHostTransferBenchmark>();
}

}  // namespace xpuperf::pjrt_bench
