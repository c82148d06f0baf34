"""Runs NVIDIA's nvidia-ml-py (pynvml) against xpuperf's fake libnvidia-ml.so.1 in MIG mode, then
xpuperf.

Usage: nvml_py_vs_fake_mig.py FAKE_NVML_DIR SCENARIO XPUPERF   (SCENARIO: tests/data/mig.conf)

1. pynvml loads the fake and makes the MIG calls with NVIDIA's own ctypes signatures:
   nvmlDeviceGetMigMode, nvmlDeviceGetMaxMigDeviceCount, nvmlDeviceGetMigDeviceHandleByIndex
   (NOT_FOUND for a slot without an instance), nvmlDeviceIsMigDeviceHandle,
   nvmlDeviceGetGpuInstanceId, nvmlDeviceGetComputeInstanceId,
   nvmlDeviceGetDeviceHandleFromMigDeviceHandle, then the MIG device's name, UUID, memory (v1 and
   v2) and compute processes (v2 and v3 entries carrying the GPU/compute-instance ids); the
   utilisation calls answer NOT_SUPPORTED on a GPU in MIG mode and on its MIG devices. Each value
   must be the scenario's.
2. `xpuperf metrics --backend nvidia --json` against the same fake must list every MIG device pynvml
   found, right after its GPU, with the same UUID, ids and memory, and the same processes.
"""

import os
import sys

from nvml_py_vs_fake import Checker, load_scenario, nvml_error, number, reexec_with_fake, \
  samples, value, xpuperf_json


def mig_slots(gpu):
  """slot -> the scenario keys of that MIG device."""
  slots = {}
  for key, val in gpu.items():
    if key.startswith("mig."):
      _, slot, rest = key.split(".", 2)
      slots.setdefault(int(slot), {})[rest] = val
  return slots


def check_pynvml(check, pynvml, scenario):
  """Returns, per GPU index, the MIG devices pynvml read (in slot order)."""
  found = {}
  for index, gpu in sorted(scenario["gpus"].items()):
    g = f"gpu{index}"
    h = pynvml.nvmlDeviceGetHandleByIndex(index)
    found[index] = []
    if "mig_mode" not in gpu:
      check.equal(f"{g} MIG mode refused", nvml_error(pynvml, pynvml.nvmlDeviceGetMigMode, h),
                  pynvml.NVML_ERROR_NOT_SUPPORTED)
      continue
    mode = number(gpu["mig_mode"])
    check.equal(f"{g} MIG mode [current, pending]", pynvml.nvmlDeviceGetMigMode(h), [mode, mode])
    check.equal(f"{g} is not a MIG handle", pynvml.nvmlDeviceIsMigDeviceHandle(h).value, 0)
    count = pynvml.nvmlDeviceGetMaxMigDeviceCount(h)
    if mode != 1:
      check.equal(f"{g} MIG device count with MIG off", count, 0)
      continue
    check.equal(f"{g} max MIG devices", count, number(gpu.get("mig_max_devices", "7")))
    check.equal(f"{g} utilisation refused in MIG mode",
                nvml_error(pynvml, pynvml.nvmlDeviceGetUtilizationRates, h),
                pynvml.NVML_ERROR_NOT_SUPPORTED)
    slots = mig_slots(gpu)
    for slot in range(count):
      if slot not in slots:
        check.equal(f"{g} MIG slot {slot} empty",
                    nvml_error(pynvml, pynvml.nvmlDeviceGetMigDeviceHandleByIndex, h, slot),
                    pynvml.NVML_ERROR_NOT_FOUND)
        continue
      want = slots[slot]
      m = f"{g} MIG slot {slot}"
      mh = pynvml.nvmlDeviceGetMigDeviceHandleByIndex(h, slot)
      check.equal(f"{m} is a MIG handle", pynvml.nvmlDeviceIsMigDeviceHandle(mh).value, 1)
      parent = pynvml.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(mh)
      check.equal(f"{m} parent", pynvml.nvmlDeviceGetUUID(parent), gpu["uuid"])
      gi = pynvml.nvmlDeviceGetGpuInstanceId(mh)
      ci = pynvml.nvmlDeviceGetComputeInstanceId(mh)
      check.equal(f"{m} GPU/compute instance ids", (gi, ci),
                  (number(want["gpu_instance_id"]), number(want["compute_instance_id"])))
      check.equal(f"{m} name", pynvml.nvmlDeviceGetName(mh), want["name"])
      uuid = pynvml.nvmlDeviceGetUUID(mh)
      check.equal(f"{m} uuid", uuid, want["uuid"])
      total, reserved, used = (number(want[k]) for k in ("memory_total", "memory_reserved",
                                                         "memory_used"))
      v1 = pynvml.nvmlDeviceGetMemoryInfo(mh)
      check.equal(f"{m} memory v1 (total, used)", (v1.total, v1.used), (total, used + reserved))
      v2 = pynvml.nvmlDeviceGetMemoryInfo(mh, version=pynvml.nvmlMemory_v2)
      check.equal(f"{m} memory v2 (total, reserved, used)", (v2.total, v2.reserved, v2.used),
                  (total, reserved, used))
      check.equal(f"{m} utilisation refused",
                  nvml_error(pynvml, pynvml.nvmlDeviceGetUtilizationRates, mh),
                  pynvml.NVML_ERROR_NOT_SUPPORTED)
      procs = []
      for entry in filter(None, want.get("processes", "").split(",")):
        pid, memory = entry.split(":")
        procs.append((int(pid), int(memory), gi, ci))
      for version, call in (("v2", pynvml.nvmlDeviceGetComputeRunningProcesses_v2),
                            ("v3", pynvml.nvmlDeviceGetComputeRunningProcesses_v3)):
        got = [(p.pid, p.usedGpuMemory, p.gpuInstanceId, p.computeInstanceId) for p in call(mh)]
        check.equal(f"{m} processes {version}", got, procs)
      found[index].append({"uuid": uuid, "gi": gi, "ci": ci, "total": v2.total, "used": v2.used,
                           "profile": want["name"].rsplit(" MIG ", 1)[1],
                           "processes": [(p[0], p[1]) for p in procs]})
  return found


