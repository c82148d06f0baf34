#include "gemm_benchmark.h"

#include <fmt/format.h>

#include <random>

#include "xpuperf/bench/gemm.h"
#include "xpuperf/bench/nominal_peak.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/threads.h"
#include "xpuperf/core/cpuinfo.h"

namespace xpuperf::bench {
namespace {

// Entries of C recomputed naively after the run.
constexpr int kVerifiedEntries = 64;
// Beyond this many elements per matrix the run would need more than a few GiB.
constexpr int64_t kMaxElements = int64_t{1} << 28;

Result<std::pair<Precision, GemmShape>> ParsePoint(const nlohmann::json& point) {
  const std::string precision = point.value("precision", "fp64");
  if (precision != "fp64" && precision != "fp32") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "gemm: unknown precision '" + precision + "' (known: fp64, fp32)");
  }
  GemmShape shape{point.value("m", int64_t{512}), point.value("n", int64_t{512}),
                  point.value("k", int64_t{512})};
  if (shape.m < 1 || shape.n < 1 || shape.k < 1 || shape.m * shape.k > kMaxElements ||
      shape.k * shape.n > kMaxElements || shape.m * shape.n > kMaxElements) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("gemm: m, n, k must be positive with every matrix at most 2^28 "
                                 "elements (got m={} n={} k={})",
                                 shape.m, shape.n, shape.k));
  }
  return std::pair{precision == "fp64" ? Precision::kFp64 : Precision::kFp32, shape};
}

template <typename T>
Result<TimedSamples> TimeGemm(const GemmShape& shape, RunContext& context) {
  std::mt19937_64 random(42);
  std::uniform_real_distribution<T> uniform(T(-1), T(1));
  std::vector<T> a(static_cast<size_t>(shape.m * shape.k));
  std::vector<T> b(static_cast<size_t>(shape.k * shape.n));
  std::vector<T> c(static_cast<size_t>(shape.m * shape.n), T(0));
  for (T& x : a) x = uniform(random);
  for (T& x : b) x = uniform(random);
  const auto run = [&](int64_t repetitions) {
    for (int64_t r = 0; r < repetitions; ++r) RunGemm(shape, a, b, c);
  };
  XPUPERF_ASSIGN_OR_RETURN(TimedSamples samples,
                           CollectSamples(*context.queue, context.sampling, run));
  XPUPERF_RETURN_IF_ERROR(VerifyGemmSample<T>(shape, a, b, c, kVerifiedEntries));
  return samples;
}

class GemmBenchmark final : public Benchmark {
 public:
  explicit GemmBenchmark(std::string root) : root_(std::move(root)) {}
  std::string name() const override { return "gemm"; }
  Component component() const override { return Component::kCompute; }
  std::string description() const override {
    return "OpenBLAS dgemm/sgemm, C = A B row-major; square and LLM-shaped m, n, k";
  }
  std::optional<ParameterSchema> parameter_schema() const override {
    const double max = static_cast<double>(kMaxElements);
    return ParameterSchema{ChoiceParameter("precision", "fp64", {"fp64", "fp32"}),
                           IntegerParameter("m", 512, 1, max), IntegerParameter("n", 512, 1, max),
                           IntegerParameter("k", 512, 1, max)};
  }
  std::vector<nlohmann::json> default_sweep() const override {
    return {{{"precision", "fp64"}, {"m", 1024}, {"n", 1024}, {"k", 1024}},
            {{"precision", "fp32"}, {"m", 1024}, {"n", 1024}, {"k", 1024}}};
  }
  Status CanRun(const Device& device, const nlohmann::json& point) const override {
    if (device.backend != "cpu") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: no gemm library for backend '" + device.backend + "'");
    }
    XPUPERF_RETURN_IF_ERROR(ParsePoint(point));
    return Status::Ok();
  }

  Result<std::vector<Measurement>> Run(const nlohmann::json& point, RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const auto parsed, ParsePoint(point));
    const auto [precision, shape] = parsed;
    const int threads =
        context.threads > 0 ? context.threads : static_cast<int>(AllowedCpus().size());
    SetOpenBlasThreads(threads);
    XPUPERF_ASSIGN_OR_RETURN(const TimedSamples samples, precision == Precision::kFp64
                                                             ? TimeGemm<double>(shape, context)
                                                             : TimeGemm<float>(shape, context));
    const double flops = GemmFlops(shape);
    Measurement m = MakeThroughput(name(), std::string(PrecisionName(precision)) + "_flops",
                                   samples, flops, true, context);
    m.parameters = point;
    m.parameters["precision"] = PrecisionName(precision);
    m.parameters["threads"] = threads;
    m.parameters["bytes"] = GemmBytes(shape, precision);
    m.bytes_per_repetition = GemmBytes(shape, precision);
    m.formula = fmt::format("FLOP = 2 m n k = 2 x {} x {} x {} = {:.6g}; ", shape.m, shape.n,
                            shape.k, flops) +
                m.formula;
    if (auto info = ReadCpuInfo(root_); info.ok()) {
      const SimdLevel level = BestSimdLevel(info->cpus.front().flags);
      AttachNominalPeak(m, *info, root_, context.device, threads, precision, level);
    }
    return std::vector<Measurement>{std::move(m)};
  }

 private:
  std::string root_;
};

}  // namespace

std::unique_ptr<Benchmark> MakeGemmBenchmark(std::string root) {
  return std::make_unique<GemmBenchmark>(std::move(root));
}

}  // namespace xpuperf::bench
