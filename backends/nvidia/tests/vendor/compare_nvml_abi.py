"""Compares xpuperf's NVML declarations (src/nvml_abi.h) with NVIDIA's own nvidia-ml-py (pynvml).

Usage: compare_nvml_abi.py NVML_ABI_LAYOUT
  NVML_ABI_LAYOUT is the built helper that prints our struct sizes, field offsets, constants and
  clock-event reason names.

Every struct the backend passes to NVML is compared with pynvml's ctypes definition (size, and
offset and size of each field), every constant with pynvml's (return codes, struct versions, field
ids, clock and PCIe counter enums, GPM metric ids and versions, value types, the XID event bit),
and the clock-event reason table with pynvml's nvmlClocks{Event,Throttle}Reason* bits, names
included. Any difference fails. A self-check first requires that altered layouts are caught.
"""

import copy
import ctypes
import re
import subprocess
import sys

import pynvml

# Our struct -> pynvml's ctypes class.
STRUCTS = {
    "Utilization": pynvml.c_nvmlUtilization_t,
    "MemoryV1": pynvml.c_nvmlMemory_t,
    "MemoryV2": pynvml.c_nvmlMemory_v2_t,
    "TemperatureV1": pynvml.c_nvmlTemperature_v1_t,
    "PciInfo": pynvml.nvmlPciInfo_t,
    "ProcessInfoV2": pynvml.c_nvmlProcessInfo_v2_t,
    "ProcessUtilizationSample": pynvml.c_nvmlProcessUtilizationSample_t,
    "Value": pynvml.c_nvmlValue_t,
    "FieldValue": pynvml.c_nvmlFieldValue_t,
    "GpmSupport": pynvml.c_nvmlGpmSupport_t,
    "GpmMetric": pynvml.c_nvmlGpmMetric_t,
    "GpmMetricsGet": pynvml.c_nvmlGpmMetricsGet_t,
    "EventData": pynvml.c_nvmlEventData_t,
}

# pynvml nests the three GPM metric strings in metricInfo.
NESTED = {
    ("GpmMetric", "shortName"): ("metricInfo", "shortName"),
    ("GpmMetric", "longName"): ("metricInfo", "longName"),
    ("GpmMetric", "unit"): ("metricInfo", "unit"),
}

