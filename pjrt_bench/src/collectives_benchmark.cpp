// pjrt_collectives: all_reduce, all_gather, reduce_scatter, all_to_all and collective_permute over
// the addressable devices of one PJRT client (replica style: one replica per device, one group),
// one collective per iteration of a compiled loop. Sizes, algbw and busbw follow nccl-tests
// (xpuperf/collectives/collective.h; collective_permute as its ring send_recv); every replica's
// output is verified.
#include <fmt/format.h>

#include "host_array.h"
#include "loop_runner.h"
#include "pjrt_benchmarks_internal.h"
#include "programs.h"
#include "xpuperf/collectives/collective.h"

namespace xpuperf::pjrt_bench {
namespace {

using collectives::CollectiveOp;
using pjrt::ElementType;

struct OpInfo {
  CollectiveKind kind;
  CollectiveOp formulas;
};

Result<OpInfo> ParseOp(const std::string& name) {
  for (const OpInfo info : {OpInfo{CollectiveKind::kAllReduce, CollectiveOp::kAllReduce},
                            OpInfo{CollectiveKind::kAllGather, CollectiveOp::kAllGather},
                            OpInfo{CollectiveKind::kReduceScatter, CollectiveOp::kReduceScatter},
                            OpInfo{CollectiveKind::kAllToAll, CollectiveOp::kAllToAll},
                            OpInfo{CollectiveKind::kCollectivePermute, CollectiveOp::kSendRecv}}) {
    if (name == CollectiveKindName(info.kind)) return info;
  }
  return MakeError(ErrorCode::kInvalidArgument, "pjrt_collectives: unknown op " + name);
}

// Replica r's input element j.
double InputValue(int r, int64_t j) { return (r + 1) + static_cast<double>(j % 7); }

// What replica r must hold after one collective: element j of its output.
double Expected(CollectiveKind kind, int r, int64_t j, int n, int64_t block) {
  switch (kind) {
    case CollectiveKind::kAllReduce: {
      double sum = 0;
      for (int s = 0; s < n; ++s) sum += InputValue(s, j);
      return sum;
    }
    case CollectiveKind::kAllGather:
      return InputValue(static_cast<int>(j / block), j % block);
    case CollectiveKind::kReduceScatter: {
      double sum = 0;
      for (int s = 0; s < n; ++s) sum += InputValue(s, r * block + j);
      return sum;
    }
    case CollectiveKind::kAllToAll:
      return InputValue(static_cast<int>(j / block), r * block + j % block);
    case CollectiveKind::kCollectivePermute:
      return InputValue((r - 1 + n) % n, j);
  }
  return 0;
}

class PjrtCollectivesBenchmark final : public PjrtBenchmark {
 public:
  PjrtCollectivesBenchmark() : PjrtBenchmark(bench::Component::kNetwork) {}
  std::string name() const override { return "pjrt_collectives"; }
  std::string description() const override {
    return "collectives over every addressable PJRT device (all_reduce, all_gather, "
           "reduce_scatter, all_to_all, collective_permute): algbw and busbw as nccl-tests";
  }
  std::vector<nlohmann::json> default_sweep() const override {
    std::vector<nlohmann::json> sweep;
    for (const char* op :
         {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute"}) {
      sweep.push_back({{"op", op}, {"bytes", 1 << 20}});
      sweep.push_back({{"op", op}, {"bytes", 1 << 26}});
    }
    return sweep;
  }

  std::optional<bench::ParameterSchema> parameter_schema() const override {
    bench::ParameterSchema schema = {
        bench::ChoiceParameter(
            "op", "all_reduce",
            {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute"}),
        bench::ChoiceParameter("precision", "fp32", {"fp32", "bf16"}),
        bench::IntegerParameter("bytes", 1 << 20, 1, static_cast<double>(int64_t{1} << 34)),
        // Absent: every device of the plugin.
        bench::IntegerParameter("devices", nullptr, 1, 1 << 20)};
    for (bench::ParameterSpec& spec : TargetParameters(false)) schema.push_back(std::move(spec));
    return schema;
  }

  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    const std::string op_name = TextOf(point, "op");
    const OpInfo op = *ParseOp(op_name);
    const std::string precision = TextOf(point, "precision");
    const ElementType type = *pjrt::ParsePrecision(precision);
    const int64_t requested = IntegerOf(point, "bytes");
    XPUPERF_ASSIGN_OR_RETURN(PjrtTarget * target, OpenTarget(PluginChoice(point), DeviceUse::kAll));
    const pjrt::Client& client = *target->client;
    const auto available = static_cast<int64_t>(client.devices().size());
    const int64_t devices = IntegerOf(point, "devices", available);
    if (devices > available) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("{}: 'devices' must be between 1 and {} (got {}): {} has {}",
                                   name(), available, devices, target->location.path, available));
    }
    if (devices < 2) {
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("unsupported: collectives need at least 2 devices, {} has {}",
                                   target->location.path, available));
    }
    const int n = static_cast<int>(devices);
    const auto element = static_cast<int>(pjrt::ElementBytes(type));
    XPUPERF_ASSIGN_OR_RETURN(const collectives::CollectiveShape shape,
                             collectives::ShapeFor(op.formulas, requested, n, element));
    const int64_t elements = shape.send_elements;
    const int64_t out_elements = CollectiveOutputElements(op.kind, elements, n);
    XPUPERF_RETURN_IF_ERROR(
        CheckHostBytes(name(), 2.0 * n * static_cast<double>(elements + out_elements) * element));

