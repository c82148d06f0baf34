#include "xpuperf/bench/nominal_peak.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace xpuperf::bench {
namespace {

bool HasFlag(const LogicalCpuInfo& cpu, std::string_view flag) {
  return std::find(cpu.flags.begin(), cpu.flags.end(), flag) != cpu.flags.end();
}

bool Contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Skylake-SP/Cascade Lake SKUs with one 512-bit FMA unit (port 0+1 fused; port 5's unit absent).
bool OneAvx512FmaUnitXeon(const std::string& model_name) {
  if (Contains(model_name, "Bronze") || Contains(model_name, "Silver")) return true;
  const size_t gold = model_name.find("Gold 5");
  return gold != std::string::npos && !Contains(model_name, "Gold 5122");
}

struct Microarchitecture {
  std::string name;
  int pipes_512 = 2;        // FMA units for 512-bit ops
  int datapath_bits = 512;  // width each unit executes per cycle
  std::string source;
};

Microarchitecture Identify(const LogicalCpuInfo& cpu) {
  const int family = cpu.family.value_or(0);
  const int model = cpu.model.value_or(0);
  if (cpu.vendor == "AuthenticAMD") {
    if (family == 0x17 && model < 0x30) {
      return {"Zen/Zen+", 2, 128, "family 0x17 model < 0x30: 128-bit datapath"};
    }
    if (family == 0x17) return {"Zen 2", 2, 256, "family 0x17: two 256-bit FMA pipes"};
    if (family == 0x19 && HasFlag(cpu, "avx512f")) {
      return {"Zen 4", 2, 256,
              "family 0x19 with avx512f: two 256-bit FMA pipes, 512-bit ops in two halves"};
    }
    if (family == 0x19) return {"Zen 3", 2, 256, "family 0x19: two 256-bit FMA pipes"};
    if (family == 0x1a) {
      const bool mobile = (model >= 0x20 && model <= 0x2f) || (model >= 0x60 && model <= 0x7f);
      if (mobile) {
        return {"Zen 5 (mobile)", 2, 256,
                "family 0x1a mobile model: 256-bit datapath, 512-bit ops in two halves"};
      }
      return {"Zen 5", 2, 512, "family 0x1a: two full-width 512-bit FMA pipes"};
    }
  }
  if (cpu.vendor == "GenuineIntel" && family == 6 && HasFlag(cpu, "avx512f")) {
    constexpr std::array<int, 5> kClientAvx512 = {0x66, 0x7d, 0x7e, 0x8c, 0x8d};
    if (std::find(kClientAvx512.begin(), kClientAvx512.end(), model) != kClientAvx512.end() ||
        model == 0xa7) {
      return {"Intel client AVX-512 core", 1, 512,
              "Ice Lake/Tiger Lake/Rocket Lake client: one 512-bit FMA unit"};
    }
    if (model == 0x55 && OneAvx512FmaUnitXeon(cpu.model_name)) {
      return {"Skylake-SP/Cascade Lake (one 512-bit FMA unit)", 1, 512,
              "Xeon Bronze/Silver/Gold 5xxx: one 512-bit FMA unit"};
    }
    return {"Intel AVX-512 server core", 2, 512, "two 512-bit FMA units"};
  }
  return {"unknown", 2, 512, "assumed: 2 FMA units per core at the kernel's width"};
}

}  // namespace

VectorDatapath DatapathFor(const LogicalCpuInfo& cpu, const PeakKernel& kernel) {
  const Microarchitecture arch = Identify(cpu);
  VectorDatapath path;
  path.microarchitecture = arch.name;
  const int width = std::min(kernel.vector_bits, arch.datapath_bits);
  path.pipes = kernel.vector_bits == 512 ? arch.pipes_512 : 2;
  path.lanes = kernel.lanes * static_cast<double>(width) / kernel.vector_bits;
  path.source = arch.source;
  if (kernel.vector_bits < 512 && arch.datapath_bits >= 256) path.source = "two 256-bit FMA pipes";
  if (kernel.id == PeakKernelId::kAmxBf16 || kernel.id == PeakKernelId::kAmxInt8) {
    // One TMUL unit per core completes a 16 x 16 tile dot product every 16 cycles.
    path.pipes = 1;
    path.lanes = kernel.lanes / 16.0;
    path.source =
        "assumed: one AMX TMUL unit per core, one tile dot product per 16 cycles "
        "(Sapphire Rapids)";
    return path;
  }
  if (kernel.id == PeakKernelId::kAvx2Int8) {
    // vpmaddubsw and vpmaddwd both take a multiply pipe: one step per cycle for the pair.
    path.pipes = 1;
    path.source += "; 2 multiply instructions per step";
    return path;
  }
  if (kernel.ops_per_lane > 2) path.source += " (assumed: dot products issue like FMAs)";
  return path;
}

NominalPeak ComputeNominalPeak(const CpuInfo& info, int cores, const PeakKernel& kernel,
                               const ClockFigure& clock) {
  if (info.cpus.empty() || cores < 1) return {0, "unknown: no CPUs in /proc/cpuinfo"};
  if (clock.hertz <= 0) {
    return {0,
            "unknown: no measured clock, no cpufreq cpuinfo_max_freq and no 'cpu MHz' in "
            "/proc/cpuinfo"};
  }
  const VectorDatapath path = DatapathFor(info.cpus.front(), kernel);
  NominalPeak peak;
  peak.cores = cores;
  peak.clock_hertz = clock.hertz;
  peak.per_core_per_cycle = path.pipes * path.lanes * kernel.ops_per_lane;
  peak.flops_per_second = cores * peak.per_core_per_cycle * clock.hertz;
  const bool integer = kernel.precision == Precision::kInt8;
  peak.description = fmt::format(
      "{} cores (threads' physical cores, hwloc) x {} pipes x {:g} {} lanes ({}, {}: {}) x {} "
      "{}/lane x {:.3f} GHz ({}) = {:.1f} {}",
      cores, path.pipes, path.lanes, PrecisionName(kernel.precision), kernel.isa,
      path.microarchitecture, path.source, kernel.ops_per_lane, integer ? "OP" : "FLOP",
      clock.hertz / 1e9, clock.source, peak.flops_per_second / 1e9, integer ? "GOP/s" : "GFLOP/s");
  return peak;
}

std::string NominalSuspect(double measured_per_second, const NominalPeak& nominal,
                           bool clock_measured) {
  if (nominal.flops_per_second <= 0 || measured_per_second <= 1.05 * nominal.flops_per_second) {
    return {};
  }
  const double percent = 100 * measured_per_second / nominal.flops_per_second;
  if (clock_measured) {
    const double per_cycle = measured_per_second / nominal.cores / nominal.clock_hertz;
    return fmt::format(
        "measured {:.0f}% of nominal at the measured clock ({:.1f} per core per cycle against "
        "{:g}): suspect the pipes x lanes factor (FMA units or datapath width)",
        percent, per_cycle, nominal.per_core_per_cycle);
  }
  return fmt::format(
      "measured {:.0f}% of nominal: suspect the clock ({:.3f} GHz is not what the cores ran at; "
      "the clock was not measured)",
      percent, nominal.clock_hertz / 1e9);
}

void AttachNominalPeak(Measurement& m, const CpuInfo& info, const Device* device, int threads,
                       const PeakKernel& kernel, const CoreClocks& clocks) {
  const int topology_cores = device != nullptr ? device->topology.cores : 0;
  const int cores = topology_cores > 0 ? std::min(threads, topology_cores) : threads;
  const ClockFigure& clock = clocks.Best();
  const NominalPeak nominal = ComputeNominalPeak(info, cores, kernel, clock);
  nlohmann::json clock_json = nlohmann::json::object();
  for (const auto& [key, figure] :
       {std::pair{"base", &clocks.base}, std::pair{"maximum", &clocks.maximum},
        std::pair{"measured", &clocks.measured}}) {
    clock_json[key] = figure->hertz > 0
                          ? nlohmann::json{{"hertz", figure->hertz}, {"source", figure->source}}
                          : nlohmann::json();
  }
  if (clocks.measured.hertz <= 0 && !clocks.measured.source.empty()) {
    clock_json["measured_unavailable"] = clocks.measured.source;
  }
  clock_json["used"] = clock.source;
  m.parameters["clock"] = clock_json;
  m.nominal_source = nominal.description;
  if (nominal.flops_per_second <= 0) return;
  m.nominal_peak = nominal.flops_per_second / 1e9;
  const std::string suspect = NominalSuspect(m.value * 1e9, nominal, &clock == &clocks.measured);
  if (!suspect.empty()) {
    m.parameters["nominal_suspect"] = suspect;
    m.nominal_source += "; " + suspect;
  }
}

}  // namespace xpuperf::bench
