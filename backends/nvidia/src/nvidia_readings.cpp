#include "nvidia_readings.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "clock_events.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::nvidia {
namespace {

namespace m = metrics;

constexpr double kMiB = 1024.0 * 1024.0;

Reading Ok(std::string_view metric, const Gpu& gpu) {
  Reading r;
  r.metric = std::string(metric);
  r.device = gpu.device.id;
  return r;
}

std::optional<double> FieldAsDouble(const nvml::FieldValue& field) {
  switch (field.valueType) {
    case nvml::kValueDouble:
      return field.value.dVal;
    case nvml::kValueUnsignedInt:
      return static_cast<double>(field.value.uiVal);
    case nvml::kValueUnsignedLong:
      return static_cast<double>(field.value.ulVal);
    case nvml::kValueUnsignedLongLong:
      return static_cast<double>(field.value.ullVal);
    case nvml::kValueSignedLongLong:
      return static_cast<double>(field.value.sllVal);
    case nvml::kValueSignedInt:
      return static_cast<double>(field.value.siVal);
    case nvml::kValueUnsignedShort:
      return static_cast<double>(field.value.usVal);
    default:
      return std::nullopt;
  }
}

struct MemoryAnswer {
  nvml::Return code = nvml::kErrorNotSupported;
  std::string_view query;
  bool v2 = false;
  unsigned long long total = 0, used = 0, reserved = 0;
};

// nvmlDeviceGetMemoryInfo_v2 (used excludes reserved); on anything but success or "not supported"
// the v1 call, whose used includes the reserved memory (nvtop's rule).
MemoryAnswer QueryMemory(const NvmlApi& api, nvml::Device handle) {
  MemoryAnswer answer;
  if (api.device_get_memory_info_v2 != nullptr) {
    nvml::MemoryV2 memory{};
    memory.version = nvml::kMemoryV2Version;
    answer.query = "nvmlDeviceGetMemoryInfo_v2";
    answer.code = api.device_get_memory_info_v2(handle, &memory);
    if (answer.code == nvml::kSuccess) {
      answer.v2 = true;
      answer.total = memory.total;
      answer.used = memory.used;
      answer.reserved = memory.reserved;
      return answer;
    }
    if (answer.code == nvml::kErrorNotSupported || IsLostCode(answer.code)) return answer;
  }
  if (api.device_get_memory_info != nullptr) {
    nvml::MemoryV1 memory{};
    answer.query = "nvmlDeviceGetMemoryInfo";
    answer.code = api.device_get_memory_info(handle, &memory);
    answer.total = memory.total;
    answer.used = memory.used;
  }
  return answer;
}

}  // namespace

Sample GpuReader::MakeSample(const Gpu& gpu, double value) const {
  Sample s;
  s.labels.Set(labels::kDevice, gpu.device.id);
  s.timestamp_ns = wall_ns_;
  s.value = value;
  return s;
}

Reading GpuReader::Failure(std::string_view metric, Gpu& gpu, std::string_view query,
                           nvml::Return code) const {
  if (IsLostCode(code)) {
    MarkLost(gpu, query, code);
    return Reading::NoData(metric, gpu.device.id, gpu.lost_reason);
  }
  if (code == nvml::kErrorNotSupported && gpu.mig_enabled &&
      (metric == m::kDutyCycle || metric == m::kProcessEngineBusy)) {
    return Reading::Unsupported(
        metric, gpu.device.id,
        fmt::format("unsupported: {} not supported on a GPU in MIG mode ({})", query, gpu.name));
  }
  if (code == nvml::kErrorNotSupported) {
    return Reading::Unsupported(
        metric, gpu.device.id, fmt::format("unsupported: {} not supported on {}", query, gpu.name));
  }
  if (code == nvml::kErrorNoPermission) {
    return Reading::Unsupported(
        metric, gpu.device.id,
        fmt::format("unsupported: {} refused: {}", query, library_.Describe(code)));
  }
  return Reading::Unsupported(
      metric, gpu.device.id,
      fmt::format("unsupported: {} failed on {}: {}", query, gpu.name, library_.Describe(code)));
}