    std::vector<int> positions;
    positions.reserve(static_cast<size_t>(n));
    for (int d = 0; d < n; ++d) positions.push_back(d);
    XPUPERF_ASSIGN_OR_RETURN(
        pjrt::Executable executable,
        client.Compile(CollectiveProgram(op.kind, elements, type, n), {n, positions}));
    std::vector<pjrt::Buffer> inputs;
    std::vector<std::vector<const pjrt::Buffer*>> arguments;
    for (int r = 0; r < n; ++r) {
      HostArray x(type, elements);
      x.Fill([r](size_t j) { return InputValue(r, static_cast<int64_t>(j)); });
      XPUPERF_ASSIGN_OR_RETURN(
          pjrt::Buffer b, client.FromHost(x.data(), type, {elements}, executable.devices()[r]));
      inputs.push_back(std::move(b));
    }
    arguments.reserve(inputs.size());
    for (const pjrt::Buffer& b : inputs) arguments.push_back({&b});
    LoopRunner runner(client, executable, std::move(arguments));
    PjrtHostQueue queue;
    XPUPERF_ASSIGN_OR_RETURN(bench::TimedSamples samples, runner.Sample(queue, context.sampling));

    int64_t wrong = 0;
    for (int r = 0; r < n; ++r) {
      HostArray out(type, out_elements);
      XPUPERF_RETURN_IF_ERROR(runner.outputs().at(r).at(0).ToHost(out.data(), out.size_bytes()));
      for (int64_t j = 0; j < out_elements; ++j) {
        if (out.At(j) != Expected(op.kind, r, j, n, shape.block)) ++wrong;
      }
    }
    if (wrong > 0) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("pjrt_collectives {}: {} output elements differ from the "
                                   "host reference",
                                   op_name, wrong));
    }

    const double bytes = static_cast<double>(shape.bytes);
    const double factor = collectives::BusBandwidthFactor(op.formulas, n);
    bench::Measurement alg =
        bench::MakeThroughput(name(), op_name + "_algbw", samples, bytes, false, context);
    alg.parameters = {{"op", op_name}, {"bytes", shape.bytes},   {"count", shape.count},
                      {"devices", n},  {"precision", precision}, {"busbw_factor", factor},
                      {"wrong", wrong}};
    alg.formula = fmt::format("algbw: S = {} bytes as nccl-tests counts {}; ", shape.bytes,
                              CollectiveName(op.formulas)) +
                  alg.formula;
    Attribute(alg, *target, 0, queue);
    alg.device->id = fmt::format("pjrt-{}0-{}", client.platform_name(), n - 1);
    alg.device->model = fmt::format("{} x {}", n, alg.device->model);
    bench::Measurement bus = alg;
    bus.metric = op_name + "_busbw";
    bus.value = alg.value * factor;
    bus.bytes_per_repetition = bytes * factor;
    bus.formula = fmt::format("busbw = algbw x {:.6g} (nccl-tests factor for {} over n = {}); ",
                              factor, CollectiveName(op.formulas), n) +
                  alg.formula;
    return std::vector<bench::Measurement>{std::move(alg), std::move(bus)};
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakePjrtCollectivesBenchmark() {
  return std::make_unique<PjrtCollectivesBenchmark>();
}

}  // namespace xpuperf::pjrt_bench
