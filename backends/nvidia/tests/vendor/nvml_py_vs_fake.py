"""Runs NVIDIA's nvidia-ml-py (pynvml) against xpuperf's fake libnvidia-ml.so.1, then xpuperf.

Usage: nvml_py_vs_fake.py FAKE_NVML_DIR SCENARIO XPUPERF

1. pynvml loads the fake (LD_LIBRARY_PATH=FAKE_NVML_DIR; the mapped file is checked) and decodes,
   with NVIDIA's own ctypes structs, every structure the backend reads: memory v1 and v2, PCI
   info, compute processes v2 and v3 (and their names), per-process utilisation, utilisation,
   field values, GPM metrics and clock-event reasons, plus power, energy, temperature, clocks and PCIe throughput. Each
   value must be the one the scenario file means (README.md of fake_nvml: v1 `used` = used +
   reserved, GPM formulas from the scripted counters ...): NVIDIA's structs vouch for the fake.
2. `xpuperf metrics --backend nvidia --json` against the same fake must report the same values
   as pynvml decoded, in xpuperf's units.
"""

import json
import os
import re
import subprocess
import sys

GPM_IDS = {3: "sm_occupancy", 5: "tensor_active", 11: "fp64_active", 12: "fp32_active",
           13: "fp16_active"}
GPM_RATES = {20: "pcie_tx_bytes", 21: "pcie_rx_bytes", 60: "nvlink_rx_bytes",
             61: "nvlink_tx_bytes"}