Reading GpuReader::MissingSymbol(std::string_view metric, const Gpu& gpu, std::string_view symbol) {
  return Reading::Unsupported(metric, gpu.device.id,
                              fmt::format("unsupported: driver has no {}", symbol));
}

namespace {

constexpr std::string_view kNoMigUtilisation =
    "unsupported: NVML has no utilisation rates for MIG devices; per-slice activity is in the "
    "GPM metrics (Hopper and newer)";

// What a MIG device cannot have of its own: NVML answers these for the whole GPU only.
std::string_view WholeGpuOnly(std::string_view metric) {
  if (metric == m::kPower) return "board power";
  if (metric == m::kEnergy) return "energy";
  if (metric == m::kTemperature || metric == m::kTemperatureLimit) return "temperature";
  if (metric == m::kClock || metric == m::kClockMax) return "clocks";
  if (metric == m::kDeviceMode) return "persistence and ECC modes";
  if (metric == m::kPowerLimit) return "power limits";
  if (metric == m::kPerformanceState) return "the performance state";
  if (metric == m::kHostLinkGeneration || metric == m::kHostLinkWidth) return "the PCIe link";
  if (metric == m::kClockEventActive) return "clock-event reasons";
  if (metric == m::kHostLinkThroughput) return "PCIe throughput";
  if (metric == m::kErrors) return "ECC and remapped-row counts";
  if (metric == m::kLastErrorCode) return "XID events";
  return {};
}

}  // namespace

Reading GpuReader::Read(std::string_view metric, Gpu& gpu) const {
  if (gpu.lost) return Reading::NoData(metric, gpu.device.id, gpu.lost_reason);
  if (gpu.is_mig()) {
    if (std::string_view what = WholeGpuOnly(metric); !what.empty()) {
      return Reading::Unsupported(
          metric, gpu.device.id,
          fmt::format("unsupported: NVML reports {} for the whole GPU, not per MIG device (see {})",
                      what, gpu.device.partition.parent));
    }
    if (metric == m::kDutyCycle || metric == m::kProcessEngineBusy) {
      return Reading::Unsupported(metric, gpu.device.id, std::string(kNoMigUtilisation));
    }
  }
  for (const Handler& handler : Handlers()) {
    if (handler.metric == metric) return handler.read(*this, metric, gpu);
  }
  return Reading::Unsupported(metric, gpu.device.id,
                              "unsupported: not a metric the NVIDIA backend reports");
}

