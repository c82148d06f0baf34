#include "peak_fma_benchmark.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string_view>
#include <utility>

#include "xpuperf/bench/core_clock.h"
#include "xpuperf/bench/nominal_peak.h"
#include "xpuperf/bench/parameters.h"
#include "xpuperf/bench/peak_kernels.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/threads.h"
#include "xpuperf/core/cpuinfo.h"

namespace xpuperf::bench {
namespace {

// Iterations per kernel call: ~0.5 ms per call on a 3 GHz core (12 chains, 2 per cycle), long
// enough that the OpenMP fork/join (a few us) is noise, within every kernel's exactness limit
// (bf16's 2^19), and odd, so the alternating fp16 chain ends one step away from its start.
constexpr int64_t kIterationsPerCall = (1 << 18) + 1;
// Clock probes per thread after the samples, each right after a kernel call so the core is still
// in the state the kernel put it in (AVX-512 frequency licences last about 2 ms after the last
// heavy instruction); ~0.7 ms each at 3 GHz.
constexpr int kClockProbes = 5;
constexpr int64_t kClockProbeAdds = 2'000'000;

// The one description of a peak_fma point. isa: the widest the CPU runs when omitted; a name is
// checked against the kernel table by SelectPeakKernel (which lists the known ones).
ParameterSchema PeakFmaSchema() {
  return {ChoiceParameter("precision", "fp64", {"fp64", "fp32", "bf16", "fp16", "int8"}),
          TextParameter("isa", nullptr)};
}

// Takes a point as given or already resolved (ResolvePoint is idempotent).
Result<const PeakKernel*> KernelOf(const nlohmann::json& given, const IsaFeatures& features) {
  XPUPERF_ASSIGN_OR_RETURN(const nlohmann::json point,
                           ResolvePoint("peak_fma", PeakFmaSchema(), given));
  const std::optional<Precision> precision = ParsePrecision(point["precision"].get<std::string>());
  if (!precision) return MakeError(ErrorCode::kInvalidArgument, "peak_fma: unknown precision");
  const std::string isa = point.contains("isa") ? point["isa"].get<std::string>() : "";
  return SelectPeakKernel(*precision, features, isa);
}

// The median clock over every probe of every thread.
ClockFigure MeasureClockUnderLoad(const PeakKernel& kernel, int threads, double multiplier) {
  std::vector<ClockProbe> probes(static_cast<size_t>(threads * kClockProbes));
  const size_t per_thread = static_cast<size_t>(PeakOutputCount(kernel));
  std::vector<double> scratch(per_thread * static_cast<size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    const size_t thread = static_cast<size_t>(omp_get_thread_num());
    std::span<double> out(scratch.data() + thread * per_thread, per_thread);
    for (int p = 0; p < kClockProbes; ++p) {
      RunPeakKernel(kernel, kIterationsPerCall, multiplier, out);
      probes[thread * kClockProbes + static_cast<size_t>(p)] = ProbeCoreClock(kClockProbeAdds);
    }
  }
  std::vector<double> hertz;
  hertz.reserve(probes.size());
  for (const ClockProbe& probe : probes) hertz.push_back(probe.core_hertz);
  std::sort(hertz.begin(), hertz.end());
  const double median = hertz[hertz.size() / 2];
  if (median <= 0) {
    for (const ClockProbe& probe : probes) {
      if (!probe.problem.empty()) return {0, "not measured: " + probe.problem};
    }
    return {};
  }
  return {median, fmt::format("measured: median of {} dependent-add probes ({} adds each, 1 per "
                              "cycle) on {} threads, each right after a {} call",
                              hertz.size(), kClockProbeAdds, threads, kernel.instruction)};
}

// Calls in one round of the one-thread probe (~4 ms at 3 GHz).
constexpr int kScalingCalls = 8;
constexpr int kScalingRounds = 3;
// Below this per-thread rate of the team, relative to one thread alone, the cores are shared.
constexpr double kSharedCoreRatio = 0.9;
// Below this share of the nominal at the measured clock an fp64/fp32 FMA peak is not the core's.
constexpr double kBelowNominalAtMeasuredClock = 0.9;

// True when two of the team's threads run on the same physical core by the topology the kernel
// shows (SMT siblings, or more threads than CPUs): then a lower per-thread rate is expected.
bool TeamSharesCoresByTopology(const CpuInfo& info, int threads) {
  const std::vector<int> cpus = AllowedCpus();
  if (threads > static_cast<int>(cpus.size())) return true;
  std::set<std::pair<int, int>> cores;
  for (int i = 0; i < threads; ++i) {
    const int cpu = cpus[static_cast<size_t>(i)];
    const auto found = std::find_if(info.cpus.begin(), info.cpus.end(),
                                    [cpu](const LogicalCpuInfo& c) { return c.processor == cpu; });
    if (found == info.cpus.end() || !found->core_id) return false;
    if (!cores.insert({found->physical_id.value_or(0), *found->core_id}).second) return true;
  }
  return false;
}

// One thread's rate alone, in calls per second: kScalingRounds rounds of kScalingCalls calls on
// the calling thread (the team's thread 0, pinned) while the others wait; the fastest round.
// The team's figure divided by threads and by this is about 1.0 when every thread has a core of its
// own and about 0.5 when the threads' CPUs share physical cores underneath (a hypervisor placing
// two vCPUs on one core's SMT siblings halves the FMA rate without any steal time showing).
double SoloCallsPerSecond(const PeakKernel& kernel, double multiplier, std::vector<double>& outputs,
                          size_t per_thread) {
  using Clock = std::chrono::steady_clock;
  double fastest = 1e30;
  std::span<double> first(outputs.data(), per_thread);
  for (int round = 0; round < kScalingRounds; ++round) {
    const auto start = Clock::now();
    for (int c = 0; c < kScalingCalls; ++c) {
      RunPeakKernel(kernel, kIterationsPerCall, multiplier, first);
    }
    fastest = std::min(fastest, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return kScalingCalls / fastest;
}

class PeakFmaBenchmark final : public Benchmark {
 public:
  explicit PeakFmaBenchmark(std::string root) : root_(std::move(root)) {}
  std::string name() const override { return "peak_fma"; }
  Component component() const override { return Component::kCompute; }
  std::string description() const override {
    return "peak compute rate: independent FMA / dot-product chains per thread in vector "
           "registers, widest ISA by CPUID (fp64, fp32, bf16, fp16, int8)";
  }
  std::optional<ParameterSchema> parameter_schema() const override { return PeakFmaSchema(); }
  std::vector<nlohmann::json> default_sweep() const override {
    return {{{"precision", "fp64"}},
            {{"precision", "fp32"}},
            {{"precision", "bf16"}},
            {{"precision", "fp16"}},
            {{"precision", "int8"}}};
  }
  Status CanRun(const Device& device, const nlohmann::json& point) const override {
    if (device.backend != "cpu") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: no peak_fma kernel for backend '" + device.backend + "'");
    }
    XPUPERF_RETURN_IF_ERROR(KernelOf(point, UsableHostFeatures()));
    return Status::Ok();
  }

  Result<std::vector<Measurement>> Run(const nlohmann::json& point, RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const PeakKernel* selected, KernelOf(point, UsableHostFeatures()));
    const PeakKernel& kernel = *selected;
    XPUPERF_ASSIGN_OR_RETURN(const CpuInfo info, ReadCpuInfo(root_));
    const PinnedOpenMpTeam team(context.threads);
    const int threads = team.size();
    const size_t per_thread = static_cast<size_t>(PeakOutputCount(kernel));
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
          RunPeakKernel(kernel, kIterationsPerCall, multiplier, out);
        }
      }
    };
    XPUPERF_ASSIGN_OR_RETURN(const TimedSamples samples,
                             CollectSamples(*context.queue, context.sampling, run));
    XPUPERF_RETURN_IF_ERROR(VerifyPeakKernel(kernel, kIterationsPerCall, multiplier, outputs));
    // The sharing checks judge the fp64/fp32 FMA chains only: they scale to within a few percent
    // per thread on separate cores (measured, docs/PERFORMANCE.md); the integer kernels' solo rate
    // also gains from the one-core turbo and says nothing about sharing.
    const bool fma = kernel.precision == Precision::kFp64 || kernel.precision == Precision::kFp32;
    // One thread alone, right after the samples, while the cores are in the state they left.
    const double solo_calls_per_second =
        fma && threads > 1 ? SoloCallsPerSecond(kernel, multiplier, outputs, per_thread) : 0;
    CoreClocks clocks = ReadCoreClocks(info, root_);
    clocks.measured = MeasureClockUnderLoad(kernel, threads, multiplier);

