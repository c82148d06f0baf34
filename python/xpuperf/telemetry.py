"""Devices and readings of this machine, as `xpuperf devices` and `xpuperf metrics` report them.

Every reading has a state: "ok" (samples hold values), "unsupported" (this machine cannot provide
the metric; `reason` says why) or "no_data" (supported, nothing yet: the first interval of a rate,
nothing recorded). A metric that cannot be read is never reported as 0.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence

from xpuperf._native import native

__all__ = ["Device", "Sample", "Reading", "Readings", "Session", "devices", "metrics", "watch",
           "catalog", "backends"]


@dataclasses.dataclass(frozen=True)
class Device:
    """A device: `id` ("cpu0", "nvidia0") is what `metrics(devices=...)` takes."""

    backend: str
    id: str
    index: int
    vendor: str
    model: str
    uuid: str
    bus_id: str
    memory_bytes: int  # device memory; host RAM for the CPU backend
    packages: int
    numa_nodes: int
    cores: int
    threads: int
    features: List[str]
    # A MIG device (listed right after its GPU): parent, parent_uuid, gpu_instance_id,
    # compute_instance_id, profile ("1g.10gb"). None for a whole device.
    partition: Optional[Dict[str, Any]] = None


@dataclasses.dataclass(frozen=True)
class Sample:
    """One value of a reading. Distributions (op_execution_time_seconds, ...) carry count, sum,
    min, max and percentiles in the metric's unit; `value` is then their mean (NaN when empty)."""

    labels: Dict[str, str]
    timestamp_ns: int  # wall clock, ns since the Unix epoch
    value: float
    count: Optional[int] = None
    sum: Optional[float] = None
    min: Optional[float] = None
    max: Optional[float] = None
    p50: Optional[float] = None
    p90: Optional[float] = None
    p95: Optional[float] = None
    p99: Optional[float] = None
    p999: Optional[float] = None

    @property
    def is_distribution(self) -> bool:
        return self.count is not None


@dataclasses.dataclass(frozen=True)
class Reading:
    """One metric on one device."""

    metric: str
    device: str
    state: str  # "ok", "unsupported", "no_data"
    reason: str  # "" when ok
    samples: List[Sample]
    # Which source gave the values where a backend has several (TPU: "runtime" for libtpu's
    # runtime metric service, "sdk" for libtpu's monitoring SDK); "" otherwise.
    source: str = ""

    @property
    def ok(self) -> bool:
        return self.state == "ok"


_FRAME_COLUMNS = ["metric", "device", "state", "reason", "labels", "timestamp_ns", "value",
                  "count", "sum", "min", "max", "p50", "p90", "p95", "p99", "p999"]


class Readings(list):
    """The readings of one snapshot (a list of Reading), with a DataFrame form."""

    window_seconds: float = 0.0

    def to_dataframe(self):
        """One row per sample (a reading without samples: one row with its state and reason and
        NaN values). Columns: metric, device, state, reason, labels ("k=v,k=v"), timestamp_ns,
        value, count, sum, min, max, p50, p90, p95, p99, p999. Needs pandas."""
        import pandas as pd

        rows = []
        nan = math.nan
        for r in self:
            if not r.samples:
                rows.append([r.metric, r.device, r.state, r.reason, "", None, nan] + [nan] * 9)
                continue
            for s in r.samples:
                labels = ",".join(f"{k}={v}" for k, v in s.labels.items() if k != "device")
                extra = [nan] * 9 if s.count is None else [
                    s.count, s.sum, s.min, s.max, s.p50, s.p90, s.p95, s.p99, s.p999]
                rows.append([r.metric, s.labels.get("device", r.device), r.state, r.reason,
                             labels, s.timestamp_ns, s.value] + extra)
        return pd.DataFrame(rows, columns=_FRAME_COLUMNS)


def _reading(raw: Dict[str, Any]) -> Reading:
    return Reading(raw["metric"], raw["device"], raw["state"], raw["reason"],
                   [Sample(**s) for s in raw["samples"]], raw.get("source", ""))