const std::vector<GpuReader::Handler>& GpuReader::Handlers() {
  using R = const GpuReader&;
  static const std::vector<Handler> handlers = {
      {m::kTensorCoreUtilization,
       [](R r, std::string_view metric, Gpu& gpu) {
         return r.Gpm(metric, gpu, {}, {{nvml::kGpmAnyTensorUtil, {}, 1.0}});
       },
       true},
      {m::kDutyCycle, [](R r, std::string_view, Gpu& gpu) { return r.DutyCycle(gpu); }},
      {m::kMemoryTotal,
       [](R r, std::string_view metric, Gpu& gpu) { return r.Memory(metric, gpu); }},
      {m::kMemoryUsed,
       [](R r, std::string_view metric, Gpu& gpu) { return r.Memory(metric, gpu); }},
      {m::kPower, [](R r, std::string_view, Gpu& gpu) { return r.Power(gpu); }},
      {m::kEnergy, [](R r, std::string_view, Gpu& gpu) { return r.Energy(gpu); }},
      {m::kTemperature, [](R r, std::string_view, Gpu& gpu) { return r.Temperature(gpu); }},
      {m::kClock, [](R r, std::string_view metric, Gpu& gpu) { return r.Clocks(metric, gpu); }},
      {m::kMemoryBandwidthUtilization,
       [](R r, std::string_view metric, Gpu& gpu) {
         return r.Gpm(metric, gpu, {}, {{nvml::kGpmDramBwUtil, {}, 1.0}});
       },
       true},
      {m::kHostLinkThroughput, [](R r, std::string_view, Gpu& gpu) { return r.HostLink(gpu); },
       true},
      {m::kErrors, [](R r, std::string_view, Gpu& gpu) { return r.Errors(gpu); }, false, true},
      {m::kProcessMemory, [](R r, std::string_view, Gpu& gpu) { return r.Processes(gpu); }},
      {m::kProcessEngineBusy,
       [](R r, std::string_view, Gpu& gpu) { return r.ProcessUtilization(gpu); }},
      {m::kMemoryReserved,
       [](R r, std::string_view metric, Gpu& gpu) { return r.Memory(metric, gpu); }},
      {m::kClockEventActive, [](R r, std::string_view, Gpu& gpu) { return r.ClockEvents(gpu); }},
      {m::kSmOccupancy,
       [](R r, std::string_view metric, Gpu& gpu) {
         return r.Gpm(metric, gpu, {}, {{nvml::kGpmSmOccupancy, {}, 1.0}});
       },
       true},
      {m::kPipeUtilization,
       [](R r, std::string_view metric, Gpu& gpu) {
         return r.Gpm(metric, gpu, labels::kPipe,
                      {{nvml::kGpmFp64Util, "fp64", 1.0},
                       {nvml::kGpmFp32Util, "fp32", 1.0},
                       {nvml::kGpmFp16Util, "fp16", 1.0}});
       },
       true},
      {m::kPeerLinkThroughput,
       [](R r, std::string_view metric, Gpu& gpu) {
         return r.Gpm(metric, gpu, labels::kDirection,
                      {{nvml::kGpmNvlinkTotalTxPerSec, "tx", kMiB},
                       {nvml::kGpmNvlinkTotalRxPerSec, "rx", kMiB}});
       },
       true},
      {m::kLastErrorCode, [](R r, std::string_view, Gpu& gpu) { return r.LastXid(gpu); }, false,
       true},
      {m::kClockMax, [](R r, std::string_view metric, Gpu& gpu) { return r.Clocks(metric, gpu); }},
      {m::kDeviceMode, [](R r, std::string_view, Gpu& gpu) { return r.Modes(gpu); }},
      {m::kTemperatureLimit,
       [](R r, std::string_view, Gpu& gpu) { return r.TemperatureLimits(gpu); }},
      {m::kPowerLimit, [](R r, std::string_view, Gpu& gpu) { return r.PowerLimits(gpu); }},
      {m::kPerformanceState,
       [](R r, std::string_view, Gpu& gpu) { return r.PerformanceState(gpu); }},
      {m::kHostLinkGeneration,
       [](R r, std::string_view metric, Gpu& gpu) { return r.PcieLink(metric, gpu); }},
      {m::kHostLinkWidth,
       [](R r, std::string_view metric, Gpu& gpu) { return r.PcieLink(metric, gpu); }},
  };
  return handlers;
}

Reading GpuReader::DutyCycle(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (api.device_get_utilization_rates == nullptr)
    return MissingSymbol(m::kDutyCycle, gpu, "nvmlDeviceGetUtilizationRates");
  nvml::Utilization utilization{};
  const nvml::Return r = api.device_get_utilization_rates(gpu.handle, &utilization);
  if (r != nvml::kSuccess) return Failure(m::kDutyCycle, gpu, "nvmlDeviceGetUtilizationRates", r);
  Reading reading = Ok(m::kDutyCycle, gpu);
  reading.samples.push_back(MakeSample(gpu, utilization.gpu));
  return reading;
}

