#include "gpm_sampler.h"

#include <fmt/format.h>

#include <memory>

namespace xpuperf::nvidia {
namespace {

// Takes a sample into gpu.gpm_samples[slot]; false (with gpu.gpm_no_data) on failure.
bool TakeSample(const NvmlLibrary& library, Gpu& gpu, int slot) {
  const nvml::Return r = library.api().gpm_sample_get(gpu.handle, gpu.gpm_samples[slot]);
  if (r == nvml::kSuccess) return true;
  if (IsLostCode(r)) {
    MarkLost(gpu, "nvmlGpmSampleGet", r);
  } else {
    gpu.gpm_no_data = fmt::format("no data: nvmlGpmSampleGet failed: {}", library.Describe(r));
  }
  return false;
}

}  // namespace

const std::vector<unsigned>& GpmMetricIds() {
  static const std::vector<unsigned> ids = {
      nvml::kGpmSmOccupancy,
      nvml::kGpmAnyTensorUtil,
      nvml::kGpmDramBwUtil,
      nvml::kGpmFp64Util,
      nvml::kGpmFp32Util,
      nvml::kGpmFp16Util,
      nvml::kGpmPcieTxPerSec,
      nvml::kGpmPcieRxPerSec,
      nvml::kGpmNvlinkTotalRxPerSec,
      nvml::kGpmNvlinkTotalTxPerSec,
  };
  return ids;
}

void StartGpm(const NvmlLibrary& library, Gpu& gpu, int64_t now_ns) {
  const NvmlApi& api = library.api();
  if (gpu.lost) return;
  if (!api.has_gpm()) {
    gpu.gpm_unsupported_reason =
        fmt::format("unsupported: driver has no GPM ({} missing)", api.missing_gpm_symbol);
    return;
  }
  nvml::GpmSupport support{};
  support.version = nvml::kGpmSupportVersion;
  const nvml::Return r = api.gpm_query_device_support(gpu.handle, &support);
  if (IsLostCode(r)) {
    MarkLost(gpu, "nvmlGpmQueryDeviceSupport", r);
    return;
  }
  if (r == nvml::kErrorNotSupported || (r == nvml::kSuccess && support.isSupportedDevice == 0)) {
    gpu.gpm_unsupported_reason =
        fmt::format("unsupported: GPM not supported on {} (it needs Hopper or newer)", gpu.name);
    return;
  }
  if (r != nvml::kSuccess) {
    gpu.gpm_unsupported_reason =
        fmt::format("unsupported: nvmlGpmQueryDeviceSupport failed: {}", library.Describe(r));
    return;
  }
  for (nvml::GpmSample& sample : gpu.gpm_samples) {
    const nvml::Return alloc = api.gpm_sample_alloc(&sample);
    if (alloc != nvml::kSuccess) {
      sample = nullptr;
      StopGpm(library, gpu);
      gpu.gpm_unsupported_reason =
          fmt::format("unsupported: nvmlGpmSampleAlloc failed: {}", library.Describe(alloc));
      return;
    }
  }
  gpu.gpm_supported = true;
  if (TakeSample(library, gpu, 0)) {
    gpu.gpm_newest = 0;
    gpu.gpm_newest_ns = now_ns;
  }
}

void RefreshGpm(const NvmlLibrary& library, Gpu& gpu, int64_t now_ns) {
  gpu.gpm_values.clear();
  gpu.gpm_no_data.clear();
  if (!gpu.gpm_supported || gpu.lost) return;
  if (gpu.gpm_newest < 0) {
    if (TakeSample(library, gpu, 0)) {
      gpu.gpm_newest = 0;
      gpu.gpm_newest_ns = now_ns;
      gpu.gpm_no_data =
          "no data: GPM needs two samples at least 100 ms apart; the first was just taken";
    }
    return;
  }
  const int64_t elapsed_ns = now_ns - gpu.gpm_newest_ns;
  if (elapsed_ns < kGpmMinimumIntervalNs) {
    gpu.gpm_no_data = fmt::format(
        "no data: GPM needs two samples at least 100 ms apart; the previous one is {} ms old",
        elapsed_ns / 1'000'000);
    return;
  }
  const int older = gpu.gpm_newest;
  const int newer = 1 - older;
  if (!TakeSample(library, gpu, newer)) return;
  gpu.gpm_newest = newer;
  gpu.gpm_newest_ns = now_ns;

  auto request = std::make_unique<nvml::GpmMetricsGet>();
  *request = nvml::GpmMetricsGet{};
  request->version = nvml::kGpmMetricsGetVersion;
  request->sample1 = gpu.gpm_samples[older];
  request->sample2 = gpu.gpm_samples[newer];
  const auto& ids = GpmMetricIds();
  request->numMetrics = static_cast<unsigned>(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    request->metrics[i].metricId = ids[i];
    // A sentinel: an entry the library did not write is not read as a value.
    request->metrics[i].nvmlReturn = nvml::kErrorUnknown;
  }
  const nvml::Return r = library.api().gpm_metrics_get(request.get());
  if (IsLostCode(r)) {
    MarkLost(gpu, "nvmlGpmMetricsGet", r);
    return;
  }
  if (r != nvml::kSuccess) {
    gpu.gpm_no_data = fmt::format("no data: nvmlGpmMetricsGet failed: {}", library.Describe(r));
    return;
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const nvml::GpmMetric& metric = request->metrics[i];
    if (metric.metricId != ids[i]) continue;
    gpu.gpm_values[ids[i]] = GpmValue{metric.nvmlReturn, metric.value};
  }
}

void StopGpm(const NvmlLibrary& library, Gpu& gpu) {
  for (nvml::GpmSample& sample : gpu.gpm_samples) {
    if (sample != nullptr && library.api().gpm_sample_free != nullptr)
      library.api().gpm_sample_free(sample);
    sample = nullptr;
  }
  gpu.gpm_supported = false;
  gpu.gpm_newest = -1;
}

}  // namespace xpuperf::nvidia
