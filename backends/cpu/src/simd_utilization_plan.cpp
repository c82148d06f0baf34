// Which FP counters to open on this CPU and what the per-core peak FP rate is.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/cpuinfo.h"
#include "xpuperf/core/sysfs_file.h"
#include "xpuperf/cpu/simd_utilization.h"

namespace xpuperf::cpu {
namespace {

// Intel FP_ARITH_INST_RETIRED (event 0xC7), one umask per width and precision. FMA instructions
// count twice, so FLOPs = count x lanes. Weight = fp32-equivalent FLOPs per count (fp64 lanes x 2).
struct FpArithUmask {
  const char* name;
  uint64_t umask;
  double fp32_weight;
  bool needs_avx512;
};
constexpr uint64_t kFpArithEvent = 0xC7;
constexpr FpArithUmask kFpArithUmasks[] = {
    {"SCALAR_DOUBLE", 0x01, 1 * 2, false},      {"SCALAR_SINGLE", 0x02, 1, false},
    {"128B_PACKED_DOUBLE", 0x04, 2 * 2, false}, {"128B_PACKED_SINGLE", 0x08, 4, false},
    {"256B_PACKED_DOUBLE", 0x10, 4 * 2, false}, {"256B_PACKED_SINGLE", 0x20, 8, false},
    {"512B_PACKED_DOUBLE", 0x40, 8 * 2, true},  {"512B_PACKED_SINGLE", 0x80, 16, true},
};

// Intel family-6 models whose core PMU has FP_ARITH_INST_RETIRED: the big cores from Broadwell on
// (Intel's perfmon event lists). Earlier cores and Atom-only parts lack it, and the kernel opens a
// raw event the core does not implement without complaint (it then counts something else or
// nothing), so unknown models are refused rather than guessed.
// clang-format off
constexpr int kFpArithModels[] = {
    0x3D, 0x47, 0x4F, 0x56,        // Broadwell (client, GT3e, EP, DE)
    0x4E, 0x5E, 0x55,              // Skylake client, Skylake-SP / Cascade Lake / Cooper Lake
    0x8E, 0x9E, 0xA5, 0xA6, 0x66,  // Kaby / Coffee / Whiskey / Comet Lake, Cannon Lake
    0x7D, 0x7E, 0x6A, 0x6C,        // Ice Lake client, Ice Lake-SP / -D
    0x8C, 0x8D, 0xA7,              // Tiger Lake, Rocket Lake
    0x97, 0x9A, 0xB7, 0xBA, 0xBF,  // Alder / Raptor Lake P-cores ('cpu' PMU only, E-cores off)
    0x8F, 0xCF, 0xAD, 0xAE,        // Sapphire Rapids, Emerald Rapids, Granite Rapids
};
// clang-format on

// AMD RETIRED_SSE_AVX_FLOPS, PMCx003 with all umask bits (add/sub, mult, div/sqrt, mult-add). It
// counts FLOPs (a mult-add counts 2) of every precision together. On Zen 1-3 one cycle can retire
// more than the counter's 4-bit increment allows; the Merge event (PMCxFFF) on the paired odd
// counter carries the excess. Linux (>= 5.7) pairs event 0x03 with it automatically on family 17h
// and later (amd_is_pair_event_code), so the raw config needs no merge bit; older kernels
// undercount wide vector code.
constexpr uint64_t kAmdRetiredSseAvxFlops = 0xFF03;
constexpr int kAmdZenFamily = 0x17;

bool HasFlag(const LogicalCpuInfo& cpu, std::string_view flag) {
  return std::find(cpu.flags.begin(), cpu.flags.end(), flag) != cpu.flags.end();
}

std::string Hex(int value) { return fmt::format("{:#04x}", value); }

Result<std::vector<FpCounterEvent>> IntelEvents(const LogicalCpuInfo& cpu) {
  const int family = cpu.family.value_or(-1);
  const int model = cpu.model.value_or(-1);
  const auto* known = std::find(std::begin(kFpArithModels), std::end(kFpArithModels), model);
  if (family != 6 || known == std::end(kFpArithModels)) {
    return MakeError(
        ErrorCode::kUnsupported,
        fmt::format("unsupported: Intel family {} model {} is not a core known to have "
                    "FP_ARITH_INST_RETIRED (Broadwell and later big cores)",
                    family, Hex(model)));
  }
  std::vector<FpCounterEvent> events;
  const bool avx512 = HasFlag(cpu, "avx512f");
  for (const FpArithUmask& umask : kFpArithUmasks) {
    if (umask.needs_avx512 && !avx512) continue;
    events.push_back({std::string("FP_ARITH_INST_RETIRED.") + umask.name,
                      (umask.umask << 8) | kFpArithEvent, umask.fp32_weight});
  }
  return events;
}

Result<std::vector<FpCounterEvent>> AmdEvents(const LogicalCpuInfo& cpu) {
  const int family = cpu.family.value_or(-1);
  if (family < kAmdZenFamily) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("unsupported: AMD family {} predates RETIRED_SSE_AVX_FLOPS (Zen, "
                                 "family 0x17, and later)",
                                 Hex(family)));
  }
  return std::vector<FpCounterEvent>{{"RETIRED_SSE_AVX_FLOPS", kAmdRetiredSseAvxFlops, 1}};
}

