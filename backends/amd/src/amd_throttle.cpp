#include "amd_throttle.h"

#include <fmt/format.h>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::amd {
namespace {

struct Bit {
  int bit;
  const char* name;
};

// SMU_THROTTLER_* of amdgpu_smu.h: power 0-7, current 16-23, temperature 32-47, other 56-63.
constexpr Bit kIndependentBits[] = {
    {0, "ppt0"},          {1, "ppt1"},      {2, "ppt2"},       {3, "ppt3"},      {4, "spl"},
    {5, "fppt"},          {6, "sppt"},      {7, "sppt_apu"},   {16, "tdc_gfx"},  {17, "tdc_soc"},
    {18, "tdc_mem"},      {32, "temp_gpu"}, {33, "temp_core"}, {34, "temp_mem"}, {35, "temp_edge"},
    {36, "temp_hotspot"}, {56, "ppm"},      {57, "fit"},
};

Sample MakeSample(const AmdGpu& gpu, int64_t wall_ns, std::string_view reason, bool active) {
  Sample s;
  s.labels.Set(labels::kDevice, gpu.device.id);
  s.labels.Set(labels::kReason, reason);
  s.timestamp_ns = wall_ns;
  s.value = active ? 1.0 : 0.0;
  return s;
}

}  // namespace

std::vector<std::pair<std::string, bool>> DecodeIndependentThrottle(uint64_t bits) {
  std::vector<std::pair<std::string, bool>> out;
  uint64_t known = 0;
  for (const Bit& b : kIndependentBits) {
    known |= uint64_t{1} << b.bit;
    out.emplace_back(b.name, (bits >> b.bit) & 1);
  }
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t mask = uint64_t{1} << bit;
    if ((bits & mask) != 0 && (known & mask) == 0)
      out.emplace_back(fmt::format("bit{}", bit), true);
  }
  return out;
}

Reading ThrottleReasons(AmdGpu& gpu, int64_t wall_ns) {
  const std::string_view metric = metrics::kClockEventActive;
  if (!gpu.metrics.ok()) {
    return Reading::Unsupported(metric, gpu.device.id,
                                "unsupported: " + gpu.metrics.error().message);
  }
  const GpuMetrics& table = *gpu.metrics;
  Reading reading;
  reading.metric = std::string(metric);
  reading.device = gpu.device.id;
  if (table.indep_throttle_status) {
    for (const auto& [reason, active] : DecodeIndependentThrottle(*table.indep_throttle_status)) {
      reading.samples.push_back(MakeSample(gpu, wall_ns, reason, active));
    }
    return reading;
  }
  if (table.residency) {
    const auto before = gpu.previous_residency;
    gpu.previous_residency = table.residency;
    if (!before) {
      return Reading::NoData(metric, gpu.device.id,
                             "no data: throttle residencies (gpu_metrics 1.6) need two samples");
    }
    if (table.residency->accumulation_counter == before->accumulation_counter) {
      return Reading::NoData(metric, gpu.device.id,
                             "no data: the gpu_metrics 1.6 accumulation counter has not advanced "
                             "since the previous sample (the firmware refreshes it every few ms)");
    }
    const ThrottleResidency& now = *table.residency;
    const struct {
      const char* reason;
      uint32_t ThrottleResidency::*field;
    } kResidencies[] = {{"prochot", &ThrottleResidency::prochot},
                        {"ppt", &ThrottleResidency::ppt},
                        {"socket_thermal", &ThrottleResidency::socket_thermal},
                        {"vr_thermal", &ThrottleResidency::vr_thermal},
                        {"hbm_thermal", &ThrottleResidency::hbm_thermal}};
    for (const auto& r : kResidencies) {
      reading.samples.push_back(
          MakeSample(gpu, wall_ns, r.reason, now.*r.field > (*before).*r.field));
    }
    return reading;
  }
  return Reading::Unsupported(
      metric, gpu.device.id,
      fmt::format("unsupported: gpu_metrics {} has only ASIC-specific throttle bits (reasons are "
                  "decoded from 1.3's indep_throttle_status and 1.6's residencies)",
                  table.revision()));
}

}  // namespace xpuperf::amd