Reading GpuReader::Memory(std::string_view metric, Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (api.device_get_memory_info == nullptr && api.device_get_memory_info_v2 == nullptr)
    return MissingSymbol(metric, gpu, "nvmlDeviceGetMemoryInfo");
  const MemoryAnswer answer = QueryMemory(api, gpu.handle);
  if (answer.code != nvml::kSuccess) return Failure(metric, gpu, answer.query, answer.code);
  Reading reading = Ok(metric, gpu);
  if (metric == m::kMemoryTotal) {
    reading.samples.push_back(MakeSample(gpu, static_cast<double>(answer.total)));
  } else if (metric == m::kMemoryUsed) {
    reading.samples.push_back(MakeSample(gpu, static_cast<double>(answer.used)));
  } else if (!answer.v2) {
    return Reading::Unsupported(
        metric, gpu.device.id,
        api.device_get_memory_info_v2 == nullptr
            ? std::string("unsupported: driver has no nvmlDeviceGetMemoryInfo_v2 (the reserved "
                          "memory is counted in memory_used_bytes)")
            : fmt::format("unsupported: nvmlDeviceGetMemoryInfo_v2 not supported on {} (the "
                          "reserved memory is counted in memory_used_bytes)",
                          gpu.name));
  } else {
    reading.samples.push_back(MakeSample(gpu, static_cast<double>(answer.reserved)));
  }
  return reading;
}

Reading GpuReader::Power(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (api.device_get_power_usage == nullptr)
    return MissingSymbol(m::kPower, gpu, "nvmlDeviceGetPowerUsage");
  unsigned int milliwatts = 0;
  const nvml::Return r = api.device_get_power_usage(gpu.handle, &milliwatts);
  if (r != nvml::kSuccess) return Failure(m::kPower, gpu, "nvmlDeviceGetPowerUsage", r);
  Reading reading = Ok(m::kPower, gpu);
  Sample s = MakeSample(gpu, milliwatts / 1000.0);
  s.labels.Set(labels::kDomain, "gpu");
  reading.samples.push_back(std::move(s));
  return reading;
}

Reading GpuReader::Energy(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (api.device_get_total_energy_consumption == nullptr)
    return MissingSymbol(m::kEnergy, gpu, "nvmlDeviceGetTotalEnergyConsumption");
  unsigned long long millijoules = 0;
  const nvml::Return r = api.device_get_total_energy_consumption(gpu.handle, &millijoules);
  if (r != nvml::kSuccess)
    return Failure(m::kEnergy, gpu, "nvmlDeviceGetTotalEnergyConsumption", r);
  Reading reading = Ok(m::kEnergy, gpu);
  Sample s = MakeSample(gpu, static_cast<double>(millijoules) / 1000.0);
  s.labels.Set(labels::kDomain, "gpu");
  reading.samples.push_back(std::move(s));
  return reading;
}

Reading GpuReader::Temperature(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  std::optional<double> die;
  std::string_view query = "nvmlDeviceGetTemperature";
  nvml::Return code = nvml::kErrorFunctionNotFound;
  if (api.device_get_temperature_v != nullptr) {
    nvml::TemperatureV1 t{};
    t.version = nvml::kTemperatureV1Version;
    t.sensorType = nvml::kTemperatureGpu;
    query = "nvmlDeviceGetTemperatureV";
    code = api.device_get_temperature_v(gpu.handle, &t);
    if (code == nvml::kSuccess) die = t.temperature;
  }
  // The deprecated call is the fallback on drivers older than 12.8's (and when V refuses the
  // struct version).
  if (!die && api.device_get_temperature != nullptr && !IsLostCode(code) &&
      code != nvml::kErrorNotSupported) {
    unsigned int celsius = 0;
    query = "nvmlDeviceGetTemperature";
    code = api.device_get_temperature(gpu.handle, nvml::kTemperatureGpu, &celsius);
    if (code == nvml::kSuccess) die = celsius;
  }
  if (IsLostCode(code)) return Failure(m::kTemperature, gpu, query, code);
  std::optional<double> memory;
  if (api.device_get_field_values != nullptr) {
    nvml::FieldValue field{};
    field.fieldId = nvml::kFieldMemoryTemperature;
    const nvml::Return r = api.device_get_field_values(gpu.handle, 1, &field);
    if (IsLostCode(r)) return Failure(m::kTemperature, gpu, "nvmlDeviceGetFieldValues", r);
    if (r == nvml::kSuccess && field.nvmlReturn == nvml::kSuccess) memory = FieldAsDouble(field);
  }
  if (!die && !memory) {
    if (api.device_get_temperature_v == nullptr && api.device_get_temperature == nullptr)
      return MissingSymbol(m::kTemperature, gpu, "nvmlDeviceGetTemperature");
    return Failure(m::kTemperature, gpu, query, code);
  }
  Reading reading = Ok(m::kTemperature, gpu);
  for (auto [value, sensor] : {std::pair{die, "gpu"}, std::pair{memory, "memory"}}) {
    if (!value) continue;
    Sample s = MakeSample(gpu, *value);
    s.labels.Set(labels::kSensor, sensor);
    reading.samples.push_back(std::move(s));
  }
  return reading;
}

