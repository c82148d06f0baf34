// pjrt_gemm: C = A . B with one stablehlo.dot_general per loop iteration (FLOPs 2 m n k, as
// Google's accelerator microbenchmarks count them), verified on sampled entries against a double
// precision host reference.
#include <fmt/format.h>

#include <cmath>
#include <random>

#include "host_array.h"
#include "loop_runner.h"
#include "pjrt_benchmark.h"
#include "pjrt_benchmarks_internal.h"
#include "programs.h"

namespace xpuperf::pjrt_bench {
namespace {

constexpr int64_t kMaxDim = 1 << 16;

using pjrt::ElementType;

// Relative bound on |C - reference| / sum_k |a_ik b_kj| for a result type.
double Tolerance(ElementType out) {
  switch (out) {
    case ElementType::kBF16:
      return 1.0 / 128;
    case ElementType::kF16:
      return 1.0 / 1024;
    case ElementType::kF32:
      return 1e-4;
    case ElementType::kF64:
      return 1e-12;
    default:
      return 0;  // integers are exact
  }
}

Status VerifyGemm(const HostArray& a, const HostArray& b, const HostArray& c, int64_t m, int64_t n,
                  int64_t k) {
  std::mt19937_64 pick(7);
  std::uniform_int_distribution<int64_t> row(0, m - 1), col(0, n - 1);
  const double tolerance = Tolerance(c.type());
  for (int s = 0; s < 64; ++s) {
    const int64_t i = s == 0 ? 0 : row(pick);
    const int64_t j = s == 0 ? 0 : col(pick);
    double reference = 0, magnitude = 0;
    for (int64_t p = 0; p < k; ++p) {
      const double term = a.At(i * k + p) * b.At(p * n + j);
      reference += term;
      magnitude += std::fabs(term);
    }
    const double got = c.At(i * n + j);
    if (std::fabs(got - reference) > tolerance * magnitude + 1e-30 || std::isnan(got)) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("pjrt_gemm: C[{}][{}] = {} but the host reference gives {}", i,
                                   j, got, reference));
    }
  }
  return Status::Ok();
}

class PjrtGemmBenchmark final : public PjrtBenchmark {
 public:
  PjrtGemmBenchmark() : PjrtBenchmark(bench::Component::kCompute) {}
  std::string name() const override { return "pjrt_gemm"; }
  std::string description() const override {
    return "GEMM on a PJRT device (TPU, GPU or XLA's CPU): one stablehlo.dot_general per "
           "iteration of a compiled loop; FLOPs 2 m n k";
  }
  std::vector<nlohmann::json> default_sweep() const override {
    return {{{"precision", "fp32"}, {"m", 1024}, {"n", 1024}, {"k", 1024}},
            {{"precision", "bf16"}, {"m", 1024}, {"n", 1024}, {"k", 1024}},
            {{"precision", "int8"}, {"m", 1024}, {"n", 1024}, {"k", 1024}},
            {{"precision", "bf16"}, {"m", 256}, {"n", 4096}, {"k", 4096}}};
  }

  std::optional<bench::ParameterSchema> parameter_schema() const override {
    bench::ParameterSchema schema = {
        bench::ChoiceParameter("precision", "bf16", {"fp64", "fp32", "bf16", "fp16", "int8"}),
        // Absent: the input precision (int32 for int8).
        bench::ChoiceParameter("out_precision", nullptr, {"fp64", "fp32", "bf16", "fp16", "int32"}),
        bench::IntegerParameter("m", 1024, 1, kMaxDim),
        bench::IntegerParameter("n", 1024, 1, kMaxDim),
        bench::IntegerParameter("k", 1024, 1, kMaxDim)};
    for (bench::ParameterSpec& spec : TargetParameters()) schema.push_back(std::move(spec));
    return schema;
  }

  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    const std::string precision_name = TextOf(point, "precision");
    const ElementType in = *pjrt::ParsePrecision(precision_name);
    const ElementType default_out = in == ElementType::kS8 ? ElementType::kS32 : in;
    std::string out_name = TextOf(point, "out_precision");
    if (out_name.empty()) out_name = pjrt::PrecisionName(default_out);
    const ElementType out = *pjrt::ParsePrecision(out_name);
    if (pjrt::IsInteger(in) != pjrt::IsInteger(out)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "pjrt_gemm: int8 inputs accumulate into int32, float inputs into a float");
    }
    const int64_t m = IntegerOf(point, "m"), n = IntegerOf(point, "n"), k = IntegerOf(point, "k");
    const double bytes = static_cast<double>(m * k + k * n) * pjrt::ElementBytes(in) +
                         static_cast<double>(m * n) * pjrt::ElementBytes(out);
    XPUPERF_RETURN_IF_ERROR(CheckHostBytes(name(), 2 * bytes));
    XPUPERF_ASSIGN_OR_RETURN(PjrtTarget * target, OpenTarget(PluginChoice(point)));
    XPUPERF_ASSIGN_OR_RETURN(const int device, DevicePosition(name(), point, *target));
    const pjrt::Client& client = *target->client;

    XPUPERF_ASSIGN_OR_RETURN(pjrt::Executable executable,
                             client.Compile(GemmProgram(m, n, k, in, out), {1, {device}}));
    HostArray a(in, m * k), b(in, k * n);
    a.FillRandom(1);
    b.FillRandom(2);
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Buffer a_device, client.FromHost(a.data(), in, {m, k}, device));
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Buffer b_device, client.FromHost(b.data(), in, {k, n}, device));
    LoopRunner runner(client, executable, {{&a_device, &b_device}});
    PjrtHostQueue queue;
    XPUPERF_ASSIGN_OR_RETURN(bench::TimedSamples samples, runner.Sample(queue, context.sampling));
    HostArray c(out, m * n);
    XPUPERF_RETURN_IF_ERROR(runner.outputs().at(0).at(0).ToHost(c.data(), c.size_bytes()));
    XPUPERF_RETURN_IF_ERROR(VerifyGemm(a, b, c, m, n, k));

    const double flops =
        2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    const bool integer = pjrt::IsInteger(in);
    bench::Measurement result = bench::MakeThroughput(
        name(), fmt::format("{}_{}", precision_name, integer ? "ops" : "flops"), samples, flops,
        true, context);
    if (integer) {
      result.unit = "GOP/s";
      result.formula = fmt::format(
          "GOP/s {:.6g} OP per repetition / median {:.6g} s per "
          "repetition / 1e9",
          flops, result.statistics.median);
    }
    result.parameters = {{"precision", precision_name},
                         {"out_precision", out_name},
                         {"m", m},
                         {"n", n},
                         {"k", k},
                         {"device", device}};
    result.formula =
        fmt::format(
            "{} = 2 m n k = {:.6g} per repetition (one {}x{}x{} dot_general, {} inputs, {} result, "
            "repeated inside one compiled loop); ",
            integer ? "OP" : "FLOP", flops, m, n, k, precision_name, out_name) +
        result.formula;
    Attribute(result, *target, device, queue);
    return std::vector<bench::Measurement>{std::move(result)};
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakePjrtGemmBenchmark() {
  return std::make_unique<PjrtGemmBenchmark>();
}

}  // namespace xpuperf::pjrt_bench