    const double ops = threads * PeakOpsPerCall(kernel, kIterationsPerCall);
    const bool integer = kernel.precision == Precision::kInt8;
    Measurement m =
        MakeThroughput(name(), ComputeMetricName(kernel.precision), samples, ops, true, context);
    if (integer) {
      m.unit = "GOP/s";
      m.formula =
          fmt::format("GOP/s {:.6g} OP per repetition / median {:.6g} s per repetition / 1e9", ops,
                      m.statistics.median);
    }
    m.parameters = point;
    m.parameters["precision"] = PrecisionName(kernel.precision);
    m.parameters["simd"] = kernel.isa;
    m.parameters["instruction"] = kernel.instruction;
    m.parameters["threads"] = threads;
    m.parameters["chains"] = kernel.chains;
    m.parameters["iterations_per_call"] = kIterationsPerCall;
    m.formula =
        fmt::format("{} = threads {} x iterations {} x chains {} x lanes {} x {} = {:.6g}; ",
                    integer ? "OP" : "FLOP", threads, kIterationsPerCall, kernel.chains,
                    kernel.lanes, kernel.ops_per_lane, ops) +
        m.formula;
    AttachNominalPeak(m, info, context.device, threads, kernel, clocks);
    // The fp64/fp32 FMA chains reach 95-103% of the nominal at the clock they ran at on an idle
    // core: far below it, the FMA units were shared with work the guest cannot see (another guest
    // on the core's SMT sibling: the dependent-add clock probe runs at full speed meanwhile).
    if (fma && m.nominal_peak && *m.nominal_peak > 0 &&
        m.nominal_source.find("measured") != std::string::npos &&
        m.value < kBelowNominalAtMeasuredClock * *m.nominal_peak) {
      MarkUnstable(m, fmt::format("below its nominal: {:.0f}% of the nominal {:.4g} {} at the "
                                  "measured clock (limit {:.0f}%): the FMA units were shared "
                                  "with work this machine cannot see (another guest on the "
                                  "cores' SMT siblings) or slowed",
                                  100 * m.value / *m.nominal_peak, *m.nominal_peak, m.unit,
                                  100 * kBelowNominalAtMeasuredClock));
    }
    // The team's calls per second per thread (its median sample) against one thread alone.
    const double scaling = solo_calls_per_second > 0 && m.statistics.median > 0
                               ? 1.0 / (m.statistics.median * solo_calls_per_second)
                               : 1.0;
    if (solo_calls_per_second > 0) m.parameters["per_thread_scaling"] = scaling;
    if (scaling < kSharedCoreRatio && !TeamSharesCoresByTopology(info, threads)) {
      MarkUnstable(m, fmt::format("shared cores: each of the {} threads ran at {:.0f}% of one "
                                  "thread's rate alone although the topology gives each its own "
                                  "core (a hypervisor placing vCPUs on one core's SMT siblings "
                                  "does this): the figure is not this machine's peak",
                                  threads, 100 * scaling));
    }
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
