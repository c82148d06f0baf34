// Our own declarations of the NVML C ABI subset xpuperf uses (x86-64 Linux, natural alignment).
// Values and layouts are those of NVIDIA's nvml.h (13.x; unchanged since 11.x for everything here).
// The backend resolves each function with dlsym; the fake library in tests exports the same
// symbols with these types. Never include NVIDIA's nvml.h next to this file.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpuperf::nvml {

using Return = int;  // nvmlReturn_t: a 4-byte C enum

inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorTimeout = 10;
inline constexpr Return kErrorFunctionNotFound = 13;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorResetRequired = 16;
inline constexpr Return kErrorArgumentVersionMismatch = 25;
inline constexpr Return kErrorUnknown = 999;

// "NVML_ERROR_NOT_SUPPORTED" for 3; "NVML_RETURN_<n>" for codes this table does not know.
const char* ReturnName(Return code);

struct DeviceOpaque;
using Device = DeviceOpaque*;  // nvmlDevice_t
struct GpmSampleOpaque;
using GpmSample = GpmSampleOpaque*;  // nvmlGpmSample_t
struct EventSetOpaque;
using EventSet = EventSetOpaque*;  // nvmlEventSet_t

inline constexpr unsigned kDeviceNameBufferSize = 96;
inline constexpr unsigned kDeviceUuidBufferSize = 96;
inline constexpr unsigned kDriverVersionBufferSize = 80;

struct Utilization {  // nvmlUtilization_t
  unsigned int gpu;
  unsigned int memory;
};