class Session:
    """The backends of this machine and their devices. `backends` limits which open (each named
    one must open, else ValueError/LookupError); `root` is the system root to read (recorded
    trees in tests); `pids` the processes process_cpu_percent reports. Thread-safe (calls are
    serialised); the work runs without the GIL."""

    def __init__(self, backends: Sequence[str] = (), root: str = "/", pids: Sequence[int] = ()):
        for pid in pids:
            if not isinstance(pid, int) or pid <= 0:
                raise ValueError(f"pids must be positive process ids (got {pid!r})")
        self._lock = threading.Lock()
        self._native = native.Session(list(backends), root, list(pids))
        self._last_collect = time.monotonic()

    def devices(self) -> List[Device]:
        with self._lock:
            return [Device(**d) for d in self._native.devices()]

    def backends(self) -> List[Dict[str, Any]]:
        """Each backend this build knows: name, available, reason (why not)."""
        with self._lock:
            return self._native.backends()

    def metric_names(self) -> List[str]:
        with self._lock:
            return self._native.metric_names()

    def collect(self, names: Sequence[str] = (), devices: Sequence[str] = ()) -> Readings:
        """Reads now. Rates (duty cycle, power, CPU %) cover the time since the previous collect
        of this session. Unknown metric or device: LookupError."""
        with self._lock:
            raw = self._native.collect(list(names), list(devices))
            now = time.monotonic()
            out = Readings(_reading(r) for r in raw)
            out.window_seconds = now - self._last_collect
            self._last_collect = now
        return out


_default_session: Optional[Session] = None
_default_lock = threading.Lock()


def _session() -> Session:
    global _default_session
    with _default_lock:
        if _default_session is None:
            _default_session = Session()
        return _default_session


def _names(names: Optional[Iterable[str] | str]) -> List[str]:
    if names is None:
        return []
    if isinstance(names, str):
        return [names]
    return list(names)


def devices() -> List[Device]:
    """The devices of every backend that can run here (`xpuperf devices`)."""
    return _session().devices()


def backends() -> List[Dict[str, Any]]:
    """Every backend this build knows, whether it opened, and why not."""
    return _session().backends()


def catalog() -> List[Dict[str, str]]:
    """The metric catalog: name, unit, kind, description, labels (`xpuperf metrics --list`)."""
    return native.catalog()


def tpu_sdk(root: str = "/") -> Dict[str, Any]:
    """Every metric libtpu's monitoring SDK lists, as `xpuperf metrics --tpu-sdk --json` gives
    it: {"python", "libtpu_version", "metrics": [{"name", "state", "catalog", "note", "data",
    "reason", "description"}]}. XPUPERF_TPU_SDK_PYTHON names the Python that has libtpu;
    RuntimeError with the reason when the SDK cannot be read at all."""
    import json

    return json.loads(native.tpu_sdk_json(root))


def _check_seconds(value: float, what: str, low: float, high: float) -> float:
    if not isinstance(value, (int, float)) or not (low <= value <= high):
        raise ValueError(f"{what} must be between {low} and {high} seconds (got {value!r})")
    return float(value)


def metrics(names: Optional[Iterable[str] | str] = None, window: float = 0.5,
            devices: Optional[Iterable[str] | str] = None,
            session: Optional[Session] = None) -> Readings:
    """One snapshot, as `xpuperf metrics --window W`: the names are checked first (LookupError
    for an unknown one), then after `window` seconds (0..60) every metric is read, rates over
    that window. `names`/`devices` None: all. `.to_dataframe()` gives the DataFrame form."""
    window = _check_seconds(window, "window", 0, 60)
    s = session or _session()
    names, devices = _names(names), _names(devices)
    s.collect(names, devices)  # validates and starts the rate interval
    if window > 0:
        time.sleep(window)  # interruptible by Ctrl-C
    return s.collect(names, devices)


def watch(rate: float = 1.0, names: Optional[Iterable[str] | str] = None,
          devices: Optional[Iterable[str] | str] = None, count: Optional[int] = None,
          session: Optional[Session] = None) -> Iterator[Readings]:
    """A snapshot every `rate` seconds (0.05..3600), as `xpuperf metrics --watch`; `count`
    limits how many (None: until the caller stops iterating or presses Ctrl-C)."""
    rate = _check_seconds(rate, "rate", 0.05, 3600)
    if count is not None and (not isinstance(count, int) or count < 0):
        raise ValueError(f"count must be an integer >= 0 (got {count!r})")
    s = session or _session()
    names, devices = _names(names), _names(devices)
    s.collect(names, devices)
    n = 0
    next_time = time.monotonic()
    while count is None or count == 0 or n < count:
        next_time += rate
        delay = next_time - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        else:
            next_time = time.monotonic()
        yield s.collect(names, devices)
        n += 1