def reexec_with_fake(fake_dir):
  if os.environ.get("XPUPERF_NVML_PY_CHILD") == "1":
    return
  env = dict(os.environ, XPUPERF_NVML_PY_CHILD="1",
             LD_LIBRARY_PATH=fake_dir + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
  sys.exit(subprocess.run([sys.executable] + sys.argv, env=env, check=False).returncode)


def load_scenario(path):
  scenario = {"global": {}, "gpus": {}}
  with open(path) as f:
    for line in f:
      line = line.split("#", 1)[0].strip()
      if not line:
        continue
      key, _, value = (part.strip() for part in line.partition("="))
      if key.startswith("gpu."):
        _, index, rest = key.split(".", 2)
        scenario["gpus"].setdefault(int(index), {})[rest] = value
      else:
        scenario["global"][key] = value
  return scenario


def number(text):
  return int(text, 0)


def text(value):
  """pynvml gives char arrays as str or bytes depending on the field."""
  return value.decode() if isinstance(value, bytes) else value


class Checker:

  def __init__(self):
    self.failures = []
    self.checked = 0

  def equal(self, what, got, want):
    self.checked += 1
    if got != want:
      self.failures.append(f"{what}: {got!r}, expected {want!r}")

  def near(self, what, got, want, tolerance=1e-6):
    self.checked += 1
    if got is None or want is None or abs(got - want) > tolerance * max(1.0, abs(want)):
      self.failures.append(f"{what}: {got!r}, expected {want!r}")


def nvml_error(pynvml, call, *arguments):
  """The NVML return code of a call that is expected to fail (0 when it succeeded)."""
  try:
    call(*arguments)
  except pynvml.NVMLError as error:
    return error.value
  return 0


def expected_gpm(gpu):
  """Metric id -> value from scripted samples 0 and 1 (fake_nvml README's formulas)."""
  def delta(name):
    a, b = gpu.get(f"gpm.0.{name}"), gpu.get(f"gpm.1.{name}")
    return None if a is None or b is None else float(b) - float(a)
  seconds = delta("time_ns") / 1e9
  out = {}
  for metric, counter in GPM_IDS.items():
    if delta(counter) is not None:
      out[metric] = 100.0 * delta(counter) / delta("cycles")
  if delta("dram_bytes") is not None:
    out[10] = 100.0 * delta("dram_bytes") / (seconds * float(gpu["gpm.dram_peak_bytes_per_second"]))
  for metric, counter in GPM_RATES.items():
    if delta(counter) is not None:
      out[metric] = delta(counter) / seconds / 2**20
  return out


def check_pynvml(check, pynvml, scenario):
  """Decodes every structure with pynvml; returns what it read, for the xpuperf comparison."""
  read = {}
  check.equal("driver version", pynvml.nvmlSystemGetDriverVersion(),
              scenario["global"]["driver_version"])
  check.equal("CUDA driver version", pynvml.nvmlSystemGetCudaDriverVersion_v2(),
              int(scenario["global"]["cuda_driver_version"]))
  check.equal("device count", pynvml.nvmlDeviceGetCount(), len(scenario["gpus"]))
  names = {key.split(".")[1]: value for key, value in scenario["global"].items()
           if key.startswith("process.") and key.endswith(".name")}
  for index, gpu in sorted(scenario["gpus"].items()):
    g = f"gpu{index}"
    h = pynvml.nvmlDeviceGetHandleByIndex(index)
    r = read[index] = {"gpm": {}}
    check.equal(f"{g} name", pynvml.nvmlDeviceGetName(h), gpu["name"])
    check.equal(f"{g} uuid", pynvml.nvmlDeviceGetUUID(h), gpu["uuid"])
    # PCI info (nvmlPciInfo_t, _v3).
    pci = pynvml.nvmlDeviceGetPciInfo_v3(h)
    domain, bus, rest = gpu["bus_id"].split(":")
    check.equal(f"{g} pci busId", text(pci.busId), gpu["bus_id"])
    check.equal(f"{g} pci domain/bus/device", (pci.domain, pci.bus, pci.device),
                (int(domain, 16), int(bus, 16), int(rest.split(".")[0], 16)))
    check.equal(f"{g} pci busIdLegacy", text(pci.busIdLegacy),
                f"{int(domain, 16):04X}:{bus}:{rest}")
    check.equal(f"{g} pci device id", pci.pciDeviceId, number(gpu.get("pci_device_id", "0")))
    # Memory v1: used includes reserved; v2: reserved apart.
    total, reserved, used = (number(gpu[k]) for k in ("memory_total", "memory_reserved",
                                                      "memory_used"))
    v1 = pynvml.nvmlDeviceGetMemoryInfo(h)
    check.equal(f"{g} memory v1 (total, free, used)", (v1.total, v1.free, v1.used),
                (total, total - used - reserved, used + reserved))
    v2 = pynvml.nvmlDeviceGetMemoryInfo(h, version=pynvml.nvmlMemory_v2)
    check.equal(f"{g} memory v2 (total, reserved, free, used)",
                (v2.total, v2.reserved, v2.free, v2.used),
                (total, reserved, total - used - reserved, used))
    r["memory"] = (v2.total, v2.reserved, v2.used)
    # Utilisation.
    u = pynvml.nvmlDeviceGetUtilizationRates(h)
    check.equal(f"{g} utilization gpu", u.gpu, number(gpu["utilization_gpu"]))
    if "utilization_memory" in gpu:
      check.equal(f"{g} utilization memory", u.memory, number(gpu["utilization_memory"]))
    r["utilization_gpu"] = u.gpu
    # Power, energy, temperature, clocks.
    r["power_mw"] = pynvml.nvmlDeviceGetPowerUsage(h)
    check.equal(f"{g} power mW", r["power_mw"], number(gpu["power_mw"]))
    refused = number(gpu.get("error.nvmlDeviceGetTotalEnergyConsumption", "0"))
    if refused:
      check.equal(f"{g} energy refused",
                  nvml_error(pynvml, pynvml.nvmlDeviceGetTotalEnergyConsumption, h), refused)
    else:
      r["energy_mj"] = pynvml.nvmlDeviceGetTotalEnergyConsumption(h)
      check.equal(f"{g} energy mJ", r["energy_mj"], number(gpu["energy_mj"]))
    r["temperature"] = pynvml.nvmlDeviceGetTemperatureV(h, pynvml.NVML_TEMPERATURE_GPU)
    check.equal(f"{g} temperature (v1 struct)", r["temperature"], number(gpu["temperature_gpu"]))
    check.equal(f"{g} temperature (legacy)",
                pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU),
                number(gpu["temperature_gpu"]))
    r["clock_sm"] = pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM)
    r["clock_mem"] = pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM)
    check.equal(f"{g} clocks MHz", (r["clock_sm"], r["clock_mem"]),
                (number(gpu["clock_sm_mhz"]), number(gpu["clock_memory_mhz"])))
    # Clock-event reasons (current; supported where scripted).
    r["events"] = pynvml.nvmlDeviceGetCurrentClocksEventReasons(h)
    check.equal(f"{g} clock events", r["events"], number(gpu["clock_events"]))
    if "clock_events_supported" in gpu:
      r["events_supported"] = pynvml.nvmlDeviceGetSupportedClocksEventReasons(h)
      check.equal(f"{g} supported clock events", r["events_supported"],
                  number(gpu["clock_events_supported"]))
    # PCIe throughput (KB/s).
    if "error.nvmlDeviceGetPcieThroughput" not in gpu:
      r["pcie"] = (pynvml.nvmlDeviceGetPcieThroughput(h, pynvml.NVML_PCIE_UTIL_TX_BYTES),
                   pynvml.nvmlDeviceGetPcieThroughput(h, pynvml.NVML_PCIE_UTIL_RX_BYTES))
      check.equal(f"{g} PCIe KB/s", r["pcie"],
                  (number(gpu["pcie_tx_kbps"]), number(gpu["pcie_rx_kbps"])))
    # Field values (c_nvmlFieldValue_t): scripted ids succeed, an unscripted one says so.
    scripted = sorted(int(k.split(".")[1]) for k in gpu if k.startswith("field."))
    unscripted = pynvml.NVML_FI_DEV_NVLINK_BANDWIDTH_C0_TOTAL
    values = pynvml.nvmlDeviceGetFieldValues(h, scripted + [unscripted])
    r["fields"] = {}
    for field in values[:len(scripted)]:
      member = "uiVal" if field.valueType == pynvml.NVML_VALUE_TYPE_UNSIGNED_INT else "ullVal"
      check.equal(f"{g} field {field.fieldId}", (field.nvmlReturn, getattr(field.value, member)),
                  (0, number(gpu[f"field.{field.fieldId}"])))
      r["fields"][field.fieldId] = getattr(field.value, member)
    check.equal(f"{g} unscripted field", values[len(scripted)].nvmlReturn,
                pynvml.NVML_ERROR_NOT_SUPPORTED)
    # Compute processes, v2 and v3 entries, and their names.
    want = []
    for entry in filter(None, gpu.get("processes", "").split(",")):
      pid, memory = entry.split(":")
      want.append((int(pid), int(memory), 0xFFFFFFFF, 0xFFFFFFFF))
    for version, call in (("v2", pynvml.nvmlDeviceGetComputeRunningProcesses_v2),
                          ("v3", pynvml.nvmlDeviceGetComputeRunningProcesses_v3)):
      got = [(p.pid, p.usedGpuMemory, p.gpuInstanceId, p.computeInstanceId) for p in call(h)]
      check.equal(f"{g} processes {version}", got, want)
    r["processes"] = {}
    for pid, memory, _, _ in want:
      try:
        name = pynvml.nvmlSystemGetProcessName(pid)
      except pynvml.NVMLError_NotFound:
        name = None
      check.equal(f"process {pid} name", name, names.get(str(pid)))
      r["processes"][pid] = (memory, name)
    # Per-process utilisation (c_nvmlProcessUtilizationSample_t): pid, sm, mem, enc, dec.
    r["process_utilization"] = {}
    if "process_utilization" in gpu:
      want = {}
      for entry in filter(None, gpu["process_utilization"].split(",")):
        pid, sm, mem, enc, dec = (int(x) for x in entry.split(":"))
        want[pid] = (sm, mem, enc, dec)
      try:
        got = {p.pid: (p.smUtil, p.memUtil, p.encUtil, p.decUtil)
               for p in pynvml.nvmlDeviceGetProcessUtilization(h, 0)}
      except pynvml.NVMLError_NotFound:
        got = {}
      check.equal(f"{g} process utilisation", got, want)
      r["process_utilization"] = got
    # GPM (c_nvmlGpmSupport_t, c_nvmlGpmMetricsGet_t with NVIDIA's MAX).
    if gpu.get("gpm_supported") == "1":
      support = pynvml.nvmlGpmQueryDeviceSupport(h)
      check.equal(f"{g} GPM supported", support.isSupportedDevice, 1)
      first, second = pynvml.nvmlGpmSampleAlloc(), pynvml.nvmlGpmSampleAlloc()
      pynvml.nvmlGpmSampleGet(h, first)
      pynvml.nvmlGpmSampleGet(h, second)
      request = pynvml.c_nvmlGpmMetricsGet_t()
      request.version = pynvml.NVML_GPM_METRICS_GET_VERSION
      ids = sorted(expected_gpm(gpu))
      request.numMetrics = len(ids)
      request.sample1, request.sample2 = first, second
      for i, metric in enumerate(ids):
        request.metrics[i].metricId = metric
      pynvml.nvmlGpmMetricsGet(request)
      for i, metric in enumerate(ids):
        m = request.metrics[i]
        check.equal(f"{g} GPM {metric} status", m.nvmlReturn, 0)
        check.near(f"{g} GPM {metric}", m.value, expected_gpm(gpu)[metric])
        r["gpm"][metric] = m.value
      pynvml.nvmlGpmSampleFree(first)
      pynvml.nvmlGpmSampleFree(second)
  return read