Reading GpuReader::Clocks(std::string_view metric, Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  const bool max = metric == m::kClockMax;
  const nvml::DeviceGetClockInfoFn query =
      max ? api.device_get_max_clock_info : api.device_get_clock_info;
  const std::string_view symbol = max ? "nvmlDeviceGetMaxClockInfo" : "nvmlDeviceGetClockInfo";
  if (query == nullptr) return MissingSymbol(metric, gpu, symbol);
  Reading reading = Ok(metric, gpu);
  nvml::Return first_failure = nvml::kSuccess;
  for (auto [type, name] :
       {std::pair{nvml::kClockSm, "sm"}, std::pair{nvml::kClockMemory, "memory"}}) {
    unsigned int mhz = 0;
    const nvml::Return r = query(gpu.handle, type, &mhz);
    if (IsLostCode(r)) return Failure(metric, gpu, symbol, r);
    if (r != nvml::kSuccess) {
      if (first_failure == nvml::kSuccess) first_failure = r;
      continue;
    }
    Sample s = MakeSample(gpu, mhz * 1e6);
    s.labels.Set(labels::kType, name);
    reading.samples.push_back(std::move(s));
  }
  if (reading.samples.empty()) return Failure(metric, gpu, symbol, first_failure);
  return reading;
}

Reading GpuReader::ClockEvents(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (api.device_get_current_clocks_event_reasons == nullptr)
    return MissingSymbol(m::kClockEventActive, gpu, "nvmlDeviceGetCurrentClocksEventReasons");
  unsigned long long active = 0;
  const nvml::Return r = api.device_get_current_clocks_event_reasons(gpu.handle, &active);
  if (r != nvml::kSuccess)
    return Failure(m::kClockEventActive, gpu, api.current_clocks_event_reasons_symbol, r);
  // Every reason NVML defines, unless the driver says which of them this GPU can report.
  unsigned long long supported = 0;
  for (const ClockEventReason& reason : ClockEventReasons()) supported |= reason.bit;
  if (api.device_get_supported_clocks_event_reasons != nullptr) {
    unsigned long long mask = 0;
    if (api.device_get_supported_clocks_event_reasons(gpu.handle, &mask) == nvml::kSuccess)
      supported = mask;
  }
  Reading reading = Ok(m::kClockEventActive, gpu);
  for (int bit = 0; bit < 64; ++bit) {
    const unsigned long long value = 1ULL << bit;
    if (((supported | active) & value) == 0) continue;
    Sample s = MakeSample(gpu, (active & value) != 0 ? 1.0 : 0.0);
    s.labels.Set(labels::kReason, DecodeClockEvents(value).front());
    reading.samples.push_back(std::move(s));
  }
  return reading;
}

