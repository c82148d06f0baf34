"""HTA's tables beside the temporal breakdown, for hta_referee.py: each of HTA's analyses run on a
trace and the `hta` analysis of `xpuperf analyze --convention hta --json` (trace/src/
analysis_hta.cpp) read into the same shape, {table: {row key: {column: value}}}, and compared:
counts and whole-µs sums exactly, percentages and ratios within PCT_TOLERANCE points, other
floats (means, standard deviations, quantiles, GB/s) within a relative 1e-9. NaN equals NaN (and
JSON's null). An analysis HTA raises on is compared with an empty xpuperf table.
"""
import json
import math
import subprocess

PCT_TOLERANCE = 0.01  # percentage points (ratios are fractions: 0.01 of a point is 1e-4)
DESCRIBE = ("count", "mean", "std", "min", "25%", "50%", "75%", "max")
DESCRIBE_KEYS = ("count", "mean", "std", "min", "p25", "p50", "p75", "max")
TIES = "_ties"
# What the order of equal timestamps cannot change: the number of change points of a queue (each
# launch and op is one); nothing of the positive-bandwidth points (their number changes too).
TIE_INVARIANT = {"queue_length": ("count",), "memory_bw": ()}


def _num(value):
    return float("nan") if value is None else float(value)


def _describe_row(values):
    return {key: _num(v) for key, v in zip(DESCRIBE_KEYS, values)}


def hta_tables(analysis, rank):
    """HTA's tables for one rank of a TraceAnalysis over a single trace file."""
    tables = {}

    def attempt(name, compute):
        try:
            tables[name] = compute()
        except Exception as error:  # HTA raises on traces it cannot analyse (no kernels, ...)
            tables[name] = {"raised": {"error": type(error).__name__}}

    def overlap():
        df = analysis.get_comm_comp_overlap(visualize=False)
        return {int(r["rank"]): {"comp_comm_overlap_pctg": _num(r["comp_comm_overlap_pctg"])}
                for _, r in df.iterrows()}

    def kernel_types():
        df = analysis.get_gpu_kernel_breakdown(visualize=False)[0]
        return {r["kernel_type"]: {"sum_us": int(r["sum"]), "percentage": float(r["percentage"])}
                for _, r in df.iterrows() if int(r["sum"]) != 0}

    def kernels():
        df = analysis.get_gpu_kernel_breakdown(visualize=False)[1]
        return {(r["kernel_type"], r["name"]): {
            "sum_us": _num(r["sum (us)"]), "max_us": _num(r["max (us)"]),
            "min_us": _num(r["min (us)"]), "mean_us": _num(r["mean (us)"]),
            "stddev": _num(r["stddev"])} for _, r in df.iterrows()}

    def idle():
        df = analysis.get_idle_time_breakdown(ranks=[rank], visualize=False)[0]
        return {(int(r["stream"]), r["idle_category"]): {
            "idle_time_us": _num(r["idle_time"]), "idle_time_ratio": _num(r["idle_time_ratio"])}
            for _, r in df.iterrows()}

    def launch():
        df = analysis.get_cuda_kernel_launch_stats(ranks=[rank], visualize=False)[rank]
        if len(df) == 0:
            return {}
        described = df[["cpu_duration", "gpu_duration", "launch_delay"]].describe()
        return {column: _describe_row(described[column][list(DESCRIBE)].tolist())
                for column in ("cpu_duration", "gpu_duration", "launch_delay")}

    def described(method, key_name):
        df = method(ranks=[rank])
        if df is None:
            return {}
        df = df.reset_index()
        rows = {}
        for _, r in df.iterrows():
            values = [r[(df.columns[-8][0], stat)] for stat in DESCRIBE]
            key = r[(key_name, "")]
            rows[int(key) if key_name == "stream" else key] = _describe_row(values)
        return rows

    attempt("comm_comp_overlap", overlap)
    attempt("kernel_types", kernel_types)
    attempt("kernels", kernels)
    attempt("idle_time", idle)
    attempt("launch_stats", launch)
    attempt("queue_length", lambda: described(analysis.get_queue_length_summary, "stream"))
    attempt("memory_bw", lambda: described(analysis.get_memory_bw_summary, "name"))
    # Equal timestamps within a stream (memory-op kind): HTA orders them with numpy's unstable
    # SIMD sort, whose order of equal keys depends on the CPU (AVX2 or AVX-512); xpuperf keeps
    # frame order. Such rows are marked, and only what the order cannot change is compared.
    mark_ties(tables.get("queue_length"), lambda: analysis.get_queue_length_time_series(
        ranks=[rank]).get(rank), "stream", int)
    mark_ties(tables.get("memory_bw"), lambda: analysis.get_memory_bw_time_series(
        ranks=[rank]).get(rank), "name", str)
    return tables


