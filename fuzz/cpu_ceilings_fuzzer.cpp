// libFuzzer target for the inputs of the CPU compute ceilings: a /proc/cpuinfo text through ISA
// dispatch, microarchitecture identification and nominal peaks (selector byte 0), and a sweep
// point (JSON, as a suite file gives it) through peak_fma's and gemm's parameter checks (1, 2).
// Every input must give a value or an error, never a crash, an exception or signed overflow.
// Build and run: scripts/fuzz.sh [SECONDS] ceilings
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "xpuperf/bench/nominal_peak.h"
#include "xpuperf/bench/peak_kernels.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/core/cpuinfo.h"

namespace {

void CpuinfoCeilings(std::string_view text) {
  auto info = xpuperf::ParseCpuInfo(text);
  if (!info.ok() || info->cpus.empty()) return;
  namespace bench = xpuperf::bench;
  const bench::IsaFeatures features = bench::FeaturesFromFlags(info->cpus.front().flags);
  const bench::CoreClocks clocks = bench::ReadCoreClocks(*info, "/nonexistent-root");
  for (const bench::PeakKernel& kernel : bench::PeakKernels()) {
    (void)bench::PeakKernelSupported(kernel, features);
    (void)bench::DatapathFor(info->cpus.front(), kernel);
    const bench::NominalPeak peak = bench::ComputeNominalPeak(
        *info, static_cast<int>(info->cpus.size()), kernel, clocks.Best());
    (void)bench::NominalSuspect(2 * peak.flops_per_second, peak, false);
  }
}

void PointChecks(const char* benchmark, std::string_view text) {
  const nlohmann::json point = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (point.is_discarded()) return;
  // oneDNN points would load libdnnl and create primitives: parameter checks only for the others.
  if (point.is_object() && std::string_view(benchmark) == "gemm") {
    for (const char* key : {"library", "precision"}) {
      if (point.contains(key) && point[key].is_string()) {
        const std::string value = point[key].get<std::string>();
        if (value == "onednn" || value == "bf16" || value == "int8") return;
      }
    }
    if (point.contains("precision") && point["precision"].is_string() &&
        point["precision"].get<std::string>() == "fp32" && point.contains("library")) {
      return;
    }
  }
  static xpuperf::bench::BenchmarkRegistry* registry = [] {
    auto* r = new xpuperf::bench::BenchmarkRegistry();
    xpuperf::bench::AddCpuBenchmarks(*r);
    return r;
  }();
  xpuperf::Device device;
  device.backend = "cpu";
  (void)registry->Find(benchmark)->CanRun(device, point);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      CpuinfoCeilings(text);
      break;
    case 1:
      PointChecks("peak_fma", text);
      break;
    default:
      PointChecks("gemm", text);
      break;
  }
  return 0;
}