# Our constant -> pynvml's name.
CONSTANTS = {
    "kSuccess": "NVML_SUCCESS",
    "kErrorUninitialized": "NVML_ERROR_UNINITIALIZED",
    "kErrorInvalidArgument": "NVML_ERROR_INVALID_ARGUMENT",
    "kErrorNotSupported": "NVML_ERROR_NOT_SUPPORTED",
    "kErrorNoPermission": "NVML_ERROR_NO_PERMISSION",
    "kErrorNotFound": "NVML_ERROR_NOT_FOUND",
    "kErrorInsufficientSize": "NVML_ERROR_INSUFFICIENT_SIZE",
    "kErrorDriverNotLoaded": "NVML_ERROR_DRIVER_NOT_LOADED",
    "kErrorTimeout": "NVML_ERROR_TIMEOUT",
    "kErrorFunctionNotFound": "NVML_ERROR_FUNCTION_NOT_FOUND",
    "kErrorGpuIsLost": "NVML_ERROR_GPU_IS_LOST",
    "kErrorResetRequired": "NVML_ERROR_RESET_REQUIRED",
    "kErrorArgumentVersionMismatch": "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
    "kErrorUnknown": "NVML_ERROR_UNKNOWN",
    "kDeviceNameBufferSize": "NVML_DEVICE_NAME_V2_BUFFER_SIZE",
    "kDeviceUuidBufferSize": "NVML_DEVICE_UUID_V2_BUFFER_SIZE",
    "kDriverVersionBufferSize": "NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE",
    "kMemoryV2Version": "nvmlMemory_v2",
    "kTemperatureV1Version": "nvmlTemperature_v1",
    "kTemperatureGpu": "NVML_TEMPERATURE_GPU",
    "kValueDouble": "NVML_VALUE_TYPE_DOUBLE",
    "kValueUnsignedInt": "NVML_VALUE_TYPE_UNSIGNED_INT",
    "kValueUnsignedLong": "NVML_VALUE_TYPE_UNSIGNED_LONG",
    "kValueUnsignedLongLong": "NVML_VALUE_TYPE_UNSIGNED_LONG_LONG",
    "kValueSignedLongLong": "NVML_VALUE_TYPE_SIGNED_LONG_LONG",
    "kValueSignedInt": "NVML_VALUE_TYPE_SIGNED_INT",
    "kValueUnsignedShort": "NVML_VALUE_TYPE_UNSIGNED_SHORT",
    "kFieldEccSbeVolatileTotal": "NVML_FI_DEV_ECC_SBE_VOL_TOTAL",
    "kFieldEccDbeVolatileTotal": "NVML_FI_DEV_ECC_DBE_VOL_TOTAL",
    "kFieldEccSbeAggregateTotal": "NVML_FI_DEV_ECC_SBE_AGG_TOTAL",
    "kFieldEccDbeAggregateTotal": "NVML_FI_DEV_ECC_DBE_AGG_TOTAL",
    "kFieldRetiredSbe": "NVML_FI_DEV_RETIRED_SBE",
    "kFieldRetiredDbe": "NVML_FI_DEV_RETIRED_DBE",
    "kFieldRetiredPending": "NVML_FI_DEV_RETIRED_PENDING",
    "kFieldMemoryTemperature": "NVML_FI_DEV_MEMORY_TEMP",
    "kFieldRemappedCorrectable": "NVML_FI_DEV_REMAPPED_COR",
    "kFieldRemappedUncorrectable": "NVML_FI_DEV_REMAPPED_UNC",
    "kFieldRemappedPending": "NVML_FI_DEV_REMAPPED_PENDING",
    "kFieldRemappedFailure": "NVML_FI_DEV_REMAPPED_FAILURE",
    "kClockSm": "NVML_CLOCK_SM",
    "kClockMemory": "NVML_CLOCK_MEM",
    "kPcieTxBytes": "NVML_PCIE_UTIL_TX_BYTES",
    "kPcieRxBytes": "NVML_PCIE_UTIL_RX_BYTES",
    "kMigEnabled": "NVML_DEVICE_MIG_ENABLE",
    "kGpmSupportVersion": "NVML_GPM_SUPPORT_VERSION",
    "kGpmMetricsGetVersion": "NVML_GPM_METRICS_GET_VERSION",
    "kGpmSmOccupancy": "NVML_GPM_METRIC_SM_OCCUPANCY",
    "kGpmAnyTensorUtil": "NVML_GPM_METRIC_ANY_TENSOR_UTIL",
    "kGpmDramBwUtil": "NVML_GPM_METRIC_DRAM_BW_UTIL",
    "kGpmFp64Util": "NVML_GPM_METRIC_FP64_UTIL",
    "kGpmFp32Util": "NVML_GPM_METRIC_FP32_UTIL",
    "kGpmFp16Util": "NVML_GPM_METRIC_FP16_UTIL",
    "kGpmPcieTxPerSec": "NVML_GPM_METRIC_PCIE_TX_PER_SEC",
    "kGpmPcieRxPerSec": "NVML_GPM_METRIC_PCIE_RX_PER_SEC",
    "kGpmNvlinkTotalRxPerSec": "NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC",
    "kGpmNvlinkTotalTxPerSec": "NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC",
    "kEventXidCriticalError": "nvmlEventTypeXidCriticalError",
}


def read_layout(helper):
  out = subprocess.run([helper], capture_output=True, text=True, check=True).stdout
  layout = {"struct": {}, "field": {}, "const": {}, "reason": {}}
  for line in out.splitlines():
    kind, name, *values = line.split()
    if kind == "struct":
      layout["struct"][name] = int(values[0])
    elif kind == "field":
      layout["field"][name] = (int(values[0]), int(values[1]))
    elif kind == "const":
      layout["const"][name] = int(values[0])
    elif kind == "reason":
      layout["reason"][int(name)] = values[0]
  return layout


def vendor_field(cls, struct, member):
  """(offset, size) of a member in pynvml's class, through nested structs where it nests them."""
  path = NESTED.get((struct, member), (member,))
  offset = 0
  for part in path:
    descriptor = getattr(cls, part, None)
    if descriptor is None:
      return None
    offset += descriptor.offset
    size = descriptor.size
    cls = dict(cls._fields_)[part]
  return offset, size