def mark_ties(rows, series, key_name, key_type):
    """Marks (TIES = True) the rows whose time series has two points at the same timestamp."""
    if not rows or "raised" in rows:
        return
    df = series()
    if df is None:
        return
    for key, group in df.groupby(key_name):
        if group["ts"].duplicated().any() and key_type(key) in rows:
            rows[key_type(key)][TIES] = True


def xpuperf_tables(xpuperf, trace_path, extra_args=()):
    """{rank: tables} from `xpuperf analyze --convention hta [extra_args] --json -a hta`."""
    out = subprocess.run(
        [xpuperf, "analyze", "--convention", "hta", *extra_args, "--json", "-a", "hta",
         trace_path],
        check=True, capture_output=True, text=True).stdout
    result = {}
    for rank in json.loads(out)["ranks"]:
        t = rank.get("hta", {})
        r = int(rank["rank"])
        tables = {
            "comm_comp_overlap": {r: {"comp_comm_overlap_pctg": _num(row["comp_comm_overlap_pctg"])}
                                  for row in t.get("comm_comp_overlap", [])},
            "kernel_types": {row["kernel_type"]: {"sum_us": row["sum_us"],
                                                  "percentage": row["percentage"]}
                             for row in t.get("kernel_types", [])},
            "kernels": {(row["kernel_type"], row["name"]): {
                k: _num(row[k]) for k in ("sum_us", "max_us", "min_us", "mean_us", "stddev")}
                for row in t.get("kernels", [])},
            "idle_time": {(row["stream"], row["idle_category"]): {
                "idle_time_us": _num(row["idle_time_us"]),
                "idle_time_ratio": _num(row["idle_time_ratio"])} for row in t.get("idle_time", [])},
            "launch_stats": {row["column"]: {k: _num(row[k]) for k in DESCRIBE_KEYS}
                             for row in t.get("launch_stats", [])},
            "queue_length": {row["stream"]: {k: _num(row[k]) for k in DESCRIBE_KEYS}
                             for row in t.get("queue_length", [])},
            "memory_bw": {row["name"]: {k: _num(row[k]) for k in DESCRIBE_KEYS}
                          for row in t.get("memory_bw", [])},
        }
        if "queue_length_problem" in t:
            tables["queue_length"] = {"raised": {"error": "AssertionError"}}
        result[r] = tables
    return result


def _differs(column, h, o):
    if isinstance(h, str) or isinstance(o, str):
        return h != o
    h, o = float(h), float(o)
    if math.isnan(h) or math.isnan(o):
        return not (math.isnan(h) and math.isnan(o))
    if column.endswith(("pctg", "percentage")):
        return abs(h - o) > PCT_TOLERANCE + 1e-9
    if column.endswith("ratio"):
        return abs(h - o) > PCT_TOLERANCE / 100 + 1e-12
    return abs(h - o) > 1e-9 * max(1.0, abs(h))


def _tied_names(hta_only, ours_only):
    """Whether the rows only one side has are names of equal (kernel type, sum), one for one."""
    return sorted(hta_only) == sorted(ours_only)


def compare_tables(name, hta, ours):
    """(differences as lines, rows compared only in part because of ties) for one rank."""
    problems, tied = [], 0
    for table, h_rows in hta.items():
        o_rows = ours.get(table, {})
        if "raised" in h_rows:
            if o_rows and "raised" not in o_rows:
                problems.append(f"{name} {table}: HTA raises {h_rows['raised']['error']}, "
                                f"xpuperf gives {len(o_rows)} rows")
            continue
        if set(h_rows) != set(o_rows) and table == "kernels" and _tied_names(
                [(key[0], h_rows[key]["sum_us"]) for key in set(h_rows) - set(o_rows)],
                [(key[0], o_rows[key]["sum_us"]) for key in set(o_rows) - set(h_rows)]):
            # Names with equal sums on both sides of HTA's top-10 cut: its unstable sort picks
            # which ones keep a row (the values, "others" included, are the same either way).
            tied += len(set(h_rows) - set(o_rows))
        elif set(h_rows) != set(o_rows):
            problems.append(f"{name} {table}: rows HTA only {sorted(map(str, set(h_rows) - set(o_rows)))[:5]}"
                            f", xpuperf only {sorted(map(str, set(o_rows) - set(h_rows)))[:5]}")
        for key in set(h_rows) & set(o_rows):
            columns = h_rows[key]
            if columns.get(TIES):
                tied += 1
                columns = {c: v for c, v in columns.items() if c in TIE_INVARIANT[table]}
            for column, value in columns.items():
                if _differs(column, value, o_rows[key].get(column)):
                    problems.append(f"{name} {table} {key} {column}: HTA {value} xpuperf "
                                    f"{o_rows[key].get(column)}")
    return problems, tied
