"""The exporter of `xpuperf serve` inside this process: Prometheus /metrics (and /health,
/api/v1/snapshot) with the machine's telemetry plus what this program records itself
(xpuperf.record_op, record_transfer, set_queue_depth, scopes traced with record_ops=True): its op
execution-time and transfer-latency histograms and queue sizes, on the cpu device's series.

    server = xpuperf.serve()              # 127.0.0.1, a free port; server.url
    ...training loop with xpuperf.record_op(...) ...
    server.stop()

Listens on loopback unless told otherwise; TLS and basic authentication with a web config file
(Prometheus exporter-toolkit's format, as `xpuperf serve --web-config`). docs/EXPORTER.md lists the
series.
"""

from __future__ import annotations

import threading
from typing import Iterable, Optional

from xpuperf._native import native

__all__ = ["MetricsServer", "serve"]


class MetricsServer:
    """A running exporter and its HTTP(S) server. Also a context manager (stops on exit)."""

    def __init__(self, native_server, host: str):
        self._server = native_server
        self._host = host
        self._port = native_server.port
        self._tls = native_server.tls
        self._lock = threading.Lock()

    @property
    def port(self) -> int:
        """The bound port (also after stop(): the one it served on)."""
        return self._port

    @property
    def url(self) -> str:
        """The /metrics URL."""
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"{'https' if self._tls else 'http'}://{host}:{self._port}/metrics"

    @property
    def running(self) -> bool:
        return self._server.running

    def stop(self) -> None:
        """Stops serving and collecting (idempotent)."""
        with self._lock:
            self._server.stop()

    def __enter__(self) -> "MetricsServer":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def serve(listen: str = "127.0.0.1:0", interval: float = 1.0,
          backends: Optional[Iterable[str]] = None,
          web_config: Optional[str] = None) -> MetricsServer:
    """Starts the exporter in this process and returns its MetricsServer. `listen`: "HOST:PORT",
    "[V6]:PORT", ":PORT" (every interface) or "PORT" (loopback); port 0 picks a free one.
    `interval`: seconds between collections (0.1 to 3600). `backends`: which to collect (default
    every one that opens here). ValueError for a bad address or interval; OSError or RuntimeError
    when the port cannot be bound or the web config is wrong, with the reason."""
    if not hasattr(native, "MetricsServer"):
        raise RuntimeError("unsupported: this build of xpuperf has no exporter "
                           "(XPUPERF_WITH_EXPORTER was off)")
    interval = float(interval)
    if not 0.1 <= interval <= 3600:
        raise ValueError(f"interval must be between 0.1 and 3600 seconds (got {interval})")
    if not isinstance(listen, str):
        raise TypeError(f"listen must be a str such as '127.0.0.1:9100' (got {listen!r})")
    server = native.MetricsServer(listen, interval, list(backends or []), web_config or "")
    host = listen.rsplit(":", 1)[0].strip("[]") if ":" in listen else "127.0.0.1"
    return MetricsServer(server, host or "0.0.0.0")
