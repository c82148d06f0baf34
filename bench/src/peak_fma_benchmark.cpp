#include "peak_fma_benchmark.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <string_view>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/bench/nominal_peak.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/threads.h"
#include "xpuperf/core/cpuinfo.h"

namespace xpuperf::bench {
namespace {

// Iterations per kernel call: ~0.5 ms per call on a 3 GHz core (12 chains, 2 per cycle), long
// enough that the OpenMP fork/join (a few us) is noise, and below the fp32 exactness limit of 2^21.
constexpr int64_t kIterationsPerCall = 1 << 18;

Result<Precision> PrecisionOf(const nlohmann::json& point) {
  const std::string name = point.value("precision", "fp64");
  if (name == "fp64") return Precision::kFp64;
  if (name == "fp32") return Precision::kFp32;
  return MakeError(ErrorCode::kInvalidArgument,
                   "peak_fma: unknown precision '" + name + "' (known: fp64, fp32, bf16, int8)");
}

bool HasFeature(const Device& device, std::string_view feature) {
  return std::find(device.features.begin(), device.features.end(), feature) !=
         device.features.end();
}

// Precisions with their own ISA extension: why they cannot run here. Their kernels (AVX512_BF16
// vdpbf16ps, AVX512_VNNI vpdpbusd chains) are not written yet, so even a CPU with the extension
// gets a reason rather than a number.
Status ExtensionPrecisionStatus(const Device& device, const std::string& precision) {
  const char* feature = precision == "bf16" ? "avx512_bf16" : "avx512_vnni";
  const char* upper = precision == "bf16" ? "AVX512_BF16" : "AVX512_VNNI";
  if (!HasFeature(device, feature)) {
    return MakeError(ErrorCode::kUnsupported, std::string("unsupported: no ") + upper);
  }
  return MakeError(ErrorCode::kUnsupported,
                   "unsupported: this build has no " + precision + " peak kernel for " + upper);
}

class PeakFmaBenchmark final : public Benchmark {
 public:
  explicit PeakFmaBenchmark(std::string root) : root_(std::move(root)) {}
  std::string name() const override { return "peak_fma"; }
  Component component() const override { return Component::kCompute; }
  std::string description() const override {
    return "peak FP rate: 12 independent FMA chains per thread in vector registers (fp64, fp32)";
  }
  std::optional<ParameterSchema> parameter_schema() const override {
    return ParameterSchema{ChoiceParameter("precision", "fp64", {"fp64", "fp32", "bf16", "int8"})};
  }
  std::vector<nlohmann::json> default_sweep() const override {
    return {{{"precision", "fp64"}}, {{"precision", "fp32"}}};
  }
  Status CanRun(const Device& device, const nlohmann::json& point) const override {
    if (device.backend != "cpu") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: no peak_fma kernel for backend '" + device.backend + "'");
    }
    const std::string precision = point.value("precision", "fp64");
    if (precision == "bf16" || precision == "int8") {
      return ExtensionPrecisionStatus(device, precision);
    }
    XPUPERF_RETURN_IF_ERROR(PrecisionOf(point));
    return Status::Ok();
  }

  Result<std::vector<Measurement>> Run(const nlohmann::json& point, RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const Precision precision, PrecisionOf(point));
    XPUPERF_ASSIGN_OR_RETURN(const CpuInfo info, ReadCpuInfo(root_));
    const SimdLevel level = BestSimdLevel(info.cpus.front().flags);
    const PinnedOpenMpTeam team(context.threads);
    const int threads = team.size();
    const size_t per_thread = static_cast<size_t>(FmaOutputCount(precision, level));
    std::vector<double> outputs(per_thread * static_cast<size_t>(threads), 0.0);
    // Read from a volatile so the compiler cannot see that the multiplier is 1.
    volatile double multiplier_source = 1.0;
    const double multiplier = multiplier_source;
    const auto run = [&](int64_t repetitions) {
#pragma omp parallel num_threads(threads)
      {
        const size_t thread = static_cast<size_t>(omp_get_thread_num());
        std::span<double> out(outputs.data() + thread * per_thread, per_thread);
        for (int64_t r = 0; r < repetitions; ++r) {
          RunFmaChains(precision, level, kIterationsPerCall, multiplier, out);
        }
      }
    };
    XPUPERF_ASSIGN_OR_RETURN(const TimedSamples samples,
                             CollectSamples(*context.queue, context.sampling, run));
    XPUPERF_RETURN_IF_ERROR(VerifyFmaChains(precision, level, kIterationsPerCall, outputs));

    const double flops = threads * FmaFlopsPerCall(precision, level, kIterationsPerCall);
    Measurement m = MakeThroughput(name(), std::string(PrecisionName(precision)) + "_flops",
                                   samples, flops, true, context);
    m.parameters = point;
    m.parameters["precision"] = PrecisionName(precision);
    m.parameters["simd"] = SimdLevelName(level);
    m.parameters["threads"] = threads;
    m.parameters["chains"] = kFmaChains;
    m.parameters["iterations_per_call"] = kIterationsPerCall;
    m.formula =
        fmt::format("FLOP = threads {} x iterations {} x chains {} x lanes {} x 2 = {:.6g}; ",
                    threads, kIterationsPerCall, kFmaChains, VectorLanes(precision, level), flops) +
        m.formula;
    AttachNominalPeak(m, info, root_, context.device, threads, precision, level);
    return std::vector<Measurement>{std::move(m)};
  }

 private:
  std::string root_;
};

}  // namespace

std::unique_ptr<Benchmark> MakePeakFmaBenchmark(std::string root) {
  return std::make_unique<PeakFmaBenchmark>(std::move(root));
}

}  // namespace xpuperf::bench
