#include "xpuperf/analysis/cpu_spec_sheet.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/bench/nominal_peak.h"
#include "xpuperf/bench/peak_kernels.h"
#include "xpuperf/core/cpuinfo.h"
#include "xpuperf/spec/smbios_memory.h"

namespace xpuperf::analysis {

bench::ClockFigure MeasuredRunClock(const bench::ResultDirectory& run) {
  std::vector<double> hertz;
  for (const bench::ResultRecord& record : run.records) {
    const nlohmann::json& parameters = record.measurement.parameters;
    if (record.measurement.benchmark != "peak_fma" || !parameters.is_object()) continue;
    const auto clock = parameters.find("clock");
    if (clock == parameters.end() || !clock->is_object()) continue;
    const auto measured = clock->find("measured");
    if (measured == clock->end() || !measured->is_object()) continue;
    const auto value = measured->find("hertz");
    if (value != measured->end() && value->is_number() && value->get<double>() > 0) {
      hertz.push_back(value->get<double>());
    }
  }
  if (hertz.empty()) return {};
  std::sort(hertz.begin(), hertz.end());
  const double median = hertz.size() % 2 == 1
                            ? hertz[hertz.size() / 2]
                            : (hertz[hertz.size() / 2 - 1] + hertz[hertz.size() / 2]) / 2;
  return {median, fmt::format("the run's measured clock (median of {} peak_fma record{})",
                              hertz.size(), hertz.size() == 1 ? "" : "s")};
}

Result<spec::SpecSheet> CpuSpecSheet(const Device& device, const std::string& root,
                                     const bench::ClockFigure& measured_clock) {
  XPUPERF_ASSIGN_OR_RETURN(const CpuInfo info, ReadCpuInfo(root));
  spec::SpecSheet sheet;
  sheet.computed = true;
  sheet.device = device.model;
  sheet.vendor = device.vendor;
  const int cores =
      device.topology.cores > 0 ? device.topology.cores : TopologyFromCpuInfo(info).cores;
  // The hardware's ISA (cpuinfo flags, which the kernel clears for state it does not enable),
  // not what this build or this process could run.
  const bench::IsaFeatures features =
      info.cpus.empty() ? bench::IsaFeatures() : bench::FeaturesFromFlags(info.cpus.front().flags);
  const bench::ClockFigure maximum = bench::ReadCoreClocks(info, root).maximum;
  const bool use_measured = measured_clock.hertz > maximum.hertz;
  const bench::ClockFigure clock = use_measured ? measured_clock : maximum;
  std::vector<std::string> isas;
  std::string unknown;
  for (const bench::Precision precision :
       {bench::Precision::kFp64, bench::Precision::kFp32, bench::Precision::kBf16,
        bench::Precision::kFp16, bench::Precision::kInt8}) {
    const std::string name(bench::PrecisionName(precision));
    auto kernel = bench::SelectPeakKernel(precision, features);
    // int8 without VNNI has no dot-product instruction: no peak a datasheet would state.
    if (!kernel.ok() || (*kernel)->id == bench::PeakKernelId::kAvx2Int8) continue;
    isas.push_back(name + " " + std::string((*kernel)->isa));
    const bench::NominalPeak peak = bench::ComputeNominalPeak(info, cores, **kernel, clock);
    if (peak.flops_per_second > 0) {
      sheet.peak_flops_per_second[name] = peak.flops_per_second;
      // The derivation is shared with the benchmarks, whose cores are their threads' cores; here
      // they are all of the machine's.
      std::string description = peak.description;
      const std::string threads_cores = "threads' physical cores";
      if (auto at = description.find(threads_cores); at != std::string::npos) {
        description.replace(at, threads_cores.size(), "every physical core");
      }
      sheet.peak_sources[name] = description;
    } else {
      unknown += fmt::format("{} peak {}. ", name, peak.description);
    }
  }
  sheet.source = fmt::format(
      "computed from this machine: every physical core ({}, topology from {}) x the widest "
      "kernel the CPU's ISA flags allow ({}), {}; memory from SMBIOS",
      cores, device.topology.source.empty() ? "/proc/cpuinfo" : device.topology.source,
      fmt::join(isas, ", "),
      use_measured
          ? fmt::format("peak clock {:.3f} GHz from {}, above the {} ({:.3f} GHz)",
                        clock.hertz / 1e9, clock.source,
                        maximum.hertz > 0 ? maximum.source : "maximum stated by the system",
                        maximum.hertz / 1e9)
          : std::string("peak clock from cpufreq or /proc/cpuinfo"));
  sheet.memory_bytes = static_cast<double>(device.memory_bytes);
  auto memory = spec::ReadSmbiosMemoryBandwidth(root);
  if (!memory.ok()) {
    sheet.memory_unknown_reason = memory.error().message;
  } else if (memory->bytes_per_second <= 0) {
    sheet.memory_unknown_reason = memory->description;
  } else {
    sheet.memory_bandwidth_bytes_per_second = memory->bytes_per_second;
    sheet.memory_source = memory->description;
    sheet.memory_type = memory->memory_type;
  }
  sheet.notes = unknown +
                "Peaks only for the precisions the CPU has vector instructions for (fp64, fp32; "
                "bf16 with AVX512_BF16, fp16 with AVX512_FP16, int8 with AVX512_VNNI or "
                "AVX_VNNI); no host or network link for a CPU.";
  return sheet;
}

}  // namespace xpuperf::analysis
