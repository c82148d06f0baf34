"""xpuperf against Google's real libtpu SDK (PyPI wheel, requirements/libtpu.txt) on a machine
without a TPU.

Usage: libtpu_sdk_real.py XPUPERF   (run with the libtpu environment's Python)

1. With TPU_SKIP_MDS_QUERY=1 libtpu answers at once with no values: `metrics --tpu-sdk` lists
   every metric libtpu's own list_supported_metrics() returns, each "unsupported" with libtpu's
   reason (its last message), and the metrics of Google's monitoring library are among them.
2. Without it libtpu waits for the GCE metadata server (30 tries per key): xpuperf gives up at
   its deadline (XPUPERF_TPU_SDK_DEADLINE=3) and says so for every metric, rather than hanging.
"""

import json
import subprocess
import sys

REQUIRED = ("tensorcore_util", "duty_cycle_pct", "hbm_capacity_total", "hbm_capacity_usage",
            "buffer_transfer_latency", "hlo_execution_timing", "hlo_queue_size")


def listed_by_libtpu(env):
  code = "from libtpu import sdk; print('\\n'.join(sdk.tpumonitoring.list_supported_metrics()))"
  result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, check=True)
  return [line for line in result.stdout.splitlines() if line]


def tpu_sdk(xpuperf, env):
  result = subprocess.run([xpuperf, "metrics", "--tpu-sdk", "--json"], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
  if result.returncode != 0:
    raise SystemExit(f"xpuperf metrics --tpu-sdk failed ({result.returncode}): {result.stderr}")
  return json.loads(result.stdout)


def main():
  xpuperf = sys.argv[1]
  failures = []
  base = dict(XPUPERF_TPU_SDK_PYTHON=sys.executable, PATH="/usr/bin:/bin")
  skip_mds = dict(base, TPU_SKIP_MDS_QUERY="1", XPUPERF_TPU_SDK_DEADLINE="60")
  names = listed_by_libtpu(skip_mds)
  doc = tpu_sdk(xpuperf, skip_mds)
  ours = [m["name"] for m in doc["metrics"]]
  if ours != names:
    failures.append(f"listed {ours}, libtpu lists {names}")
  for name in REQUIRED:
    if name not in names:
      failures.append(f"libtpu {doc['libtpu_version']} does not list {name}")
  for m in doc["metrics"]:
    want = f"libtpu {doc['libtpu_version']} returned no {m['name']} values (libtpu: "
    if m["state"] != "unsupported" or not m.get("reason", "").startswith(want):
      failures.append(f"{m['name']}: {m['state']}: {m.get('reason')!r}, expected {want!r}…")
    if m["name"] in REQUIRED and not m["catalog"]:
      failures.append(f"{m['name']} is not mapped into the catalog")
  hung = tpu_sdk(xpuperf, dict(base, XPUPERF_TPU_SDK_DEADLINE="3"))
  for m in hung["metrics"]:
    if m["state"] != "unsupported" or "did not answer within 3 s" not in m.get("reason", ""):
      failures.append(f"without TPU_SKIP_MDS_QUERY: {m['name']}: {m.get('reason')!r}")
  if not hung["metrics"]:
    failures.append("without TPU_SKIP_MDS_QUERY: no metric listed")
  for failure in failures:
    print(failure)
  if failures:
    return 1
  print(f"libtpu {doc['libtpu_version']}: {len(names)} SDK metrics, each with libtpu's reason; "
        f"a libtpu waiting for the metadata server is cut at the deadline")
  return 0


if __name__ == "__main__":
  sys.exit(main())