// The widest SIMD ISA in the flags, as fp32 lanes, and whether it has FMA.
struct SimdIsa {
  int fp32_lanes = 0;
  bool fma = false;
  std::string name;
};

SimdIsa WidestIsa(const LogicalCpuInfo& cpu) {
  const bool fma = HasFlag(cpu, "fma");
  if (HasFlag(cpu, "avx512f")) return {16, true, "AVX-512"};
  if (HasFlag(cpu, "avx2") && fma) return {8, true, "AVX2+FMA"};
  if (HasFlag(cpu, "avx")) return {8, fma, fma ? "AVX+FMA" : "AVX"};
  if (HasFlag(cpu, "sse2")) return {4, false, "SSE2"};
  return {};
}

// AMD cores execute some widths on a narrower datapath (the published FLOP/cycle table): Zen and
// Zen+ (family 0x17 models below 0x30) split 256-bit ops into 128-bit halves, Zen 4 (family 0x19,
// the first with AVX-512) splits 512-bit ops into 256-bit halves. Returns the fp32 lanes per pipe.
int AmdDatapathLanes(const LogicalCpuInfo& cpu, int isa_lanes) {
  const int family = cpu.family.value_or(0);
  const int model = cpu.model.value_or(0);
  if (family == kAmdZenFamily && model < 0x30) return std::min(isa_lanes, 4);
  if (family == 0x19) return std::min(isa_lanes, 8);
  return isa_lanes;
}

struct Clock {
  double hertz = 0;
  std::string source;
};

// The highest clock the kernel reports: cpufreq's cpuinfo_max_freq (kHz, includes turbo) when
// present, otherwise the highest "cpu MHz" in /proc/cpuinfo (on VMs usually the nominal clock).
Result<Clock> PeakClock(const std::string& root, const CpuInfo& info) {
  const std::string max_freq =
      JoinRoot(root, fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/cpuinfo_max_freq",
                                 info.cpus.front().processor));
  if (auto khz = ReadUnsignedFile(max_freq); khz.ok() && *khz > 0) {
    return Clock{static_cast<double>(*khz) * 1e3, "cpufreq cpuinfo_max_freq"};
  }
  double mhz = 0;
  for (const LogicalCpuInfo& cpu : info.cpus) mhz = std::max(mhz, cpu.mhz.value_or(0));
  if (mhz > 0) return Clock{mhz * 1e6, "highest 'cpu MHz' in /proc/cpuinfo"};
  return MakeError(ErrorCode::kUnsupported,
                   "unsupported: CPU clock unknown (no " + max_freq +
                       ", no 'cpu MHz' in /proc/cpuinfo), so the peak FP rate is unknown");
}

