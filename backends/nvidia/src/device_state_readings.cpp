// The NVIDIA backend's device state: modes, temperature and power limits, the performance state and
// the PCIe link (nvidia-smi -q's first screen).
#include <fmt/format.h>

#include <algorithm>

#include "nvidia_readings.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::nvidia {
namespace {

namespace m = metrics;

Reading Empty(std::string_view metric, const Gpu& gpu) {
  Reading r;
  r.metric = std::string(metric);
  r.device = gpu.device.id;
  return r;
}

}  // namespace

Reading GpuReader::LabelledUints(std::string_view metric, Gpu& gpu,
                                 std::initializer_list<UintQuery> queries, double scale) const {
  Reading reading = Empty(metric, gpu);
  std::string_view failed_symbol;
  nvml::Return failure = nvml::kErrorNotSupported;
  for (const UintQuery& q : queries) {
    if (q.query == nullptr) {
      if (failed_symbol.empty()) failed_symbol = q.symbol;
      continue;
    }
    unsigned int value = 0;
    const nvml::Return r = q.query(gpu.handle, &value);
    if (IsLostCode(r)) return Failure(metric, gpu, q.symbol, r);
    if (r != nvml::kSuccess) {
      if (failed_symbol.empty() || failure == nvml::kErrorNotSupported) {
        failed_symbol = q.symbol;
        failure = r;
      }
      continue;
    }
    Sample s = MakeSample(gpu, value * scale);
    s.labels.Set(labels::kType, q.type);
    reading.samples.push_back(std::move(s));
  }
  if (!reading.samples.empty()) return reading;
  const bool none_resolved = std::all_of(queries.begin(), queries.end(),
                                         [](const UintQuery& q) { return q.query == nullptr; });
  if (none_resolved) return MissingSymbol(metric, gpu, queries.begin()->symbol);
  return Failure(metric, gpu, failed_symbol, failure);
}