def check_xpuperf(check, doc, found, scenario):
  ids = [d["id"] for d in doc["devices"]]
  want_ids = []
  for index in sorted(scenario["gpus"]):
    want_ids.append(f"nvidia{index}")
    want_ids += [f"nvidia{index}/gi{m['gi']}/ci{m['ci']}" for m in found[index]]
  check.equal("xpuperf device order (MIG devices after their GPU)", ids, want_ids)
  by_id = {d["id"]: d for d in doc["devices"]}
  for index, migs in sorted(found.items()):
    parent = f"nvidia{index}"
    for m in migs:
      d = f"{parent}/gi{m['gi']}/ci{m['ci']}"
      device = by_id.get(d, {})
      check.equal(f"xpuperf {d} uuid", device.get("uuid"), m["uuid"])
      check.equal(f"xpuperf {d} partition", device.get("partition"),
                  {"parent": parent, "parent_uuid": scenario["gpus"][index]["uuid"],
                   "gpu_instance_id": m["gi"], "compute_instance_id": m["ci"],
                   "profile": m["profile"]})
      check.equal(f"xpuperf {d} memory total", value(doc, "memory_total_bytes", d),
                  float(m["total"]))
      check.equal(f"xpuperf {d} memory used", value(doc, "memory_used_bytes", d), float(m["used"]))
      got = sorted((int(s["labels"]["pid"]), s["value"])
                   for s in samples(doc, "process_memory_bytes", d))
      check.equal(f"xpuperf {d} processes", got, sorted((p, float(b)) for p, b in m["processes"]))
      for reading in doc["readings"]:
        if reading["device"] == d and reading["metric"] == "duty_cycle_percent":
          check.equal(f"xpuperf {d} duty cycle state", reading.get("state"), "unsupported")


def main():
  if len(sys.argv) != 4:
    print("usage: nvml_py_vs_fake_mig.py FAKE_NVML_DIR SCENARIO XPUPERF", file=sys.stderr)
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
  scenario = load_scenario(scenario_path)
  found = check_pynvml(check, pynvml, scenario)
  pynvml.nvmlShutdown()
  if not any(found.values()):
    check.failures.append("the scenario has no MIG device")
  if not check.failures:
    check_xpuperf(check, xpuperf_json(xpuperf, fake_dir, scenario_path), found, scenario)
  for failure in check.failures:
    print(failure)
  if check.failures:
    print(f"{len(check.failures)} of {check.checked} checks failed")
    return 1
  print(f"nvidia-ml-py and xpuperf agree on MIG in the fake NVML: {check.checked} checks passed")
  return 0


if __name__ == "__main__":
  sys.exit(main())
