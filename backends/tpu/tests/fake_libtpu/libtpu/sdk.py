"""The fake libtpu's SDK: `tpumonitoring` with libtpu 0.0.52's three calls."""

import time

from libtpu import scenario


class LibtpuSdkMetric:

  def __init__(self, name, entry):
    self._name = name
    self._entry = entry

  def description(self):
    return self._entry.get("description", f"{self._name} (fake)")

  def data(self):
    if "raise" in self._entry:
      raise RuntimeError(self._entry["raise"])
    if self._entry.get("hang"):
      time.sleep(3600)
    return list(self._entry.get("data", []))


class _Monitoring:

  @staticmethod
  def list_supported_metrics():
    return list(scenario().get("metrics", {}).keys())

  @staticmethod
  def get_metric(metric_name):
    metrics = scenario().get("metrics", {})
    if metric_name not in metrics:
      raise ValueError(f"unsupported metric: {metric_name}")
    return LibtpuSdkMetric(metric_name, metrics[metric_name])

  @staticmethod
  def help():
    return "fake libtpu.sdk.tpumonitoring"


tpumonitoring = _Monitoring()