Reading GpuReader::HostLink(Gpu& gpu) const {
  // GPM's PCIe rates when this Collect has them (exact byte counts over the GPM window), else
  // nvmlDeviceGetPcieThroughput (a 20 ms window measured inside the call).
  const auto tx = gpu.gpm_values.find(nvml::kGpmPcieTxPerSec);
  const auto rx = gpu.gpm_values.find(nvml::kGpmPcieRxPerSec);
  if (tx != gpu.gpm_values.end() && rx != gpu.gpm_values.end() &&
      tx->second.status == nvml::kSuccess && rx->second.status == nvml::kSuccess) {
    return Gpm(m::kHostLinkThroughput, gpu, labels::kDirection,
               {{nvml::kGpmPcieTxPerSec, "tx", kMiB}, {nvml::kGpmPcieRxPerSec, "rx", kMiB}});
  }
  const NvmlApi& api = library_.api();
  if (api.device_get_pcie_throughput == nullptr)
    return MissingSymbol(m::kHostLinkThroughput, gpu, "nvmlDeviceGetPcieThroughput");
  Reading reading = Ok(m::kHostLinkThroughput, gpu);
  for (auto [counter, direction] :
       {std::pair{nvml::kPcieTxBytes, "tx"}, std::pair{nvml::kPcieRxBytes, "rx"}}) {
    unsigned int kilobytes_per_second = 0;
    const nvml::Return r =
        api.device_get_pcie_throughput(gpu.handle, counter, &kilobytes_per_second);
    if (r != nvml::kSuccess)
      return Failure(m::kHostLinkThroughput, gpu, "nvmlDeviceGetPcieThroughput", r);
    // NVML's "KB" is 1024 bytes.
    Sample s = MakeSample(gpu, kilobytes_per_second * 1024.0);
    s.labels.Set(labels::kDirection, direction);
    reading.samples.push_back(std::move(s));
  }
  return reading;
}

Reading GpuReader::Errors(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (api.device_get_field_values == nullptr)
    return MissingSymbol(m::kErrors, gpu, "nvmlDeviceGetFieldValues");
  static constexpr std::array<std::pair<unsigned, const char*>, 16> kFields = {{
      {nvml::kFieldEccSbeVolatileTotal, "ecc_corrected_volatile"},
      {nvml::kFieldEccDbeVolatileTotal, "ecc_uncorrected_volatile"},
      {nvml::kFieldEccSbeAggregateTotal, "ecc_corrected_aggregate"},
      {nvml::kFieldEccDbeAggregateTotal, "ecc_uncorrected_aggregate"},
      {nvml::kFieldRetiredSbe, "retired_pages_sbe"},
      {nvml::kFieldRetiredDbe, "retired_pages_dbe"},
      {nvml::kFieldRetiredPending, "retired_pages_pending"},
      {nvml::kFieldRemappedCorrectable, "remapped_rows_correctable"},
      {nvml::kFieldRemappedUncorrectable, "remapped_rows_uncorrectable"},
      {nvml::kFieldRemappedPending, "remapped_rows_pending"},
      {nvml::kFieldRemappedFailure, "remapped_rows_failure"},
      // GPUs without NVLink answer NOT_SUPPORTED for these: no sample.
      {nvml::kFieldNvlinkCrcFlitTotal, "nvlink_crc_flit"},
      {nvml::kFieldNvlinkCrcDataTotal, "nvlink_crc_data"},
      {nvml::kFieldNvlinkReplayTotal, "nvlink_replay"},
      {nvml::kFieldNvlinkRecoveryTotal, "nvlink_recovery"},
      {nvml::kFieldPcieReplayCounter, "pcie_replay"},
  }};
  std::array<nvml::FieldValue, kFields.size()> fields{};
  for (size_t i = 0; i < kFields.size(); ++i) fields[i].fieldId = kFields[i].first;
  const nvml::Return r =
      api.device_get_field_values(gpu.handle, static_cast<int>(fields.size()), fields.data());
  if (r != nvml::kSuccess) return Failure(m::kErrors, gpu, "nvmlDeviceGetFieldValues", r);
  Reading reading = Ok(m::kErrors, gpu);
  for (size_t i = 0; i < kFields.size(); ++i) {
    if (fields[i].nvmlReturn != nvml::kSuccess) continue;
    std::optional<double> value = FieldAsDouble(fields[i]);
    if (!value) continue;
    Sample s = MakeSample(gpu, *value);
    s.labels.Set(labels::kType, kFields[i].second);
    reading.samples.push_back(std::move(s));
  }
  if (gpu.xid_registered) {
    Sample s = MakeSample(gpu, static_cast<double>(gpu.xid_count));
    s.labels.Set(labels::kType, "xid_since_start");
    reading.samples.push_back(std::move(s));
  }
  if (reading.samples.empty()) {
    return Reading::Unsupported(
        m::kErrors, gpu.device.id,
        fmt::format("unsupported: no ECC, page-retirement or row-remapping field "
                    "(nvmlDeviceGetFieldValues) on {}: {}",
                    gpu.name, library_.Describe(fields[0].nvmlReturn)));
  }
  return reading;
}

