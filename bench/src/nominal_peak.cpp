#include "xpuperf/bench/nominal_peak.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

namespace xpuperf::bench {
namespace {

constexpr int kFmaPipes = 2;

struct Frequency {
  double hertz = 0;
  std::string source;
};

Frequency PeakFrequency(const CpuInfo& info, const std::string& root) {
  const std::string path = (root == "/" ? std::string() : root) +
                           "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq";
  std::ifstream file(path);
  double khz = 0;
  if (file >> khz && khz > 0) return {khz * 1e3, "cpufreq cpuinfo_max_freq"};
  double mhz = 0;
  for (const LogicalCpuInfo& cpu : info.cpus) mhz = std::max(mhz, cpu.mhz.value_or(0));
  if (mhz > 0) return {mhz * 1e6, "highest 'cpu MHz' in /proc/cpuinfo (on VMs the nominal clock)"};
  return {};
}

}  // namespace

NominalPeak ComputeNominalPeak(const CpuInfo& info, const std::string& root, int cores,
                               Precision precision, SimdLevel level) {
  if (info.cpus.empty() || cores < 1) return {0, "unknown: no CPUs in /proc/cpuinfo"};
  const LogicalCpuInfo& first = info.cpus.front();
  const Frequency frequency = PeakFrequency(info, root);
  if (frequency.hertz <= 0) {
    return {0, "unknown: no cpufreq cpuinfo_max_freq and no 'cpu MHz' in /proc/cpuinfo"};
  }
  int lanes = VectorLanes(precision, level);
  std::string datapath;
  const bool zen1 = first.vendor == "AuthenticAMD" && first.family.value_or(0) == 0x17 &&
                    first.model.value_or(0) < 0x30;
  if (zen1 && level == SimdLevel::kAvx2Fma) {
    lanes /= 2;
    datapath = " (Zen/Zen+ split 256-bit ops into 128-bit halves)";
  }
  // The SSE2 variant issues a multiply and an add instead of one FMA: 2 FLOPs per lane either way.
  const double flops = cores * kFmaPipes * lanes * 2.0 * frequency.hertz;
  const std::string description = fmt::format(
      "{} cores (threads' physical cores, hwloc) x {} pipes (assumed: 2 FMA units per core) x {} "
      "{} lanes ({}){} x 2 FLOP/FMA x {:.3f} GHz ({}) = {:.1f} GFLOP/s",
      cores, kFmaPipes, lanes, PrecisionName(precision), SimdLevelName(level), datapath,
      frequency.hertz / 1e9, frequency.source, flops / 1e9);
  return {flops, description};
}

void AttachNominalPeak(Measurement& m, const CpuInfo& info, const std::string& root,
                       const Device* device, int threads, Precision precision, SimdLevel level) {
  const int topology_cores = device != nullptr ? device->topology.cores : 0;
  const int cores = topology_cores > 0 ? std::min(threads, topology_cores) : threads;
  const NominalPeak nominal = ComputeNominalPeak(info, root, cores, precision, level);
  if (nominal.flops_per_second > 0) m.nominal_peak = nominal.flops_per_second / 1e9;
  m.nominal_source = nominal.description;
}

}  // namespace xpuperf::bench
