#!/usr/bin/env python3
"""HTA as the referee of `xpuperf analyze --convention hta`.

For each trace given, runs Holistic Trace Analysis (the pinned package of requirements/hta.txt) and
`xpuperf analyze --convention hta --json` on the same file, and compares table by table: times
(integer µs) exactly, percentages within 0.01 points, rows matched by key (rank). Nothing of HTA's
output is stored: it is computed here, in the test run.

  hta_referee.py XPUPERF [--include-last-profiler-step] [--generated N] TRACE...
      exit 0 all agree, 1 a difference (each printed), 2 usage
--generated N also writes N synthetic Kineto traces (fixed seeds; see generate()) to a temporary
directory and compares on them: fractional and whole-µs timestamps, several ProfilerSteps, NCCL,
memcpy/memset, sync events, sub-µs kernels, string streams.
"""
import gzip
import json
import logging
import random
import os
import subprocess
import sys
import tempfile
import warnings

from hta_referee_tables import compare_tables, hta_tables, xpuperf_tables

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

PCT_TOLERANCE = 0.01  # percentage points


# --include-last-profiler-step: HTA's include_last_profiler_step=True on both sides.
INCLUDE_LAST = []


def load_hta(trace_path):
    """HTA's TraceAnalysis of one trace file (HTA reads a directory; one file in it is one rank,
    found by its "rank": N text)."""
    from hta.trace_analysis import TraceAnalysis

    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(os.path.abspath(trace_path), os.path.join(tmp, os.path.basename(trace_path)))
        return TraceAnalysis(trace_dir=tmp, include_last_profiler_step=bool(INCLUDE_LAST))


def hta_temporal(analysis):
    """HTA's temporal breakdown, as {rank: row}; None when HTA has no GPU kernels to break down
    (it raises on an empty kernel frame)."""
    try:
        df = analysis.get_temporal_breakdown(visualize=False)
    except (IndexError, KeyError, ValueError):
        return None
    rows = {}
    for _, r in df.iterrows():
        rows[int(r["rank"])] = {
            "idle_us": int(r["idle_time(us)"]),
            "compute_us": int(r["compute_time(us)"]),
            "non_compute_us": int(r["non_compute_time(us)"]),
            "kernel_us": int(r["kernel_time(us)"]),
            "idle_pct": float(r["idle_time_pctg"]),
            "compute_pct": float(r["compute_time_pctg"]),
            "non_compute_pct": float(r["non_compute_time_pctg"]),
        }
    return rows


def xpuperf_temporal(xpuperf, trace_path):
    out = subprocess.run(
        [xpuperf, "analyze", "--convention", "hta", *INCLUDE_LAST, "--json", "-a", "temporal",
         trace_path],
        check=True, capture_output=True, text=True).stdout
    rows = {}
    for rank in json.loads(out)["ranks"]:
        t = rank["temporal_breakdown"]
        if t["gpu_ops"] == 0:
            continue
        us = lambda ns: ns // 1000
        rows[int(rank["rank"])] = {
            "idle_us": us(t["idle_ns"]),
            "compute_us": us(t["compute_ns"]),
            "non_compute_us": us(t["non_compute_ns"]),
            "kernel_us": us(t["window_ns"]),
            "idle_pct": t["idle_percent"],
            "compute_pct": t["compute_percent"],
            "non_compute_pct": t["non_compute_percent"],
        }
    return rows


KERNELS = [
    "volta_sgemm_128x64_nn", "void at::native::vectorized_elementwise_kernel<4>(float)",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)", "ncclKernel_AllGather_RING_LL",
    "void cudaMemcpyKernel(int)", "dma_copy_engine", "triton_poi_fused_add_0",
]


def kernel_name(rng):
    """One of KERNELS, or one of 15 more computation kernels (so that HTA's kernel table groups
    the ones past its first 10 as "others")."""
    if rng.random() < 0.6:
        return rng.choice(KERNELS)
    return f"void elementwise_kernel_{rng.randint(0, 14)}<float>(float*, long)"


def gpu_user_annotations(events, windows, rng, t):
    """Kineto's GPU user annotations (cat gpu_user_annotation, on the GPU ops' pid and stream
    tid) over the GPU ops of each step: the step itself on each stream it used, and nested
    phases, some with equal durations, some overlapping each other."""
    notes = []
    gpu = [e for e in events if e["pid"] == 0]
    for step, start, end in windows:
        inside = [e for e in gpu if start <= e["ts"] < end]
        for stream in sorted({e["tid"] for e in inside}):
            ops = [e for e in inside if e["tid"] == stream]
            first, last = ops[0]["ts"], max(e["ts"] + e["dur"] for e in ops)
            notes.append({"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{step}",
                          "pid": 0, "tid": stream, "ts": t(first), "dur": t(last - first + 1)})
            span = max(last - first, 4.0)
            tie = rng.uniform(2, span)
            for phase in ("forward", "backward", "optimizer")[:rng.randint(1, 3)]:
                ts = first + rng.uniform(0, span / 2)
                dur = tie if rng.random() < 0.3 else rng.uniform(2, span)
                notes.append({"ph": "X", "cat": "gpu_user_annotation", "name": phase, "pid": 0,
                              "tid": stream, "ts": t(ts), "dur": t(dur)})
    return notes