def xpuperf_json(xpuperf, fake_dir, scenario_path):
  env = dict(os.environ, XPUPERF_NVML_LIBRARY=os.path.join(fake_dir, "libnvidia-ml.so.1"),
             XPUPERF_FAKE_NVML_SCENARIO=scenario_path)
  env.pop("LD_LIBRARY_PATH", None)
  result = subprocess.run([xpuperf, "metrics", "--backend", "nvidia", "--json", "--window", "0.3"],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
  if result.returncode != 0:
    raise SystemExit(f"xpuperf metrics failed ({result.returncode}): {result.stderr}")
  return json.loads(result.stdout)


def samples(doc, metric, device):
  for reading in doc["readings"]:
    if reading["metric"] == metric and reading["device"] == device:
      return reading.get("samples", [])
  return []


def value(doc, metric, device, **labels):
  for s in samples(doc, metric, device):
    if all(s["labels"].get(k) == v for k, v in labels.items()):
      return s.get("value")
  return None


def check_xpuperf(check, doc, read, reasons):
  for index, r in sorted(read.items()):
    d = f"nvidia{index}"
    total, reserved, used = r["memory"]
    check.equal(f"xpuperf {d} memory total", value(doc, "memory_total_bytes", d), float(total))
    check.equal(f"xpuperf {d} memory used (v2)", value(doc, "memory_used_bytes", d), float(used))
    check.equal(f"xpuperf {d} memory reserved", value(doc, "memory_reserved_bytes", d),
                float(reserved))
    check.equal(f"xpuperf {d} duty cycle", value(doc, "duty_cycle_percent", d),
                float(r["utilization_gpu"]))
    check.near(f"xpuperf {d} power W", value(doc, "power_watts", d), r["power_mw"] / 1000)
    if "energy_mj" in r:
      check.near(f"xpuperf {d} energy J", value(doc, "energy_joules", d), r["energy_mj"] / 1000)
    check.equal(f"xpuperf {d} temperature", value(doc, "temperature_celsius", d, sensor="gpu"),
                float(r["temperature"]))
    check.near(f"xpuperf {d} SM clock Hz", value(doc, "clock_hertz", d, type="sm"),
               r["clock_sm"] * 1e6)
    check.near(f"xpuperf {d} memory clock Hz", value(doc, "clock_hertz", d, type="memory"),
               r["clock_mem"] * 1e6)
    for bit, name in reasons.items():
      supported = r.get("events_supported")
      if supported is not None and not supported & bit:
        continue
      check.equal(f"xpuperf {d} clock event {name}",
                  value(doc, "clock_event_active", d, reason=name),
                  1.0 if r["events"] & bit else 0.0)
    for pid, (memory, name) in r["processes"].items():
      found = [s for s in samples(doc, "process_memory_bytes", d)
               if s["labels"].get("pid") == str(pid)]
      check.equal(f"xpuperf {d} process {pid}",
                  [(s["value"], s["labels"].get("command")) for s in found],
                  [(float(memory), name)])
    for pid, (sm, mem, enc, dec) in r["process_utilization"].items():
      for engine, percent in (("sm", sm), ("memory", mem), ("encoder", enc), ("decoder", dec)):
        check.equal(f"xpuperf {d} process {pid} {engine} busy",
                    value(doc, "process_engine_busy_percent", d, pid=str(pid), engine=engine),
                    float(percent))
    if 5 in r["gpm"]:
      check.near(f"xpuperf {d} tensor utilisation (GPM 5)",
                 value(doc, "tensorcore_utilization_percent", d), r["gpm"][5])
      check.near(f"xpuperf {d} SM occupancy (GPM 3)", value(doc, "sm_occupancy_percent", d),
                 r["gpm"][3])
      check.near(f"xpuperf {d} DRAM bandwidth (GPM 10)",
                 value(doc, "memory_bandwidth_utilization_percent", d), r["gpm"][10])


def main():
  if len(sys.argv) != 4:
    print("usage: nvml_py_vs_fake.py FAKE_NVML_DIR SCENARIO XPUPERF", file=sys.stderr)
    return 2
  fake_dir, scenario_path, xpuperf = sys.argv[1:]
  if os.environ.get("XPUPERF_SANITIZED"):
    print(f"skipped: the fake libnvidia-ml.so.1 of this build is instrumented "
          f"({os.environ['XPUPERF_SANITIZED']}) and an uninstrumented Python cannot load it; "
          "the normal build runs this check")
    return 77
  reexec_with_fake(fake_dir)
  os.environ["XPUPERF_FAKE_NVML_SCENARIO"] = scenario_path
  import pynvml  # pylint: disable=import-outside-toplevel
  pynvml.nvmlInit()
  fake = os.path.realpath(os.path.join(fake_dir, "libnvidia-ml.so.1"))
  with open("/proc/self/maps") as maps:
    if fake not in maps.read():
      print(f"pynvml did not load the fake {fake}")
      return 1
  check = Checker()
  read = check_pynvml(check, pynvml, load_scenario(scenario_path))
  pynvml.nvmlShutdown()
  reasons = {}
  for name in dir(pynvml):
    prefix = "nvmlClocksEventReason"
    if name.startswith(prefix) and name[len(prefix):] not in ("None", "All", "UserDefinedClocks"):
      reasons[getattr(pynvml, name)] = re.sub(r"(?<!^)(?=[A-Z])", "_", name[len(prefix):]).lower()
  if not check.failures:
    check_xpuperf(check, xpuperf_json(xpuperf, fake_dir, scenario_path), read, reasons)
  for failure in check.failures:
    print(failure)
  if check.failures:
    print(f"{len(check.failures)} of {check.checked} checks failed")
    return 1
  print(f"nvidia-ml-py and xpuperf agree on the fake NVML: {check.checked} checks passed")
  return 0


if __name__ == "__main__":
  sys.exit(main())
