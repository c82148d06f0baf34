"""Runs Google's tpu-info against xpuperf's fake libtpu runtime, then xpuperf against the same fake.

Usage: tpu_info_vs_fake.py FAKE_RUNTIME_SERVER XPUPERF FAKE_LIBTPU_DIR

tpu-info reads chips from /sys/bus/pci/devices and metrics from localhost:8431, both fixed. So the
check runs in private network, mount and pid namespaces (root, `unshare`): loopback of its own,
the fake server on 8431 there, two fake v5e chips bind-mounted over /sys/bus/pci/devices, and a
/proc with only its own processes. Nothing outside the namespaces sees any of it. Without root or
unshare it is skipped (exit 77) and says why.

1. The tables tpu-info prints must show what the fake's "busy" scenario serves (the fake is right
   as Google's client decodes it).
2. `xpuperf metrics --backend tpu --json` against the same fake must give the same numbers as the
   tables, to the 2 decimals tpu-info prints: HBM usage and total, duty cycle, HBM bandwidth,
   idle time, HLO queue size, HLO execution time (mean, P50, P90, P95, P999) and transfer latency
   per buffer size (P50, P90, P95, P999), with tpu-info's rule on both sides (no clamping to the
   observed range; tpu_percentiles_vs_tpu_info.py checks the rule itself on generated histograms).
3. Tensor-core utilisation, which both read through libtpu's SDK: the fake libtpu package
   (FAKE_LIBTPU_DIR, on PYTHONPATH for both) serves 0 % and 100 % ("busy.json"), then a list
   shorter than the chips ("short.json": tpu-info prints the one core it has, xpuperf says the
   other chip has no value).
4. TPU-Z's view of the cores (tpu-info's core_state, sequencer_state and queued_programs, from the
   runtime status) against xpuperf's core_state_info, sequencer_state_info and
   queued_program_info, field by field; and, on the "core-error" scenario, the "Core Error"
   column of tpu-info's sequencer_state_detailed against xpuperf's core_error_active.
tpu-info reads every histogram as exponential buckets; for series with explicit or linear buckets
it prints 0.00 (checked, and reported as its limitation, not compared).
"""

import fcntl
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile

SKIP = 77
GIB = 1 << 30
# Network (own loopback), mount (own /sys/bus/pci/devices) and pid namespace with its own /proc:
# tpu-info reads every /proc/*/fd link and stops at the first it may not read.
UNSHARE = ["unshare", "--net", "--mount", "--pid", "--fork", "--mount-proc"]


def skip(reason):
  print(f"skipped: {reason}")
  sys.exit(SKIP)


def enter_namespace():
  if os.environ.get("XPUPERF_TPU_INFO_NAMESPACE") == "1":
    return
  if os.geteuid() != 0:
    skip("tpu-info reads the fixed /sys/bus/pci/devices and localhost:8431; faking them needs "
         "root for a private mount and network namespace (run as root, as CI does)")
  try:
    probe = subprocess.run(UNSHARE + ["true"], capture_output=True, text=True, check=False)
  except FileNotFoundError:
    skip("unshare (util-linux) is not installed")
  if probe.returncode != 0:
    skip(f"cannot make private mount, network and pid namespaces: {probe.stderr.strip()}")
  env = dict(os.environ, XPUPERF_TPU_INFO_NAMESPACE="1")
  result = subprocess.run(UNSHARE + [sys.executable] + sys.argv, env=env, check=False)
  sys.exit(result.returncode)


def loopback_up():
  """ifconfig lo up inside the fresh network namespace (SIOCGIFFLAGS / SIOCSIFFLAGS)."""
  sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
  request = struct.pack("16sH14x", b"lo", 0)
  flags = struct.unpack("16sH14x", fcntl.ioctl(sock, 0x8913, request))[1]
  fcntl.ioctl(sock, 0x8914, struct.pack("16sH14x", b"lo", flags | 0x1))
  sock.close()


def fake_sysfs(root):
  """Two v5e chips (PCI 0x1ae0:0x0063), one core each, in IOMMU groups 0 and 1."""
  devices = os.path.join(root, "devices")
  groups = os.path.join(root, "iommu_groups")
  for index, address in enumerate(("0000:00:04.0", "0000:00:05.0")):
    path = os.path.join(devices, address)
    os.makedirs(path)
    os.makedirs(os.path.join(groups, str(index)))
    for name, value in (("vendor", "0x1ae0"), ("device", "0x0063"),
                        ("subsystem_device", "0x0000")):
      with open(os.path.join(path, name), "w") as f:
        f.write(value + "\n")
    os.symlink(os.path.join(groups, str(index)), os.path.join(path, "iommu_group"))
  subprocess.run(["mount", "--bind", devices, "/sys/bus/pci/devices"], check=True)