def snake(camel):
  return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def vendor_reasons():
  """Single-bit reasons pynvml defines, bit -> snake_case name (the event names win)."""
  reasons = {}
  for prefix in ("nvmlClocksThrottleReason", "nvmlClocksEventReason"):
    for name in dir(pynvml):
      if not name.startswith(prefix) or name[len(prefix):] in ("None", "All", "UserDefinedClocks"):
        continue
      value = getattr(pynvml, name)
      if isinstance(value, int) and value and value & (value - 1) == 0:
        reasons[value] = snake(name[len(prefix):])
  return reasons


def compare(layout):
  problems = []
  for struct, cls in STRUCTS.items():
    if struct in layout["struct"] and layout["struct"][struct] != ctypes.sizeof(cls):
      problems.append(f"sizeof {struct}: {layout['struct'][struct]} here, "
                      f"{ctypes.sizeof(cls)} in pynvml {cls.__name__}")
  for name, (offset, size) in layout["field"].items():
    struct, member = name.split(".")
    cls = STRUCTS[struct]
    theirs = vendor_field(cls, struct, member)
    if theirs is None:
      problems.append(f"{name}: pynvml {cls.__name__} has no such field")
      continue
    if struct == "GpmMetricsGet" and member == "metrics":
      # Our array is over-allocated (512 entries); only where it starts must agree.
      theirs = (theirs[0], size)
    if (offset, size) != theirs:
      problems.append(f"{name}: offset {offset} size {size} here, offset {theirs[0]} "
                      f"size {theirs[1]} in pynvml {cls.__name__}")
  for ours, theirs in CONSTANTS.items():
    if ours not in layout["const"]:
      problems.append(f"constant {ours}: not printed by the layout helper")
    elif layout["const"][ours] != getattr(pynvml, theirs):
      problems.append(f"constant {ours} = {layout['const'][ours]:#x} here, {theirs} = "
                      f"{getattr(pynvml, theirs):#x} in pynvml")
  if layout["const"].get("kGpmMetricArraySize", 0) < pynvml.NVML_GPM_METRIC_MAX:
    problems.append(f"kGpmMetricArraySize {layout['const'].get('kGpmMetricArraySize')} is "
                    f"smaller than pynvml's NVML_GPM_METRIC_MAX {pynvml.NVML_GPM_METRIC_MAX}: a "
                    "library built with that MAX could write past our buffer")
  theirs = vendor_reasons()
  for bit in sorted(set(theirs) | set(layout["reason"])):
    if layout["reason"].get(bit) != theirs.get(bit):
      problems.append(f"clock-event reason {bit:#x}: {layout['reason'].get(bit)!r} here, "
                      f"{theirs.get(bit)!r} in pynvml")
  return problems


def self_check(layout):
  missed = []
  alterations = {
      "memory v2 offset": lambda l: l["field"].__setitem__("MemoryV2.total", (4, 8)),
      "process entry size": lambda l: l["struct"].__setitem__("ProcessInfoV2", 16),
      "memory v2 version": lambda l: l["const"].__setitem__("kMemoryV2Version", 2),
      "reason name": lambda l: l["reason"].__setitem__(4, "power_cap"),
  }
  for name, alter in alterations.items():
    altered = copy.deepcopy(layout)
    alter(altered)
    if not compare(altered):
      missed.append(name)
  return missed


def main():
  if len(sys.argv) != 2:
    print("usage: compare_nvml_abi.py NVML_ABI_LAYOUT", file=sys.stderr)
    return 2
  layout = read_layout(sys.argv[1])
  missed = self_check(layout)
  if missed:
    print(f"self-check: the comparison missed {', '.join(missed)}", file=sys.stderr)
    return 1
  problems = compare(layout)
  for problem in problems:
    print(problem)
  if problems:
    print(f"{len(problems)} difference(s) between src/nvml_abi.h and nvidia-ml-py "
          f"{pynvml.__name__}")
    return 1
  print(f"src/nvml_abi.h matches nvidia-ml-py: {len(layout['struct'])} structs, "
        f"{len(layout['field'])} fields, {len(layout['const'])} constants, "
        f"{len(layout['reason'])} clock-event reasons")
  return 0


if __name__ == "__main__":
  sys.exit(main())