def generate(path, seed):
    """A small Kineto trace whose shape follows the shared traces, with the cases where HTA's
    conventions bite: fractional µs (seed odd) or whole µs, 4-6 ProfilerSteps, kernels of every HTA
    kernel type on three streams, gpu_memcpy/gpu_memset, cuda_sync events (stream and
    correlation), sub-microsecond kernels, instants, and one cuda_runtime with stream "0x0"."""
    rng = random.Random(seed)
    frac = seed % 2 == 1
    t = lambda x: round(x, 3) if frac else int(x)
    events, corr, now = [], 1, 1_000_000.0 + rng.random() * 1000
    windows = []  # (step, start, end) of each ProfilerStep
    for step in range(rng.randint(4, 6)):
        step_start = now
        for _ in range(rng.randint(5, 30)):
            now += rng.uniform(1, 40)
            op_dur = rng.uniform(5, 80)
            events.append({"ph": "X", "cat": "cpu_op", "name": "aten::op", "pid": 1, "tid": 1,
                           "ts": t(now), "dur": t(op_dur)})
            launch = now + rng.uniform(0.1, 2)
            call_dur = rng.uniform(1, 8)
            runtime = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                       "tid": 1, "ts": t(launch), "dur": t(call_dur), "args": {"correlation": corr}}
            if rng.random() < 0.05:
                runtime["args"]["stream"] = "0x0"
            events.append(runtime)
            kind = rng.random()
            stream = rng.choice([7, 7, 7, 13, 20])
            start = launch + call_dur + rng.uniform(0, 60)
            dur = rng.choice([rng.uniform(0.2, 0.9), rng.uniform(1, 200)])
            if kind < 0.7:
                events.append({"ph": "X", "cat": "kernel", "name": kernel_name(rng), "pid": 0,
                               "tid": stream, "ts": t(start), "dur": t(dur),
                               "args": {"stream": stream, "device": 0, "correlation": corr}})
            elif kind < 0.85:
                events.append({"ph": "X", "cat": "gpu_memcpy",
                               "name": rng.choice(["Memcpy DtoH (Device -> Pinned)",
                                                   "Memcpy HtoD (Pageable -> Device)"]),
                               "pid": 0, "tid": stream, "ts": t(start), "dur": t(dur),
                               "args": {"stream": stream, "device": 0, "correlation": corr,
                                        "bytes": 4096,
                                        "memory bandwidth (GB/s)": rng.uniform(0.5, 20)}})
            elif kind < 0.93:
                events.append({"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0,
                               "tid": stream, "ts": t(start), "dur": t(dur),
                               "args": {"stream": stream, "device": 0, "correlation": corr,
                                        "memory bandwidth (GB/s)": rng.uniform(0.5, 20)}})
            else:
                events.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0,
                               "tid": stream, "ts": t(start), "dur": t(dur),
                               "args": {"stream": stream, "device": 0, "correlation": corr}})
            if rng.random() < 0.1:
                events.append({"ph": "i", "cat": "cpu_instant_event", "name": "mark", "pid": 1,
                               "tid": 1, "ts": t(now), "s": "t"})
            corr += 1
            now += op_dur
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}",
                       "pid": 1, "tid": 1, "ts": t(step_start), "dur": t(now - step_start)})
        windows.append((step, step_start, now))
    if seed % 4 != 2:
        events += gpu_user_annotations(events, windows, random.Random(seed + 1000), t)
    doc = {"schemaVersion": 1, "traceEvents": events}
    if seed % 3 == 0:
        doc = {"schemaVersion": 1, "distributedInfo": {"rank": seed % 5, "world_size": 8},
               "traceEvents": events}
    text = json.dumps(doc)
    if path.endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


def compare(name, hta, ours):
    problems = []
    if set(hta) != set(ours):
        problems.append(f"{name}: ranks HTA {sorted(hta)} xpuperf {sorted(ours)}")
    for rank in sorted(set(hta) & set(ours)):
        h, o = hta[rank], ours[rank]
        for key in h:
            if key.endswith("_pct"):
                bad = abs(h[key] - o[key]) > PCT_TOLERANCE + 1e-9
            else:
                bad = h[key] != o[key]
            if bad:
                problems.append(f"{name} rank {rank} {key}: HTA {h[key]} xpuperf {o[key]}")
    return problems


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    xpuperf, traces = argv[1], list(argv[2:])
    if traces[:1] == ["--include-last-profiler-step"]:
        INCLUDE_LAST.append(traces.pop(0))
    generated = tempfile.TemporaryDirectory()
    if traces[:1] == ["--generated"]:
        count = int(traces[1])
        traces = traces[2:]
        for seed in range(1, count + 1):
            path = os.path.join(generated.name, f"generated_{seed}.json" + (".gz" if seed % 2 else ""))
            generate(path, seed)
            traces.append(path)
    problems, compared, tabled = [], 0, 0
    for path in traces:
        name = os.path.basename(path)
        analysis = load_hta(path)
        # Every other table of HTA's, for the rank the file is read as.
        our_tables = xpuperf_tables(xpuperf, path, INCLUDE_LAST)
        for rank, tables in our_tables.items():
            found, tied = compare_tables(name, hta_tables(analysis, rank), tables)
            problems += found
            tabled += 1
            ties = f" ({tied} rows with equal timestamps: order-free columns only)" if tied else ""
            print(f"{name}: {len(tables)} tables: {'AGREE' if not found else 'DIFFER'}{ties}")
        hta = hta_temporal(analysis)
        ours = xpuperf_temporal(xpuperf, path)
        if hta is None:
            if ours:
                problems.append(f"{name}: HTA finds no GPU kernels, xpuperf reports {ours}")
            print(f"{name}: temporal: no GPU kernels for HTA, none for xpuperf")
            continue
        found = compare(name, hta, ours)
        compared += 1
        problems += found
        print(f"{name}: temporal: {'AGREE' if not found else 'DIFFER'} {hta}")
    for p in problems:
        print("DIFFERENCE " + p)
    print(f"{tabled} ranks compared with HTA table by table, {compared} of them with GPU time "
          f"for the temporal breakdown: {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