def start_fake(server, scenario="busy"):
  process = subprocess.Popen([server, scenario, "8431"], stdout=subprocess.PIPE, text=True)
  line = process.stdout.readline().strip()
  if line != "port 8431":
    process.kill()
    raise SystemExit(f"the fake runtime did not listen on 8431: {line!r}")
  return process


def tables(text):
  """Markdown tables that rich prints: {title: [row dicts]}, title = the last line above."""
  out = {}
  lines = text.splitlines()
  i = 0
  while i < len(lines):
    line = lines[i].strip()
    if line.startswith("|") and i + 1 < len(lines) and set(lines[i + 1].strip()) <= set("|-: "):
      above = i - 1
      while above >= 0 and not lines[above].strip():
        above -= 1
      title = lines[above].strip() if above >= 0 else ""
      header = [c.strip() for c in line.strip("|").split("|")]
      rows = []
      i += 2
      while i < len(lines) and lines[i].strip().startswith("|"):
        cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
        rows.append(dict(zip(header, cells)))
        i += 1
      out[title] = rows
      continue
    i += 1
  return out


FAKE_LIBTPU = {}  # PYTHONPATH and XPUPERF_FAKE_LIBTPU for both clients, set in main()


def run_tpu_info(*arguments):
  tpu_info = os.path.join(os.path.dirname(sys.executable), "tpu-info")
  env = dict(os.environ, COLUMNS="250", TERM="dumb", NO_COLOR="1", **FAKE_LIBTPU)
  result = subprocess.run([tpu_info] + list(arguments), env=env, capture_output=True, text=True,
                          timeout=120, check=False)
  if result.returncode != 0:
    raise SystemExit(f"tpu-info {' '.join(arguments)} failed ({result.returncode}):\n"
                     f"{result.stdout}\n{result.stderr}")
  return result.stdout


class Checker:

  def __init__(self):
    self.failures = []
    self.checked = 0

  def equal(self, what, got, want):
    self.checked += 1
    if got != want:
      self.failures.append(f"{what}: {got!r}, expected {want!r}")


def rows_by(table, key):
  return {row[key]: row for row in table}


def check_tpu_info_tables(check, out):
  """What tpu-info shows must be what the busy scenario serves."""
  t = tables(out)
  hbm = rows_by(t.get("TPU HBM Usage", []), "Device")
  check.equal("tpu-info HBM device 0", hbm.get("0", {}).get("HBM Usage (GiB)"),
              "4.00 GiB / 16.00 GiB")
  check.equal("tpu-info HBM device 1", hbm.get("1", {}).get("HBM Usage (GiB)"),
              "8.00 GiB / 16.00 GiB")
  duty = rows_by(t.get("TPU Duty Cycle", []), "Core ID")
  check.equal("tpu-info duty cycle 0", duty.get("0", {}).get("Duty Cycle (%)"), "75.50%")
  check.equal("tpu-info duty cycle 1", duty.get("1", {}).get("Duty Cycle (%)"), "12.25%")
  bw = rows_by(t.get("TPU Runtime HBM Utilization", []), "Device")
  check.equal("tpu-info HBM bandwidth 0", bw.get("0", {}).get("Utilization (%)"), "40.00%")
  idle = rows_by(t.get("TPU TensorCore Idle Duration", []), "Device")
  check.equal("tpu-info idle 1", idle.get("1", {}).get("Idle Duration (s)"), "42.00s")
  queue = rows_by(t.get("HLO Queue Size", []), "Device")
  check.equal("tpu-info queue 0", queue.get("0", {}).get("Queue Size"), "3")
  check.equal("tpu-info queue 1", queue.get("1", {}).get("Queue Size"), "1")
  hlo = rows_by(t.get("HLO Execution Timing", []), "Device")
  check.equal("tpu-info HLO device 0",
              [hlo.get("0", {}).get(k) for k in ("Mean", "P50", "P90", "P95", "P999")],
              ["400.00", "384.00", "512.00", "768.00", "972.80"])
  # Explicit buckets: tpu-info reads them as exponential ones with scale 0.
  check.equal("tpu-info HLO device 1 (explicit buckets, unread by tpu-info)",
              [hlo.get("1", {}).get(k) for k in ("P50", "P90")], ["0.00", "0.00"])
  dcn = rows_by(t.get("TPU Buffer Transfer Latency", []), "Buffer Size")
  columns = ("P50", "P90", "P95", "P999")
  check.equal("tpu-info DCN 1MB+", [dcn.get("1MB+", {}).get(k) for k in columns],
              ["850.00 us", "7750.00 us", "8875.00 us", "9775.00 us"])
  check.equal("tpu-info DCN 8MB+", [dcn.get("8MB+", {}).get(k) for k in columns],
              ["40000.00 us", "88000.00 us", "94000.00 us", "94000.00 us"])
  return t