std::string GpuReader::ProcessName(unsigned int pid) const {
  const NvmlApi& api = library_.api();
  if (api.system_get_process_name == nullptr) return {};
  char name[256] = {};
  if (api.system_get_process_name(pid, name, sizeof(name)) != nvml::kSuccess) return {};
  name[sizeof(name) - 1] = '\0';
  return name;
}

Reading GpuReader::Processes(Gpu& gpu) const {
  const NvmlApi& api = library_.api();
  if (api.device_get_compute_running_processes == nullptr)
    return MissingSymbol(m::kProcessMemory, gpu, "nvmlDeviceGetComputeRunningProcesses_v3");
  const std::string_view query = api.compute_running_processes_symbol;
  unsigned int count = 0;
  nvml::Return r = api.device_get_compute_running_processes(gpu.handle, &count, nullptr);
  std::vector<unsigned char> buffer;
  // Processes come and go between the calls: room for more than asked, and a few retries.
  for (int attempt = 0; r == nvml::kErrorInsufficientSize && attempt < 3; ++attempt) {
    count = 2 * count + 5;
    buffer.assign(static_cast<size_t>(count) * nvml::kLargestProcessEntry, 0);
    r = api.device_get_compute_running_processes(gpu.handle, &count, buffer.data());
  }
  if (r != nvml::kSuccess) return Failure(m::kProcessMemory, gpu, query, r);
  if (buffer.empty()) count = 0;
  Reading reading = Ok(m::kProcessMemory, gpu);
  for (unsigned int i = 0; i < count; ++i) {
    const unsigned char* entry = buffer.data() + i * api.process_entry_bytes;
    unsigned int pid = 0;
    unsigned long long bytes = 0;
    std::memcpy(&pid, entry, sizeof(pid));
    std::memcpy(&bytes, entry + offsetof(nvml::ProcessInfoV2, usedGpuMemory), sizeof(bytes));
    if (bytes == ~0ULL) continue;  // NVML's "not available"
    Sample s = MakeSample(gpu, static_cast<double>(bytes));
    s.labels.Set(labels::kPid, std::to_string(pid));
    // The driver knows the host's pids; /proc of a container may name another process or none.
    if (std::string command = ProcessName(pid); !command.empty())
      s.labels.Set(labels::kCommand, command);
    reading.samples.push_back(std::move(s));
  }
  if (reading.samples.empty()) {
    return Reading::NoData(m::kProcessMemory, gpu.device.id,
                           fmt::format("no data: no compute process is using {}", gpu.device.id));
  }
  return reading;
}