struct MemoryV1 {  // nvmlMemory_t: used includes reserved
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct MemoryV2 {  // nvmlMemory_v2_t: used excludes reserved
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
inline constexpr unsigned int kMemoryV2Version = 0x02000028;  // sizeof | 2 << 24

struct TemperatureV1 {  // nvmlTemperature_v1_t
  unsigned int version;
  int sensorType;
  int temperature;
};
inline constexpr unsigned int kTemperatureV1Version = 0x0100000C;
inline constexpr int kTemperatureGpu = 0;

struct PciInfo {  // nvmlPciInfo_t
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

struct ProcessInfoV2 {  // nvmlProcessInfo_v2_t, the entry of the _v2 and _v3 process calls
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
struct ProcessInfoV1 {  // nvmlProcessInfo_v1_t, the entry of the unversioned call
  unsigned int pid;
  unsigned long long usedGpuMemory;
};
struct ProcessUtilizationSample {  // nvmlProcessUtilizationSample_t
  unsigned int pid;
  unsigned long long timeStamp;  // CPU time of the sample, µs (pass the newest back)
  unsigned int smUtil;           // % SM (3D and compute)
  unsigned int memUtil;          // % frame-buffer memory
  unsigned int encUtil;          // % encoder
  unsigned int decUtil;          // % decoder
};
// Early R535 drivers wrote 32-byte entries from the _v3 calls; buffers are sized for that.
inline constexpr size_t kLargestProcessEntry = 32;

union Value {  // nvmlValue_t
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  signed int siVal;
  unsigned short usVal;
};

enum ValueType : int {
  kValueDouble = 0,
  kValueUnsignedInt = 1,
  kValueUnsignedLong = 2,
  kValueUnsignedLongLong = 3,
  kValueSignedLongLong = 4,
  kValueSignedInt = 5,
  kValueUnsignedShort = 6,
};

struct FieldValue {  // nvmlFieldValue_t
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  Return nvmlReturn;
  Value value;
};

// Field ids for nvmlDeviceGetFieldValues.
inline constexpr unsigned kFieldEccSbeVolatileTotal = 3;
inline constexpr unsigned kFieldEccDbeVolatileTotal = 4;
inline constexpr unsigned kFieldEccSbeAggregateTotal = 5;
inline constexpr unsigned kFieldEccDbeAggregateTotal = 6;
inline constexpr unsigned kFieldRetiredSbe = 29;
inline constexpr unsigned kFieldRetiredDbe = 30;
inline constexpr unsigned kFieldRetiredPending = 31;
// NVLink error counters, the total over every lane (each group is lanes 0-5, then the total).
inline constexpr unsigned kFieldNvlinkCrcFlitTotal = 38;
inline constexpr unsigned kFieldNvlinkCrcDataTotal = 45;
inline constexpr unsigned kFieldNvlinkReplayTotal = 52;
inline constexpr unsigned kFieldNvlinkRecoveryTotal = 59;
inline constexpr unsigned kFieldMemoryTemperature = 82;
inline constexpr unsigned kFieldPcieReplayCounter = 94;
inline constexpr unsigned kFieldRemappedCorrectable = 142;
inline constexpr unsigned kFieldRemappedUncorrectable = 143;
inline constexpr unsigned kFieldRemappedPending = 144;
inline constexpr unsigned kFieldRemappedFailure = 145;

// nvmlTemperatureThresholds_t of nvmlDeviceGetTemperatureThreshold (a DeviceGetTemperatureFn).
inline constexpr int kTemperatureThresholdShutdown = 0;
inline constexpr int kTemperatureThresholdSlowdown = 1;
inline constexpr int kTemperatureThresholdMemoryMax = 2;
inline constexpr int kTemperatureThresholdGpuMax = 3;

inline constexpr int kClockSm = 1;
inline constexpr int kClockMemory = 2;
inline constexpr int kPcieTxBytes = 0;
inline constexpr int kPcieRxBytes = 1;
inline constexpr unsigned int kMigEnabled = 1;  // nvmlDeviceGetMigMode's "on"

struct GpmSupport {      // nvmlGpmSupport_t
  unsigned int version;  // 1 (raw, not the struct-version macro)
  unsigned int isSupportedDevice;
};
inline constexpr unsigned int kGpmSupportVersion = 1;

struct GpmMetric {  // nvmlGpmMetric_t
  unsigned int metricId;
  Return nvmlReturn;
  double value;
  const char* shortName;
  const char* longName;
  const char* unit;
};

// NVML_GPM_METRIC_MAX grew 98 -> 210 -> 333 with the struct version left at 1; the array is
// over-allocated so that a library built with any of them stays inside it.
inline constexpr unsigned kGpmMetricArraySize = 512;
struct GpmMetricsGet {   // nvmlGpmMetricsGet_t
  unsigned int version;  // 1
  unsigned int numMetrics;
  GpmSample sample1;
  GpmSample sample2;
  GpmMetric metrics[kGpmMetricArraySize];
};
inline constexpr unsigned int kGpmMetricsGetVersion = 1;

// GPM metric ids.
inline constexpr unsigned kGpmSmOccupancy = 3;
inline constexpr unsigned kGpmAnyTensorUtil = 5;
inline constexpr unsigned kGpmDramBwUtil = 10;
inline constexpr unsigned kGpmFp64Util = 11;
inline constexpr unsigned kGpmFp32Util = 12;
inline constexpr unsigned kGpmFp16Util = 13;
inline constexpr unsigned kGpmPcieTxPerSec = 20;
inline constexpr unsigned kGpmPcieRxPerSec = 21;
inline constexpr unsigned kGpmNvlinkTotalRxPerSec = 60;
inline constexpr unsigned kGpmNvlinkTotalTxPerSec = 61;

struct EventData {  // nvmlEventData_t (the 32-byte layout of nvmlEventSetWait_v2)
  Device device;
  unsigned long long eventType;
  unsigned long long eventData;  // the XID for kEventXidCriticalError
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
inline constexpr unsigned long long kEventXidCriticalError = 0x8;

static_assert(sizeof(Utilization) == 8);
static_assert(sizeof(MemoryV1) == 24);
static_assert(sizeof(MemoryV2) == 40);
static_assert(sizeof(TemperatureV1) == 12);
static_assert(sizeof(PciInfo) == 68);
static_assert(sizeof(ProcessInfoV2) == 24);
static_assert(sizeof(ProcessInfoV1) == 16);
static_assert(sizeof(ProcessUtilizationSample) == 32);
static_assert(sizeof(FieldValue) == 40);
static_assert(sizeof(GpmSupport) == 8);
static_assert(sizeof(GpmMetric) == 40);
static_assert(sizeof(EventData) == 32);

// Function pointer types, one per symbol (argument order as in nvml.h).
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using SystemGetDriverVersionFn = Return (*)(char*, unsigned int);
using SystemGetCudaDriverVersionFn = Return (*)(int*);
// pid, buffer, buffer length: the process name, truncated to the buffer.
using SystemGetProcessNameFn = Return (*)(unsigned int, char*, unsigned int);
using DeviceGetCountFn = Return (*)(unsigned int*);
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);
using DeviceGetStringFn = Return (*)(Device, char*, unsigned int);  // name, UUID
using DeviceGetPciInfoFn = Return (*)(Device, PciInfo*);
using DeviceGetCudaComputeCapabilityFn = Return (*)(Device, int*, int*);
using DeviceGetUintFn = Return (*)(Device, unsigned int*);  // architecture, power
using DeviceGetMemoryInfoFn = Return (*)(Device, MemoryV1*);
using DeviceGetMemoryInfoV2Fn = Return (*)(Device, MemoryV2*);
using DeviceGetUtilizationRatesFn = Return (*)(Device, Utilization*);
using DeviceGetTotalEnergyConsumptionFn = Return (*)(Device, unsigned long long*);
using DeviceGetTemperatureFn = Return (*)(Device, int, unsigned int*);
using DeviceGetTemperatureVFn = Return (*)(Device, TemperatureV1*);
using DeviceGetClockInfoFn = Return (*)(Device, int, unsigned int*);  // current and max clocks
// nvmlDeviceGetEccMode(handle, current, pending); nvmlEnableState_t is a 4-byte enum (1 = on).
// nvmlDeviceGetPersistenceMode(handle, mode) is a DeviceGetUintFn.
using DeviceGetEccModeFn = Return (*)(Device, unsigned int*, unsigned int*);
// nvmlDeviceGetPowerManagementLimitConstraints(handle, min mW, max mW); the power limit calls
// (nvmlDeviceGetPowerManagementLimit, …DefaultLimit, nvmlDeviceGetEnforcedPowerLimit), the PCIe
// link calls (nvmlDeviceGetCurr/MaxPcieLinkGeneration/Width) and nvmlDeviceGetPerformanceState
// (nvmlPstates_t, a 4-byte enum: 0..15, 32 unknown) are DeviceGetUintFn.
using DeviceGetLimitConstraintsFn = Return (*)(Device, unsigned int*, unsigned int*);
using DeviceGetClocksEventReasonsFn = Return (*)(Device, unsigned long long*);
using DeviceGetPcieThroughputFn = Return (*)(Device, int, unsigned int*);
using DeviceGetFieldValuesFn = Return (*)(Device, int, FieldValue*);
using DeviceGetRunningProcessesFn = Return (*)(Device, unsigned int*, void*);
// samples (NULL asks for the count), in: capacity / out: count, lastSeenTimeStamp (µs, by value).
using DeviceGetProcessUtilizationFn = Return (*)(Device, ProcessUtilizationSample*, unsigned int*,
                                                 unsigned long long);
using DeviceGetCpuAffinityFn = Return (*)(Device, unsigned int, unsigned long*);
using GpmQueryDeviceSupportFn = Return (*)(Device, GpmSupport*);
using GpmSampleAllocFn = Return (*)(GpmSample*);
using GpmSampleFreeFn = Return (*)(GpmSample);
using GpmSampleGetFn = Return (*)(Device, GpmSample);
using GpmMetricsGetFn = Return (*)(GpmMetricsGet*);
using EventSetCreateFn = Return (*)(EventSet*);
using EventSetFreeFn = Return (*)(EventSet);
using DeviceRegisterEventsFn = Return (*)(Device, unsigned long long, EventSet);
using DeviceGetSupportedEventTypesFn = Return (*)(Device, unsigned long long*);
using EventSetWaitFn = Return (*)(EventSet, EventData*, unsigned int);
// MIG (Ampere and newer, Linux): nvmlDeviceGetMigMode(handle, current, pending);
// nvmlDeviceGetMaxMigDeviceCount / nvmlDeviceGetGpuInstanceId / nvmlDeviceGetComputeInstanceId /
// nvmlDeviceIsMigDeviceHandle are DeviceGetUintFn; nvmlDeviceGetMigDeviceHandleByIndex(parent,
// index, out MIG handle). MIG handles have the Device type.
using DeviceGetMigModeFn = Return (*)(Device, unsigned int*, unsigned int*);
using DeviceGetMigDeviceHandleByIndexFn = Return (*)(Device, unsigned int, Device*);

}  // namespace xpuperf::nvml
