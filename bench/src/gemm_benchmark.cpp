#include "gemm_benchmark.h"

#include <fmt/format.h>

#include <random>

#include "onednn_matmul.h"
#include "page_aligned_array.h"
#include "peak_models.h"
#include "xpuperf/bench/gemm.h"
#include "xpuperf/bench/nominal_peak.h"
#include "xpuperf/bench/parameters.h"
#include "xpuperf/bench/peak_kernels.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/threads.h"
#include "xpuperf/core/cpuinfo.h"

namespace xpuperf::bench {
namespace {

// Entries of C recomputed naively after the run.
constexpr int kVerifiedEntries = 64;
// Beyond this many elements per matrix the run would need more than a few GiB.
constexpr int64_t kMaxElements = int64_t{1} << 28;

enum class Library { kOpenBlas, kOneDnn };

struct GemmPoint {
  Precision precision = Precision::kFp64;
  Library library = Library::kOpenBlas;
  GemmShape shape;
};

// The one description of a gemm point: the suite check, `bench list` and ParsePoint all use it.
// library: derived from the precision when omitted (openblas for fp64/fp32, onednn for bf16/int8).
ParameterSchema GemmSchema() {
  const double max = static_cast<double>(kMaxElements);
  return {ChoiceParameter("precision", "fp64", {"fp64", "fp32", "bf16", "int8"}),
          ChoiceParameter("library", nullptr, {"openblas", "onednn"}),
          IntegerParameter("m", 512, 1, max), IntegerParameter("n", 512, 1, max),
          IntegerParameter("k", 512, 1, max)};
}

// Takes a point as given or already resolved (ResolvePoint is idempotent): every value read
// below has been type-checked, so the JSON library never throws.
Result<GemmPoint> ParsePoint(const nlohmann::json& given) {
  XPUPERF_ASSIGN_OR_RETURN(const nlohmann::json point, ResolvePoint("gemm", GemmSchema(), given));
  const std::string name = point["precision"].get<std::string>();
  const std::optional<Precision> precision = ParsePrecision(name);
  if (!precision || *precision == Precision::kFp16) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "gemm: unknown precision '" + name + "' (known: fp64, fp32, bf16, int8)");
  }
  GemmPoint parsed;
  parsed.precision = *precision;
  const bool low = *precision == Precision::kBf16 || *precision == Precision::kInt8;
  const std::string library = point.contains("library") ? point["library"].get<std::string>()
                                                        : (low ? "onednn" : "openblas");
  if (library == "onednn" && *precision != Precision::kFp64) {
    parsed.library = Library::kOneDnn;
  } else if (library != "openblas" || low) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("gemm: library '{}' has no {} GEMM here (openblas: fp64, fp32; "
                                 "onednn: fp32, bf16, int8)",
                                 library, name));
  }
  parsed.shape.m = point["m"].get<int64_t>();
  parsed.shape.n = point["n"].get<int64_t>();
  parsed.shape.k = point["k"].get<int64_t>();
  const GemmShape& s = parsed.shape;
  // Each factor is checked before the products, so none of them can overflow.
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.m > kMaxElements || s.n > kMaxElements ||
      s.k > kMaxElements || s.m * s.k > kMaxElements || s.k * s.n > kMaxElements ||
      s.m * s.n > kMaxElements) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("gemm: m, n, k must be positive with every matrix at most 2^28 "
                                 "elements (got m={} n={} k={})",
                                 s.m, s.n, s.k));
  }
  return parsed;
}