Status CheckCorePmu(const std::string& root, const LogicalCpuInfo& cpu) {
  const std::string pmu = JoinRoot(root, "/sys/bus/event_source/devices/cpu");
  if (PathExists(pmu)) return Status::Ok();
  if (PathExists(JoinRoot(root, "/sys/bus/event_source/devices/cpu_core"))) {
    return MakeError(ErrorCode::kUnsupported,
                     "unsupported: hybrid CPU: the core PMU is split into cpu_core and cpu_atom, "
                     "and FP counters are opened only on a single 'cpu' PMU");
  }
  std::string reason = "unsupported: no CPU PMU exposed (" + pmu + " missing; typical in VMs)";
  if (HasFlag(cpu, "hypervisor")) {
    reason +=
        "; the 'hypervisor' cpuinfo flag is set: this is a VM whose hypervisor does not "
        "pass the PMU through";
  }
  return MakeError(ErrorCode::kUnsupported, std::move(reason));
}

}  // namespace

Result<FpCounterPlan> PlanFpCounters(const std::string& root) {
  XPUPERF_ASSIGN_OR_RETURN(const CpuInfo info, ReadCpuInfo(root));
  const LogicalCpuInfo& cpu = info.cpus.front();
  const bool intel = cpu.vendor == "GenuineIntel";
  const bool amd = cpu.vendor == "AuthenticAMD";
  if (!intel && !amd) {
    return MakeError(ErrorCode::kUnsupported,
                     "unsupported: no FP-operation counters known for CPU vendor '" +
                         (cpu.vendor.empty() ? std::string("unknown") : cpu.vendor) +
                         "' (known: GenuineIntel FP_ARITH_INST_RETIRED, AuthenticAMD "
                         "RETIRED_SSE_AVX_FLOPS)");
  }
  XPUPERF_RETURN_IF_ERROR(CheckCorePmu(root, cpu));

  FpCounterPlan plan;
  XPUPERF_ASSIGN_OR_RETURN(plan.events, intel ? IntelEvents(cpu) : AmdEvents(cpu));
  for (const LogicalCpuInfo& logical : info.cpus) plan.cpus.push_back(logical.processor);
  std::sort(plan.cpus.begin(), plan.cpus.end());
  plan.cpus.erase(std::unique(plan.cpus.begin(), plan.cpus.end()), plan.cpus.end());

  const SimdIsa isa = WidestIsa(cpu);
  if (isa.fp32_lanes == 0) {
    return MakeError(
        ErrorCode::kUnsupported,
        "unsupported: no SSE2/AVX flag in /proc/cpuinfo, so the SIMD width is unknown");
  }
  XPUPERF_ASSIGN_OR_RETURN(const Clock clock, PeakClock(root, info));
  const int lanes = amd ? AmdDatapathLanes(cpu, isa.fp32_lanes) : isa.fp32_lanes;
  const std::string isa_text = lanes < isa.fp32_lanes
                                   ? fmt::format("{} on a {}-bit datapath", isa.name, lanes * 32)
                                   : isa.name;
  // Two pipes: two FMA units on every AVX2/AVX-512 core, one add plus one multiply unit before FMA.
  constexpr int kPipes = 2;
  const int fma_factor = isa.fma ? 2 : 1;
  plan.peak_fp32_flops_per_second = kPipes * lanes * fma_factor * clock.hertz;
  plan.peak_description = fmt::format(
      "{} x {} fp32 lanes ({}){} x {:.3f} GHz ({}) = {:.1f} GFLOP/s per core, fp32; {}; assumes {}",
      isa.fma ? "2 FMA pipes" : "2 FP pipes (add + mul)", lanes, isa_text,
      isa.fma ? " x 2 (FMA)" : "", clock.hertz / 1e9, clock.source,
      plan.peak_fp32_flops_per_second / 1e9,
      intel ? "fp64 FLOPs count x2"
            : "fp64 FLOPs count as fp32 (the AMD event does not split them)",
      !isa.fma                        ? "1 add and 1 multiply pipe per core"
      : intel && isa.fp32_lanes == 16 ? "2 FMA pipes per core (some AVX-512 SKUs have 1)"
                                      : "2 FMA pipes per core");
  return plan;
}

}  // namespace xpuperf::cpu
