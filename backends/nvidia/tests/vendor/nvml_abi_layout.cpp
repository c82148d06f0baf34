// nvml_abi_layout: prints the layout of xpuperf's own NVML declarations (src/nvml_abi.h) and the
// constants the backend passes, one "kind name value [size]" line each, for
// compare_nvml_abi.py to check against the ctypes definitions in NVIDIA's nvidia-ml-py.
//   struct <Name> <sizeof>
//   field <Name>.<member> <offsetof> <sizeof>
//   const <name> <value>
//   reason <bit> <name>
#include <cstddef>
#include <cstdio>

#include "clock_events.h"
#include "nvml_abi.h"

namespace {

namespace nvml = xpuperf::nvml;

#define STRUCT(T) std::printf("struct %s %zu\n", #T, sizeof(nvml::T))
#define FIELD(T, m)                                                  \
  std::printf("field %s.%s %zu %zu\n", #T, #m, offsetof(nvml::T, m), \
              sizeof(static_cast<nvml::T*>(nullptr)->m))
#define CONSTANT(c) std::printf("const %s %llu\n", #c, static_cast<unsigned long long>(nvml::c))

void Structs() {
  STRUCT(Utilization);
  FIELD(Utilization, gpu);
  FIELD(Utilization, memory);
  STRUCT(MemoryV1);
  FIELD(MemoryV1, total);
  FIELD(MemoryV1, free);
  FIELD(MemoryV1, used);
  STRUCT(MemoryV2);
  FIELD(MemoryV2, version);
  FIELD(MemoryV2, total);
  FIELD(MemoryV2, reserved);
  FIELD(MemoryV2, free);
  FIELD(MemoryV2, used);
  STRUCT(TemperatureV1);
  FIELD(TemperatureV1, version);
  FIELD(TemperatureV1, sensorType);
  FIELD(TemperatureV1, temperature);
  STRUCT(PciInfo);
  FIELD(PciInfo, busIdLegacy);
  FIELD(PciInfo, domain);
  FIELD(PciInfo, bus);
  FIELD(PciInfo, device);
  FIELD(PciInfo, pciDeviceId);
  FIELD(PciInfo, pciSubSystemId);
  FIELD(PciInfo, busId);
  STRUCT(ProcessUtilizationSample);
  FIELD(ProcessUtilizationSample, pid);
  FIELD(ProcessUtilizationSample, timeStamp);
  FIELD(ProcessUtilizationSample, smUtil);
  FIELD(ProcessUtilizationSample, memUtil);
  FIELD(ProcessUtilizationSample, encUtil);
  FIELD(ProcessUtilizationSample, decUtil);
  STRUCT(ProcessInfoV2);
  FIELD(ProcessInfoV2, pid);
  FIELD(ProcessInfoV2, usedGpuMemory);
  FIELD(ProcessInfoV2, gpuInstanceId);
  FIELD(ProcessInfoV2, computeInstanceId);
  STRUCT(Value);
  STRUCT(FieldValue);
  FIELD(FieldValue, fieldId);
  FIELD(FieldValue, scopeId);
  FIELD(FieldValue, timestamp);
  FIELD(FieldValue, latencyUsec);
  FIELD(FieldValue, valueType);
  FIELD(FieldValue, nvmlReturn);
  FIELD(FieldValue, value);
  STRUCT(GpmSupport);
  FIELD(GpmSupport, version);
  FIELD(GpmSupport, isSupportedDevice);
  STRUCT(GpmMetric);
  FIELD(GpmMetric, metricId);
  FIELD(GpmMetric, nvmlReturn);
  FIELD(GpmMetric, value);
  FIELD(GpmMetric, shortName);
  FIELD(GpmMetric, longName);
  FIELD(GpmMetric, unit);
  FIELD(GpmMetricsGet, version);
  FIELD(GpmMetricsGet, numMetrics);
  FIELD(GpmMetricsGet, sample1);
  FIELD(GpmMetricsGet, sample2);
  FIELD(GpmMetricsGet, metrics);
  STRUCT(EventData);
  FIELD(EventData, device);
  FIELD(EventData, eventType);
  FIELD(EventData, eventData);
  FIELD(EventData, gpuInstanceId);
  FIELD(EventData, computeInstanceId);
}

void Constants() {
  CONSTANT(kSuccess);
  CONSTANT(kErrorUninitialized);
  CONSTANT(kErrorInvalidArgument);
  CONSTANT(kErrorNotSupported);
  CONSTANT(kErrorNoPermission);
  CONSTANT(kErrorNotFound);
  CONSTANT(kErrorInsufficientSize);
  CONSTANT(kErrorDriverNotLoaded);
  CONSTANT(kErrorTimeout);
  CONSTANT(kErrorFunctionNotFound);
  CONSTANT(kErrorGpuIsLost);
  CONSTANT(kErrorResetRequired);
  CONSTANT(kErrorArgumentVersionMismatch);
  CONSTANT(kErrorUnknown);
  CONSTANT(kDeviceNameBufferSize);
  CONSTANT(kDeviceUuidBufferSize);
  CONSTANT(kDriverVersionBufferSize);
  CONSTANT(kMemoryV2Version);
  CONSTANT(kTemperatureV1Version);
  CONSTANT(kTemperatureGpu);
  CONSTANT(kValueDouble);
  CONSTANT(kValueUnsignedInt);
  CONSTANT(kValueUnsignedLong);
  CONSTANT(kValueUnsignedLongLong);
  CONSTANT(kValueSignedLongLong);
  CONSTANT(kValueSignedInt);
  CONSTANT(kValueUnsignedShort);
  CONSTANT(kFieldEccSbeVolatileTotal);
  CONSTANT(kFieldEccDbeVolatileTotal);
  CONSTANT(kFieldEccSbeAggregateTotal);
  CONSTANT(kFieldEccDbeAggregateTotal);
  CONSTANT(kFieldRetiredSbe);
  CONSTANT(kFieldRetiredDbe);
  CONSTANT(kFieldRetiredPending);
  CONSTANT(kFieldMemoryTemperature);
  CONSTANT(kFieldRemappedCorrectable);
  CONSTANT(kFieldRemappedUncorrectable);
  CONSTANT(kFieldRemappedPending);
  CONSTANT(kFieldRemappedFailure);
  CONSTANT(kClockSm);
  CONSTANT(kClockMemory);
  CONSTANT(kPcieTxBytes);
  CONSTANT(kPcieRxBytes);
  CONSTANT(kMigEnabled);
  CONSTANT(kGpmSupportVersion);
  CONSTANT(kGpmMetricsGetVersion);
  CONSTANT(kGpmMetricArraySize);
  CONSTANT(kGpmSmOccupancy);
  CONSTANT(kGpmAnyTensorUtil);
  CONSTANT(kGpmDramBwUtil);
  CONSTANT(kGpmFp64Util);
  CONSTANT(kGpmFp32Util);
  CONSTANT(kGpmFp16Util);
  CONSTANT(kGpmPcieTxPerSec);
  CONSTANT(kGpmPcieRxPerSec);
  CONSTANT(kGpmNvlinkTotalRxPerSec);
  CONSTANT(kGpmNvlinkTotalTxPerSec);
  CONSTANT(kEventXidCriticalError);
}

}  // namespace

// The clock-event reason names the backend reports, "reason <bit> <name>".
void Reasons() {
  for (const xpuperf::nvidia::ClockEventReason& r : xpuperf::nvidia::ClockEventReasons()) {
    std::printf("reason %llu %s\n", static_cast<unsigned long long>(r.bit), r.name);
  }
}

int main() {
  Structs();
  Constants();
  Reasons();
  return 0;
}
