"""xpuperf's reader of libtpu's monitoring SDK, run by the TPU backend as `python3 -c <this file>`.

libtpu publishes its monitoring SDK only as a Python module (`from libtpu import sdk`;
`sdk.tpumonitoring.list_supported_metrics()`, `get_metric(name).data()` / `.description()`), and
reading it can block (libtpu asks the GCE metadata server for its topology, 30 tries per key) or
crash the importer. So xpuperf reads it in this separate process, the way Google's tpu-info does:

1. a canary process imports libtpu first; if that fails or crashes, one JSON line says why;
2. then one JSON line {"ready": true, "libtpu_version", "python", "metrics": [names]};
3. then, every --interval seconds, one JSON line {"time", "values": {name: {"data": [str, ...]} or
   {"error": "..."}}}, each metric's "description" with its first answer;
until standard input closes (xpuperf went away) or --once.

libtpu writes its own messages to standard error; xpuperf keeps their last lines as the reason
when no answer comes.
"""

import sys

# `python -c` puts the working directory first on sys.path; xpuperf starts this in "/", and nothing
# is imported from there either way (a root daemon must not import a module a user dropped).
sys.path[:] = [entry for entry in sys.path if entry not in ("", ".")]

import importlib.metadata  # pylint: disable=wrong-import-position
import json
import os
import select
import signal
import subprocess
import time

CANARY = ("import sys\nsys.path[:] = [e for e in sys.path if e not in ('', '.')]\n"
          "import libtpu\nfrom libtpu import sdk\n")


def emit(document):
  sys.stdout.write(json.dumps(document) + "\n")
  sys.stdout.flush()


def last_line(text):
  lines = [line.strip() for line in text.splitlines() if line.strip()]
  return lines[-1] if lines else ""


def canary(timeout):
  """None when libtpu's SDK imports cleanly in a separate process, else why not."""
  try:
    result = subprocess.run([sys.executable, "-c", CANARY], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=timeout, check=False)
  except subprocess.TimeoutExpired:
    return f"importing libtpu took over {timeout:g} s"
  if result.returncode == 0:
    return None
  if result.returncode < 0:
    try:
      name = signal.Signals(-result.returncode).name
    except ValueError:
      name = str(-result.returncode)
    detail = last_line(result.stderr)
    return f"importing libtpu crashed the process ({name})" + (f": {detail}" if detail else "")
  return (f"{sys.executable} cannot import libtpu's SDK: {last_line(result.stderr) or 'exit 1'} "
          "(set XPUPERF_TPU_SDK_PYTHON to a Python that has libtpu)")


def libtpu_version():
  try:
    return importlib.metadata.version("libtpu")
  except importlib.metadata.PackageNotFoundError:
    import libtpu  # pylint: disable=import-outside-toplevel
    return str(getattr(libtpu, "__version__", "unknown"))


def read_all(monitoring, names, described):
  values = {}
  for name in names:
    try:
      metric = monitoring.get_metric(name)
      entry = {"data": [str(value) for value in metric.data()]}
      if name not in described:
        entry["description"] = str(metric.description())
        described.add(name)
    except Exception as error:  # pylint: disable=broad-except
      entry = {"error": f"{type(error).__name__}: {error}".strip()}
    values[name] = entry
  return values


def input_closed(timeout):
  """Waits up to timeout seconds; True once standard input is at its end."""
  readable, _, _ = select.select([sys.stdin], [], [], max(timeout, 0))
  if not readable:
    return False
  return os.read(sys.stdin.fileno(), 4096) == b""


def main(argv):
  interval, once, canary_timeout = 1.0, False, 60.0
  i = 0
  while i < len(argv):
    if argv[i] == "--interval" and i + 1 < len(argv):
      interval = float(argv[i + 1])
      i += 2
    elif argv[i] == "--canary-timeout" and i + 1 < len(argv):
      canary_timeout = float(argv[i + 1])
      i += 2
    elif argv[i] == "--once":
      once = True
      i += 1
    else:
      emit({"error": f"tpu_sdk_helper: unknown argument {argv[i]!r}"})
      return 2
  problem = canary(canary_timeout)
  if problem:
    emit({"error": problem})
    return 1
  from libtpu import sdk  # pylint: disable=import-outside-toplevel
  monitoring = getattr(sdk, "tpumonitoring", None) or getattr(sdk, "monitoring", None)
  if monitoring is None:
    emit({"error": "libtpu's SDK has no monitoring module (tpumonitoring or monitoring)"})
    return 1
  try:
    names = [str(name) for name in monitoring.list_supported_metrics()]
  except Exception as error:  # pylint: disable=broad-except
    emit({"error": f"list_supported_metrics failed: {type(error).__name__}: {error}"})
    return 1
  emit({"ready": True, "libtpu_version": libtpu_version(), "python": sys.executable,
        "metrics": names})
  described = set()
  while True:
    started = time.monotonic()
    emit({"time": time.time(), "values": read_all(monitoring, names, described)})
    if once or input_closed(interval - (time.monotonic() - started)):
      return 0


if __name__ == "__main__":
  try:
    sys.exit(main(sys.argv[1:]))
  except (BrokenPipeError, KeyboardInterrupt):
    sys.exit(0)
