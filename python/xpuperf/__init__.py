"""xpuperf from Python: telemetry of CPUs, NVIDIA GPUs and TPUs, a tracer and recorder for your
own code, and trace analysis with Holistic Trace Analysis's API, over xpuperf's native SDK.

    import xpuperf
    xpuperf.devices()                               # as `xpuperf devices`
    xpuperf.metrics(["power_watts"]).to_dataframe() # as `xpuperf metrics`
    with xpuperf.trace("trace.json", record_ops=True):
        with xpuperf.scope("forward"):
            ...
    xpuperf.analyze("traces/").get_temporal_breakdown()   # HTA's DataFrame
    server = xpuperf.serve()                        # Prometheus /metrics with your ops, server.url

docs/PYTHON.md has the whole API.
"""

from xpuperf._native import native as _native
from xpuperf import bench, cli, frameworks
from xpuperf.exporter import MetricsServer, serve
from xpuperf.telemetry import (Device, Reading, Readings, Sample, Session, backends, catalog,
                               devices, metrics, tpu_sdk, watch)
from xpuperf.tracing import (counter, flush_trace, instant, record_op, record_transfer, scope,
                             set_queue_depth, set_thread_name, start_trace, stop_trace,
                             timed_op, trace, traced, tracing)

__version__ = _native.__version__

__all__ = ["Device", "MetricsServer", "Reading", "Readings", "Sample", "Session", "analyze",
           "backends", "bench", "catalog", "cli", "counter", "devices", "flush_trace", "frameworks",
           "instant", "metrics", "record_op", "record_transfer", "scope", "serve",
           "set_queue_depth", "set_thread_name", "start_trace", "stop_trace", "timed_op", "trace",
           "tpu_sdk", "traced", "tracing", "watch"]


def analyze(path, include_last_profiler_step=False):
    """Reads a trace file or a directory of per-rank traces (PyTorch/Kineto, JAX, xpuperf's own)
    in HTA's convention and returns an xpuperf.hta.TraceAnalysis: get_temporal_breakdown(),
    get_gpu_kernel_breakdown(), get_comm_comp_overlap() ... give HTA's DataFrames."""
    from xpuperf.hta import TraceAnalysis

    return TraceAnalysis(trace_dir=path, include_last_profiler_step=include_last_profiler_step)