template <typename T>
Result<TimedSamples> TimeOpenBlasGemm(const GemmShape& shape, RunContext& context) {
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

// oneDNN's matmul on random data, every matrix starting a page (PageAlignedArray says why).
// int8: A u8 in [0, 127] and B s8 in [-127, 127], so a pair of products stays within int16 and
// CPUs without VNNI (vpmaddubsw saturates pairs) give the exact s32 result the check expects.
// bf16: the check recomputes from the bf16 values themselves (fp32 copies of them).
Result<TimedSamples> TimeOneDnnGemm(OneDnnMatmul& matmul, Precision precision,
                                    const GemmShape& shape, RunContext& context) {
  std::mt19937_64 random(42);
  const size_t a_count = static_cast<size_t>(shape.m * shape.k);
  const size_t b_count = static_cast<size_t>(shape.k * shape.n);
  const size_t c_count = static_cast<size_t>(shape.m * shape.n);
  PageAlignedArray<float> a, b, c;
  PageAlignedArray<uint16_t> a16, b16;
  PageAlignedArray<uint8_t> a8;
  PageAlignedArray<int8_t> b8;
  PageAlignedArray<int32_t> c32;
  const void* a_data = nullptr;
  const void* b_data = nullptr;
  void* c_data = nullptr;
  if (precision == Precision::kInt8) {
    std::uniform_int_distribution<int> ua(0, 127), ub(-127, 127);
    a8 = PageAlignedArray<uint8_t>(a_count);
    b8 = PageAlignedArray<int8_t>(b_count);
    c32 = PageAlignedArray<int32_t>(c_count);
    for (uint8_t& x : a8) x = static_cast<uint8_t>(ua(random));
    for (int8_t& x : b8) x = static_cast<int8_t>(ub(random));
    a_data = a8.data();
    b_data = b8.data();
    c_data = c32.data();
  } else {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    a = PageAlignedArray<float>(a_count);
    b = PageAlignedArray<float>(b_count);
    c = PageAlignedArray<float>(c_count);
    for (float& x : a) x = uniform(random);
    for (float& x : b) x = uniform(random);
    a_data = a.data();
    b_data = b.data();
    c_data = c.data();
    if (precision == Precision::kBf16) {
      a16 = PageAlignedArray<uint16_t>(a_count);
      b16 = PageAlignedArray<uint16_t>(b_count);
      for (size_t i = 0; i < a_count; ++i) a[i] = FloatFromBf16(a16[i] = Bf16FromFloat(a[i]));
      for (size_t i = 0; i < b_count; ++i) b[i] = FloatFromBf16(b16[i] = Bf16FromFloat(b[i]));
      a_data = a16.data();
      b_data = b16.data();
    }
  }
  Status failed = Status::Ok();
  const auto run = [&](int64_t repetitions) {
    for (int64_t r = 0; r < repetitions && failed.ok(); ++r) {
      failed = matmul.Execute(a_data, b_data, c_data);
    }
  };
  XPUPERF_ASSIGN_OR_RETURN(TimedSamples samples,
                           CollectSamples(*context.queue, context.sampling, run));
  XPUPERF_RETURN_IF_ERROR(failed);
  if (precision == Precision::kInt8) {
    XPUPERF_RETURN_IF_ERROR(VerifyInt8GemmSample(shape, a8, b8, c32, kVerifiedEntries));
  } else {
    XPUPERF_RETURN_IF_ERROR(VerifyGemmSample<float>(shape, a, b, c, kVerifiedEntries));
  }
  return samples;
}

class GemmBenchmark final : public Benchmark {
 public:
  explicit GemmBenchmark(std::string root) : root_(std::move(root)) {}
  std::string name() const override { return "gemm"; }
  Component component() const override { return Component::kCompute; }
  std::string description() const override {
    return "GEMM C = A B row-major: OpenBLAS dgemm/sgemm, oneDNN matmul fp32, bf16 (fp32 out), "
           "int8 (u8 x s8 -> s32); square and LLM-shaped m, n, k";
  }
  std::optional<ParameterSchema> parameter_schema() const override { return GemmSchema(); }
  std::vector<nlohmann::json> default_sweep() const override {
    return {{{"precision", "fp64"}, {"m", 1024}, {"n", 1024}, {"k", 1024}},
            {{"precision", "fp32"}, {"m", 1024}, {"n", 1024}, {"k", 1024}},
            {{"precision", "fp32"}, {"library", "onednn"}, {"m", 1024}, {"n", 1024}, {"k", 1024}},
            {{"precision", "bf16"}, {"m", 1024}, {"n", 1024}, {"k", 1024}},
            {{"precision", "int8"}, {"m", 1024}, {"n", 1024}, {"k", 1024}}};
  }
  Status CanRun(const Device& device, const nlohmann::json& point) const override {
    if (device.backend != "cpu") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: no gemm library for backend '" + device.backend + "'");
    }
    XPUPERF_ASSIGN_OR_RETURN(const GemmPoint parsed, ParsePoint(point));
    if (parsed.library == Library::kOneDnn) {
      // Creating the primitive says whether oneDNN is here and implements this precision on this
      // CPU; it allocates nothing for the matrices.
      XPUPERF_RETURN_IF_ERROR(OneDnnMatmul::Create(parsed.precision, parsed.shape));
    }
    return Status::Ok();
  }

  Result<std::vector<Measurement>> Run(const nlohmann::json& point, RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const GemmPoint parsed, ParsePoint(point));
    const auto [precision, library, shape] = parsed;
    int threads = context.threads > 0 ? context.threads : static_cast<int>(AllowedCpus().size());
    Measurement m;
    std::string implementation;
    ClockFigure measured_clock;
    const double flops = GemmFlops(shape);
    if (library == Library::kOpenBlas) {
      SetOpenBlasThreads(threads);
      XPUPERF_ASSIGN_OR_RETURN(const TimedSamples samples,
                               precision == Precision::kFp64
                                   ? TimeOpenBlasGemm<double>(shape, context)
                                   : TimeOpenBlasGemm<float>(shape, context));
      measured_clock = MeasureClockAfter(threads, "the GEMM's last sample");
      m = MakeThroughput(name(), ComputeMetricName(precision), samples, flops, true, context);
      implementation = OpenBlasConfig();
    } else {
      // oneDNN runs on the OpenMP team: pinned, one thread per allowed CPU (or context.threads).
      const PinnedOpenMpTeam team(context.threads);
      threads = team.size();
      XPUPERF_ASSIGN_OR_RETURN(const std::unique_ptr<OneDnnMatmul> matmul,
                               OneDnnMatmul::Create(precision, shape));
      XPUPERF_ASSIGN_OR_RETURN(const TimedSamples samples,
                               TimeOneDnnGemm(*matmul, precision, shape, context));
      measured_clock = MeasureClockAfter(threads, "the GEMM's last sample");
      m = MakeThroughput(name(), ComputeMetricName(precision), samples, flops, true, context);
      implementation = OneDnnVersion() + ", " + matmul->implementation();
    }
    if (precision == Precision::kInt8) {
      m.unit = "GOP/s";
      m.formula =
          fmt::format("GOP/s {:.6g} OP per repetition / median {:.6g} s per repetition / 1e9",
                      flops, m.statistics.median);
    }
    m.parameters = point;
    m.parameters["precision"] = PrecisionName(precision);
    m.parameters["library"] = library == Library::kOpenBlas ? "openblas" : "onednn";
    m.parameters["implementation"] = implementation;
    m.parameters["threads"] = threads;
    m.parameters["bytes"] = GemmBytes(shape, precision);
    m.bytes_per_repetition = GemmBytes(shape, precision);
    m.formula = fmt::format("{} = 2 m n k = 2 x {} x {} x {} = {:.6g}; ",
                            precision == Precision::kInt8 ? "OP" : "FLOP", shape.m, shape.n,
                            shape.k, flops) +
                m.formula;
    if (auto info = ReadCpuInfo(root_); info.ok()) {
      if (auto kernel = SelectPeakKernel(precision, UsableHostFeatures()); kernel.ok()) {
        // The clock the cores ran the GEMM at (a VM's cpuinfo states its nominal clock, far below
        // a boosting core's), as peak_fma measures its own.
        CoreClocks clocks = ReadCoreClocks(*info, root_);
        clocks.measured = measured_clock;
        AttachNominalPeak(m, *info, context.device, threads, **kernel, clocks);
      }
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