Reading GpuReader::ProcessUtilization(Gpu& gpu) const {
  constexpr std::string_view kQuery = "nvmlDeviceGetProcessUtilization";
  const NvmlApi& api = library_.api();
  if (api.device_get_process_utilization == nullptr) {
    return MissingSymbol(m::kProcessEngineBusy, gpu, kQuery);
  }
  // NVML keeps a few seconds of samples; ask for the last 5 s (timestamps are wall-clock µs) and
  // keep each process's newest, as nvidia-smi pmon and nvitop do.
  constexpr unsigned long long kWindowUs = 5'000'000;
  const auto now_us = static_cast<unsigned long long>(wall_ns_ / 1000);
  const unsigned long long since_us = now_us > kWindowUs ? now_us - kWindowUs : 0;
  unsigned int count = 0;
  nvml::Return r = api.device_get_process_utilization(gpu.handle, nullptr, &count, since_us);
  std::vector<nvml::ProcessUtilizationSample> samples;
  // Samples arrive between the calls: room for more than asked, and a few retries.
  for (int attempt = 0; (r == nvml::kErrorInsufficientSize ||
                         (r == nvml::kSuccess && count > 0 && samples.empty())) &&
                        attempt < 3;
       ++attempt) {
    count = 2 * count + 5;
    samples.assign(count, nvml::ProcessUtilizationSample{});
    r = api.device_get_process_utilization(gpu.handle, samples.data(), &count, since_us);
  }
  const std::string none =
      fmt::format("no data: no process used {} in the last 5 s (nvmlDeviceGetProcessUtilization)",
                  gpu.device.id);
  if (r == nvml::kErrorNotFound) return Reading::NoData(m::kProcessEngineBusy, gpu.device.id, none);
  if (r != nvml::kSuccess) return Failure(m::kProcessEngineBusy, gpu, kQuery, r);
  count = std::min<unsigned int>(count, static_cast<unsigned int>(samples.size()));
  std::map<unsigned int, const nvml::ProcessUtilizationSample*> newest;
  for (unsigned int i = 0; i < count; ++i) {
    const nvml::ProcessUtilizationSample*& slot = newest[samples[i].pid];
    if (slot == nullptr || samples[i].timeStamp > slot->timeStamp) slot = &samples[i];
  }
  Reading reading = Ok(m::kProcessEngineBusy, gpu);
  for (const auto& [pid, sample] : newest) {
    const std::string command = ProcessName(pid);
    const std::pair<std::string_view, unsigned int> engines[] = {{"sm", sample->smUtil},
                                                                 {"memory", sample->memUtil},
                                                                 {"encoder", sample->encUtil},
                                                                 {"decoder", sample->decUtil}};
    for (const auto& [engine, percent] : engines) {
      if (percent > 100) continue;  // drivers report UINT_MAX-like values for "not sampled"
      Sample s = MakeSample(gpu, static_cast<double>(percent));
      s.labels.Set(labels::kPid, std::to_string(pid));
      s.labels.Set(labels::kEngine, engine);
      if (!command.empty()) s.labels.Set(labels::kCommand, command);
      reading.samples.push_back(std::move(s));
    }
  }
  if (reading.samples.empty()) return Reading::NoData(m::kProcessEngineBusy, gpu.device.id, none);
  return reading;
}

Reading GpuReader::LastXid(Gpu& gpu) const {
  if (!gpu.xid_registered)
    return Reading::Unsupported(m::kLastErrorCode, gpu.device.id, gpu.xid_unsupported_reason);
  if (!gpu.last_xid) {
    return Reading::NoData(m::kLastErrorCode, gpu.device.id,
                           "no data: no XID event since monitoring started");
  }
  Reading reading = Ok(m::kLastErrorCode, gpu);
  Sample s = MakeSample(gpu, static_cast<double>(*gpu.last_xid));
  s.labels.Set(labels::kType, "xid");
  reading.samples.push_back(std::move(s));
  return reading;
}

Reading GpuReader::Gpm(std::string_view metric, Gpu& gpu, std::string_view label,
                       std::initializer_list<GpmSeries> series) const {
  if (!gpu.gpm_supported)
    return Reading::Unsupported(metric, gpu.device.id, gpu.gpm_unsupported_reason);
  if (gpu.gpm_values.empty()) return Reading::NoData(metric, gpu.device.id, gpu.gpm_no_data);
  Reading reading = Ok(metric, gpu);
  nvml::Return first_failure = nvml::kSuccess;
  for (const GpmSeries& one : series) {
    const auto it = gpu.gpm_values.find(one.id);
    const nvml::Return status =
        it == gpu.gpm_values.end() ? nvml::kErrorNotSupported : it->second.status;
    if (status != nvml::kSuccess) {
      if (first_failure == nvml::kSuccess) first_failure = status;
      continue;
    }
    Sample s = MakeSample(gpu, it->second.value * one.scale);
    if (!label.empty()) s.labels.Set(label, one.label_value);
    reading.samples.push_back(std::move(s));
  }
  if (reading.samples.empty()) {
    return Reading::Unsupported(
        metric, gpu.device.id,
        fmt::format("unsupported: GPM metric {} not supported on {}: {}", series.begin()->id,
                    gpu.name, library_.Describe(first_failure)));
  }
  return reading;
}

}  // namespace xpuperf::nvidia
