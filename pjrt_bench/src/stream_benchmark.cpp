// pjrt_stream: device-memory bandwidth with STREAM's four kernels over arrays far larger than any
// on-chip memory, bytes counted as Google's hbm_bandwidth does (elements x element size x arrays
// touched: 2 for copy and scale, 3 for add and triad), every element verified.
#include <fmt/format.h>

#include <cmath>

#include "host_array.h"
#include "loop_runner.h"
#include "pjrt_benchmarks_internal.h"
#include "programs.h"

namespace xpuperf::pjrt_bench {
namespace {

using pjrt::ElementType;

class PjrtStreamBenchmark final : public PjrtBenchmark {
 public:
  PjrtStreamBenchmark() : PjrtBenchmark(bench::Component::kMemory) {}
  std::string name() const override { return "pjrt_stream"; }
  std::string description() const override {
    return "device-memory bandwidth on a PJRT device: STREAM copy (x + s), scale, add, triad "
           "over arrays of 'elements', bytes = elements x size x arrays";
  }
  std::vector<nlohmann::json> default_sweep() const override {
    return {
        {{"kernel", "copy"}}, {{"kernel", "scale"}}, {{"kernel", "add"}}, {{"kernel", "triad"}}};
  }

  std::optional<bench::ParameterSchema> parameter_schema() const override {
    bench::ParameterSchema schema = {
        bench::ChoiceParameter("kernel", "triad", {"copy", "scale", "add", "triad"}),
        bench::ChoiceParameter("precision", "fp32", {"fp32", "bf16"}),
        // 2^25 elements: 128 MiB per fp32 array, beyond the largest caches of CPUs and
        // accelerators.
        bench::IntegerParameter("elements", int64_t{1} << 25, 1024,
                                static_cast<double>(int64_t{1} << 34))};
    for (bench::ParameterSpec& spec : TargetParameters()) schema.push_back(std::move(spec));
    return schema;
  }

  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    const std::string kernel_name = TextOf(point, "kernel");
    const StreamKernel kernel = *bench::ParseStreamKernel(kernel_name);
    const std::string precision = TextOf(point, "precision");
    const ElementType type = *pjrt::ParsePrecision(precision);
    const int64_t elements = IntegerOf(point, "elements");
    const double array_bytes = static_cast<double>(elements) * pjrt::ElementBytes(type);
    XPUPERF_RETURN_IF_ERROR(CheckHostBytes(name(), 3 * array_bytes));
    XPUPERF_ASSIGN_OR_RETURN(PjrtTarget * target, OpenTarget(PluginChoice(point)));
    XPUPERF_ASSIGN_OR_RETURN(const int device, DevicePosition(name(), point, *target));
    const pjrt::Client& client = *target->client;
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Executable executable,
                             client.Compile(StreamProgram(kernel, elements, type), {1, {device}}));

    // Values stay exact whatever the repetition count: small integers, and for bf16 (8 bits of
    // mantissa) an update that leaves x unchanged (s = 0, or y = 0 for add).
    const bool exact_growth = type == ElementType::kF32;
    HostArray x(type, elements), y(type, elements), s(type, 1);
    x.Fill([](size_t i) { return static_cast<double>(i % 16) - 8; });
    y.Fill([&](size_t i) {
      return exact_growth || kernel != StreamKernel::kAdd ? static_cast<double>(i % 5) - 2 : 0.0;
    });
    s.Set(0, kernel == StreamKernel::kScale || exact_growth ? 1.0 : 0.0);
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Buffer x_device,
                             client.FromHost(x.data(), type, {elements}, device));
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Buffer y_device,
                             client.FromHost(y.data(), type, {elements}, device));
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Buffer s_device, client.FromHost(s.data(), type, {}, device));
    LoopRunner runner(client, executable, {{&x_device, &y_device, &s_device}});
    PjrtHostQueue queue;
    XPUPERF_ASSIGN_OR_RETURN(bench::TimedSamples samples, runner.Sample(queue, context.sampling));

    HostArray result(type, elements);
    XPUPERF_RETURN_IF_ERROR(
        runner.outputs().at(0).at(0).ToHost(result.data(), result.size_bytes()));
    const double n = static_cast<double>(samples.repetitions);
    for (size_t i = 0; i < result.count(); ++i) {
      double expected = x.At(i);
      switch (kernel) {
        case StreamKernel::kCopy:
          expected += n * s.At(0);
          break;
        case StreamKernel::kScale:
          expected *= std::pow(s.At(0), n);
          break;
        case StreamKernel::kAdd:
          expected += n * y.At(i);
          break;
        case StreamKernel::kTriad:
          expected += n * s.At(0) * y.At(i);
          break;
      }
      if (result.At(i) != expected) {
        return MakeError(ErrorCode::kInternal,
                         fmt::format("pjrt_stream {}: element {} is {} after {} iterations, "
                                     "expected {}",
                                     kernel_name, i, result.At(i), samples.repetitions, expected));
      }
    }

    const int arrays = StreamArrays(kernel);
    const double bytes = array_bytes * arrays;
    bench::Measurement m =
        bench::MakeThroughput(name(), kernel_name + "_bandwidth", samples, bytes, false, context);
    m.parameters = {{"kernel", kernel_name},
                    {"elements", elements},
                    {"precision", precision},
                    {"device", device},
                    {"array_bytes", array_bytes}};
    m.formula = fmt::format(
                    "bytes = elements {} x {} bytes x {} arrays = {:.6g} per repetition "
                    "(one elementwise pass in a compiled loop); ",
                    elements, pjrt::ElementBytes(type), arrays, bytes) +
                m.formula;
    Attribute(m, *target, device, queue);
    return std::vector<bench::Measurement>{std::move(m)};
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakePjrtStreamBenchmark() {
  return std::make_unique<PjrtStreamBenchmark>();
}

}  // namespace xpuperf::pjrt_bench
