#!/usr/bin/env python3
"""Writes legacy_torch_profiler.json: a trace in the exact byte layout of PyTorch's legacy export
(torch built without Kineto, e.g. Debian's python3-torch 1.13: torch.autograd.profiler with
use_kineto=False, EventList.export_chrome_trace in torch/autograd/profiler_util.py): a bare JSON
array written with f.write, each operator `{"name", "ph": "X", "ts", "dur", "tid",
"pid": "CPU functions", "args": {}}` (µs, floats), no `cat`; with CUDA, a flow pair per kernel
(`"ph": "s"` on pid "CPU functions", `"ph": "f"` on pid "CUDA functions", cat "cpu_to_cuda") and
no kernel durations. The events are those of a two-layer MLP forward and backward on one thread
(nesting as torch records it), one linear on a second thread, and one kernel flow.

python3 write_legacy_torch_trace.py > legacy_torch_profiler.json   (deterministic)
"""
import sys

# (name, start µs, duration µs, thread): nested ops lie inside their parent on the same thread.
EVENTS = [
    ("aten::linear", 100.125, 60.5, 1), ("aten::t", 101.0, 4.25, 1),
    ("aten::transpose", 101.5, 2.75, 1), ("aten::as_strided", 102.0, 1.0, 1),
    ("aten::addmm", 106.0, 50.0, 1), ("aten::expand", 107.0, 3.0, 1),
    ("aten::copy_", 111.0, 10.0, 1), ("aten::relu", 170.0, 20.0, 1),
    ("aten::clamp_min", 172.0, 15.0, 1), ("aten::linear", 200.0, 40.0, 1),
    ("aten::addmm", 205.0, 30.0, 1), ("aten::sum", 250.0, 12.5, 1),
    ("aten::ones_like", 270.0, 5.0, 1), ("aten::empty_like", 271.0, 2.0, 1),
    ("autograd::engine::evaluate_function: AddmmBackward0", 300.0, 80.0, 2),
    ("AddmmBackward0", 301.0, 75.0, 2), ("aten::mm", 305.0, 30.0, 2),
    ("aten::mm", 340.0, 30.0, 2),
]


def main():
    out = sys.stdout
    out.write("[")
    parts = []
    for name, start, dur, tid in EVENTS:
        parts.append('{"name": "%s", "ph": "X", "ts": %s, "dur": %s, "tid": %s, '
                     '"pid": "CPU functions", "args": {}}, ' % (name, start, dur, tid))
    # One kernel launched by the first addmm: torch writes only the flow, no kernel duration.
    parts.append('{"name": "aten::addmm", "ph": "s", "ts": 106.0, "tid": 1, "pid": "CPU functions", '
                 '"id": 0, "cat": "cpu_to_cuda", "args": {}}, ')
    parts.append('{"name": "volta_sgemm_32x128_nn", "ph": "f", "ts": 120.0, "tid": 0, '
                 '"pid": "CUDA functions", "id": 0, "cat": "cpu_to_cuda", "args": {}}, ')
    text = "".join(parts)
    out.write(text[:-2])  # torch seeks back over the trailing ", "
    out.write("]")


if __name__ == "__main__":
    main()