// nvidia-smi's "Power Readings": the limit set now, the one enforced (the lowest of every limit in
// force), the default and the range it may be set to; milliwatts to watts.
Reading GpuReader::PowerLimits(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  Reading reading = LabelledUints(
      m::kPowerLimit, gpu,
      {{"current", api.device_get_power_management_limit, "nvmlDeviceGetPowerManagementLimit"},
       {"enforced", api.device_get_enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit"},
       {"default", api.device_get_power_management_default_limit,
        "nvmlDeviceGetPowerManagementDefaultLimit"}},
      1e-3);
  if (api.device_get_power_management_limit_constraints != nullptr &&
      reading.state == ReadingState::kOk) {
    unsigned int min_mw = 0, max_mw = 0;
    if (api.device_get_power_management_limit_constraints(gpu.handle, &min_mw, &max_mw) ==
        nvml::kSuccess) {
      for (auto [type, mw] : {std::pair{"min", min_mw}, std::pair{"max", max_mw}}) {
        Sample s = MakeSample(gpu, mw * 1e-3);
        s.labels.Set(labels::kType, type);
        reading.samples.push_back(std::move(s));
      }
    }
  }
  return reading;
}

// P0 (the fastest) .. P15; NVML's "unknown" (32) is no data.
Reading GpuReader::PerformanceState(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (api.device_get_performance_state == nullptr)
    return MissingSymbol(m::kPerformanceState, gpu, "nvmlDeviceGetPerformanceState");
  unsigned int state = 0;
  const nvml::Return r = api.device_get_performance_state(gpu.handle, &state);
  if (r != nvml::kSuccess)
    return Failure(m::kPerformanceState, gpu, "nvmlDeviceGetPerformanceState", r);
  if (state > 15) {
    return Reading::NoData(m::kPerformanceState, gpu.device.id,
                           "no data: the driver reports the performance state as unknown");
  }
  Reading reading = Empty(m::kPerformanceState, gpu);
  reading.samples.push_back(MakeSample(gpu, state));
  return reading;
}

Reading GpuReader::PcieLink(std::string_view metric, Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (metric == m::kHostLinkGeneration) {
    return LabelledUints(
        metric, gpu,
        {{"current", api.device_get_curr_pcie_link_generation,
          "nvmlDeviceGetCurrPcieLinkGeneration"},
         {"max", api.device_get_max_pcie_link_generation, "nvmlDeviceGetMaxPcieLinkGeneration"}},
        1.0);
  }
  return LabelledUints(
      metric, gpu,
      {{"current", api.device_get_curr_pcie_link_width, "nvmlDeviceGetCurrPcieLinkWidth"},
       {"max", api.device_get_max_pcie_link_width, "nvmlDeviceGetMaxPcieLinkWidth"}},
      1.0);
}

// The driver's temperature thresholds: one sample per threshold the GPU answers.
Reading GpuReader::TemperatureLimits(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (api.device_get_temperature_threshold == nullptr)
    return MissingSymbol(m::kTemperatureLimit, gpu, "nvmlDeviceGetTemperatureThreshold");
  Reading reading = Empty(m::kTemperatureLimit, gpu);
  nvml::Return first_failure = nvml::kSuccess;
  for (auto [threshold, name] : {std::pair{nvml::kTemperatureThresholdShutdown, "shutdown"},
                                 std::pair{nvml::kTemperatureThresholdSlowdown, "slowdown"},
                                 std::pair{nvml::kTemperatureThresholdMemoryMax, "memory_max"},
                                 std::pair{nvml::kTemperatureThresholdGpuMax, "gpu_max"}}) {
    unsigned int celsius = 0;
    const nvml::Return r = api.device_get_temperature_threshold(gpu.handle, threshold, &celsius);
    if (IsLostCode(r))
      return Failure(m::kTemperatureLimit, gpu, "nvmlDeviceGetTemperatureThreshold", r);
    if (r != nvml::kSuccess) {
      if (first_failure == nvml::kSuccess) first_failure = r;
      continue;
    }
    Sample s = MakeSample(gpu, celsius);
    s.labels.Set(labels::kType, name);
    reading.samples.push_back(std::move(s));
  }
  if (reading.samples.empty())
    return Failure(m::kTemperatureLimit, gpu, "nvmlDeviceGetTemperatureThreshold", first_failure);
  return reading;
}

// Persistence mode and ECC (current and pending): one sample per mode the driver answers.
Reading GpuReader::Modes(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (api.device_get_persistence_mode == nullptr && api.device_get_ecc_mode == nullptr)
    return MissingSymbol(m::kDeviceMode, gpu, "nvmlDeviceGetPersistenceMode");
  Reading reading = Empty(m::kDeviceMode, gpu);
  auto add = [&](std::string_view mode, unsigned int state) {
    Sample s = MakeSample(gpu, state == 1 ? 1.0 : 0.0);
    s.labels.Set(labels::kMode, mode);
    reading.samples.push_back(std::move(s));
  };
  std::string_view failed_query;
  nvml::Return failure = nvml::kErrorNotSupported;
  if (api.device_get_persistence_mode != nullptr) {
    unsigned int mode = 0;
    const nvml::Return r = api.device_get_persistence_mode(gpu.handle, &mode);
    if (IsLostCode(r)) return Failure(m::kDeviceMode, gpu, "nvmlDeviceGetPersistenceMode", r);
    if (r == nvml::kSuccess) {
      add("persistence", mode);
    } else {
      failed_query = "nvmlDeviceGetPersistenceMode";
      failure = r;
    }
  }
  if (api.device_get_ecc_mode != nullptr) {
    unsigned int current = 0, pending = 0;
    const nvml::Return r = api.device_get_ecc_mode(gpu.handle, &current, &pending);
    if (IsLostCode(r)) return Failure(m::kDeviceMode, gpu, "nvmlDeviceGetEccMode", r);
    if (r == nvml::kSuccess) {
      add("ecc", current);
      add("ecc_pending", pending);
    } else if (failed_query.empty()) {
      failed_query = "nvmlDeviceGetEccMode";
      failure = r;
    }
  }
  if (reading.samples.empty()) return Failure(m::kDeviceMode, gpu, failed_query, failure);
  return reading;
}

}  // namespace xpuperf::nvidia