def xpuperf_readings(xpuperf):
  env = dict(os.environ, TPU_RUNTIME_METRICS_PORTS="8431", XPUPERF_TPU_SDK_PYTHON=sys.executable,
             XPUPERF_TPU_SDK_DEADLINE="60", **FAKE_LIBTPU)
  result = subprocess.run([xpuperf, "metrics", "--backend", "tpu", "--json", "--window", "0"],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
  if result.returncode != 0:
    raise SystemExit(f"xpuperf metrics failed ({result.returncode}): {result.stderr}")
  doc = json.loads(result.stdout)
  return doc


def samples(doc, metric, device):
  for reading in doc["readings"]:
    if reading["metric"] == metric and reading["device"] == device:
      return reading.get("samples", [])
  return []


def scalar(doc, metric, device):
  found = [s["value"] for s in samples(doc, metric, device) if "core" not in s["labels"]]
  return found[0] if found else None


def us(value):
  return f"{value * 1e6:.2f}"


def percentile_cell(distribution, key, tpu_info_cell, suffix=""):
  """xpuperf's percentile and tpu-info's printed value, as text (the same rule: no clamping)."""
  theirs = float(tpu_info_cell.split()[0]) * 1e-6
  return us(distribution[key]) + suffix, us(theirs) + suffix


def compare_xpuperf(check, t, doc):
  hbm = rows_by(t["TPU HBM Usage"], "Device")
  duty = rows_by(t["TPU Duty Cycle"], "Core ID")
  bw = rows_by(t["TPU Runtime HBM Utilization"], "Device")
  idle = rows_by(t["TPU TensorCore Idle Duration"], "Device")
  queue = rows_by(t["HLO Queue Size"], "Device")
  hlo = rows_by(t["HLO Execution Timing"], "Device")
  for index in ("0", "1"):
    device = "tpu" + index
    used = scalar(doc, "memory_used_bytes", device)
    total = scalar(doc, "memory_total_bytes", device)
    check.equal(f"xpuperf HBM {device}",
                f"{used / GIB:.2f} GiB / {total / GIB:.2f} GiB" if used is not None else None,
                hbm[index]["HBM Usage (GiB)"])
    value = scalar(doc, "duty_cycle_percent", device)
    check.equal(f"xpuperf duty cycle {device}", f"{value:.2f}%" if value is not None else None,
                duty[index]["Duty Cycle (%)"])
    value = scalar(doc, "memory_bandwidth_utilization_percent", device)
    check.equal(f"xpuperf HBM bandwidth {device}", f"{value:.2f}%" if value is not None else None,
                bw[index]["Utilization (%)"])
    value = scalar(doc, "idle_duration_seconds", device)
    check.equal(f"xpuperf idle {device}", f"{value:.2f}s" if value is not None else None,
                idle[index]["Idle Duration (s)"])
    value = scalar(doc, "queue_size", device)
    check.equal(f"xpuperf queue {device}", str(int(value)) if value is not None else None,
                queue[index]["Queue Size"])
  # HLO execution time of device 0 (exponential buckets, as libtpu sends them).
  found = samples(doc, "op_execution_time_seconds", "tpu0")
  d = found[0]["distribution"] if found else None
  check.equal("xpuperf HLO tpu0 mean", us(d["mean"]) if d else None, hlo["0"]["Mean"])
  for key, column in (("p50", "P50"), ("p90", "P90"), ("p95", "P95"), ("p999", "P999")):
    got, want = percentile_cell(d, key, hlo["0"][column]) if d else (None, hlo["0"][column])
    check.equal(f"xpuperf HLO tpu0 {key}", got, want)
  # Buffer transfer latency per buffer size.
  dcn = rows_by(t["TPU Buffer Transfer Latency"], "Buffer Size")
  latency = {s["labels"].get("buffer_size"): s["distribution"]
             for s in samples(doc, "transfer_latency_seconds", "tpu0")
             if s["labels"].get("type") == "dcn"}
  for size, row in dcn.items():
    for key, column in (("p50", "P50"), ("p90", "P90"), ("p95", "P95"), ("p999", "P999")):
      if size not in latency:
        check.equal(f"xpuperf DCN {size}", None, "a distribution")
        break
      got, want = percentile_cell(latency[size], key, row[column], " us")
      check.equal(f"xpuperf DCN {size} {key}", got, want)


def use_fake_libtpu(directory, scenario):
  FAKE_LIBTPU.update(PYTHONPATH=directory,
                     XPUPERF_FAKE_LIBTPU=os.path.join(directory, scenario))


def reading(doc, metric, device):
  for r in doc["readings"]:
    if r["metric"] == metric and r["device"] == device:
      return r
  return None


def percent_cell(doc, device):
  """xpuperf's tensor-core utilisation of a chip as tpu-info prints it, or its state."""
  r = reading(doc, "tensorcore_utilization_percent", device)
  if r is None or r["state"] != "ok":
    return r["state"] if r else None
  return f"{r['samples'][0]['value']:.2f}%"


def compare_tensorcore(check, table, doc, scenario):
  """tpu-info prints each value libtpu gives with a %; xpuperf the same value to 2 decimals."""
  rows = rows_by(table, "Core ID")
  want = {"busy.json": {"0": "0.00%", "1": "100.00%"}, "short.json": {"0": "55.5%"}}[scenario]
  check.equal(f"tpu-info tensor-core utilisation ({scenario})",
              {k: r.get("TensorCore Utilization") for k, r in rows.items()}, want)
  for core in ("0", "1"):
    theirs = rows.get(core, {}).get("TensorCore Utilization")
    ours = percent_cell(doc, "tpu" + core)
    if theirs is None:
      check.equal(f"xpuperf tensor-core tpu{core} ({scenario}, tpu-info has no row)", ours,
                  "no_data")
    else:
      check.equal(f"xpuperf tensor-core tpu{core} ({scenario})", ours,
                  f"{float(theirs.rstrip('%')):.2f}%")


def info_rows(doc, metric, fields):
  rows = []
  for r in doc["readings"]:
    if r["metric"] != metric or r["state"] != "ok":
      continue
    for sample in r["samples"]:
      labels = dict(sample["labels"], chip=r["device"][len("tpu"):])
      rows.append(tuple(labels.get(f, "") for f in fields))
  return sorted(rows)


def compare_core_states(check, t, doc):
  """TPU-Z's tables of tpu-info against xpuperf's info readings, field by field."""
  states = [(r["Chip ID"], r["Global Core ID"], r["Core Type"], r["xdb Server"])
            for r in t.get("Core States", [])]
  check.equal("tpu-info core states", sorted(states),
              [("0", "0", "TPU_CORE_TYPE_TENSOR_CORE", "True"),
               ("1", "1", "TPU_CORE_TYPE_TENSOR_CORE", "False")])
  ours = [(c, g, ty, x.capitalize()) for c, g, ty, x in
          info_rows(doc, "core_state_info", ("chip", "global_core", "core_type", "xdb_server"))]
  check.equal("xpuperf core states", ours, sorted(states))
  sequencers = [(r["Chip ID"], r["Global Core ID"], r["Program Counter"], r["Tracemark"],
                 r["Program ID"], r["Run ID"], r["Sequence Type"])
                for r in t.get("Sequencer States", [])]
  check.equal("tpu-info sequencer of chip 0",
              [s for s in sequencers if s[0] == "0"],
              [("0", "0", "4096", "12", "3", "41", "TPU_SEQUENCER_TYPE_TENSOR_CORE_SEQUENCER")])
  check.equal("xpuperf sequencers",
              info_rows(doc, "sequencer_state_info", ("chip", "global_core", "pc", "tracemark",
                                                      "program_id", "run_id", "sequencer_type")),
              sorted(sequencers))
  queued = [(r["Chip ID"], r["Global Core ID"], r["Run ID"], r["Launch ID"],
             r["Program Fingerprint"]) for r in t.get("TPUz Queued Programs", [])]
  check.equal("tpu-info queued programs", sorted(queued),
              [("0", "0", "42", "8", "0102"), ("0", "0", "43", "9", "0a0b0c")])
  check.equal("xpuperf queued programs",
              info_rows(doc, "queued_program_info",
                        ("chip", "global_core", "run_id", "launch_id", "program")),
              sorted(queued))


def compare_core_error(check, text, doc):
  """tpu-info's "Core Error" column (its first line) is xpuperf's core_error_active `error`."""
  theirs = {}
  for row in tables(text).get("Sequencer States (Detailed)", []):
    if row.get("Chip ID"):
      theirs[row["Chip ID"]] = row.get("Core Error", "")
  check.equal("tpu-info core errors", sorted(theirs), ["0", "1"])
  for chip in ("0", "1"):
    r = reading(doc, "core_error_active", "tpu" + chip)
    ours = [(s["value"], s["labels"].get("error", "None")) for s in (r or {}).get("samples", [])]
    want = theirs.get(chip, "")
    check.equal(f"xpuperf core error tpu{chip}",
                [(1.0 if w != "None" else 0.0, w) for w in [want]], ours)


def main():
  if len(sys.argv) != 4:
    print("usage: tpu_info_vs_fake.py FAKE_RUNTIME_SERVER XPUPERF FAKE_LIBTPU_DIR", file=sys.stderr)
    return 2
  enter_namespace()
  server_binary, xpuperf, fake_libtpu = sys.argv[1], sys.argv[2], sys.argv[3]
  use_fake_libtpu(fake_libtpu, "busy.json")
  loopback_up()
  with tempfile.TemporaryDirectory() as root:
    fake_sysfs(root)
    server = start_fake(server_binary)
    try:
      check = Checker()
      overview = run_tpu_info()
      t = tables(overview)
      chips = t.get("TPU Chips", [])
      check.equal("tpu-info chips", [(c.get("Chip"), c.get("Type")) for c in chips],
                  [("/dev/vfio/0", "TPU v5e chip"), ("/dev/vfio/1", "TPU v5e chip")])
      usage = rows_by(t.get("TPU Runtime Utilization", []), "Chip")
      check.equal("tpu-info runtime utilisation chip 1",
                  [usage.get("1", {}).get(k) for k in ("HBM Usage (GiB)", "Duty cycle")],
                  ["8.00 GiB / 16.00 GiB", "12.25%"])
      detail = run_tpu_info("--metric", "hbm_usage", "--metric", "duty_cycle_percent",
                            "--metric", "runtime_hbm_utilization", "--metric",
                            "tensorcore_idle_duration", "--metric", "hlo_queue_size",
                            "--metric", "hlo_exec_timing", "--metric", "buffer_transfer_latency")
      t = check_tpu_info_tables(check, detail)
      doc = xpuperf_readings(xpuperf)
      if not check.failures:
        compare_xpuperf(check, t, doc)
      compare_tensorcore(check, tables(overview).get("TensorCore Utilization", []), doc,
                         "busy.json")
      tpuz = run_tpu_info("--metric", "core_state", "--metric", "sequencer_state",
                          "--metric", "queued_programs")
      detail += tpuz
      compare_core_states(check, tables(tpuz), doc)
      # A core in error (the "core-error" scenario): tpu-info's detailed sequencer view against
      # xpuperf's core_error_active.
      server.kill()
      server.wait()
      server = start_fake(server_binary, "core-error")
      halted = run_tpu_info("--metric", "sequencer_state_detailed")
      detail += halted
      compare_core_error(check, halted, xpuperf_readings(xpuperf))
      use_fake_libtpu(fake_libtpu, "short.json")
      short = run_tpu_info("--metric", "tensorcore_utilization")
      detail += short
      compare_tensorcore(check, tables(short).get("TensorCore Utilization", []),
                         xpuperf_readings(xpuperf), "short.json")
    finally:
      server.kill()
      server.wait()
      subprocess.run(["umount", "/sys/bus/pci/devices"], check=False)
  for failure in check.failures:
    print(failure)
  if check.failures:
    print(f"{len(check.failures)} of {check.checked} checks failed\n--- tpu-info printed:\n"
          f"{overview}\n{detail}")
    return 1
  print(f"tpu-info and xpuperf agree on the fake runtime: {check.checked} checks passed")
  return 0


if __name__ == "__main__":
  sys.exit(main())
