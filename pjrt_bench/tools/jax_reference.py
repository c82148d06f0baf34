"""The referee of the PJRT benchmarks: the same GEMM and bandwidth programs through JAX on the
same CPU. Each is the same loop xpuperf compiles (lax.fori_loop with the trip count an argument;
the GEMM's input through lax.optimization_barrier with the counter), timed as Google's
accelerator microbenchmarks time a call (perf_counter around the jitted call and
block_until_ready), with the trip count doubled until a call lasts --min-seconds, as xpuperf's
sampler does. Prints one JSON object: {"gemm_<precision>_<m>x<n>x<k>": GFLOP/s,
"stream_<kernel>_<elements>": GB/s}, each from the median of --samples calls.

With --pjrt-plugin PATH, JAX runs the programs on that PJRT plugin (registered as a backend with a
1-device client, as xpuperf's single-device benchmarks use it) instead of jaxlib's own CPU client:
the same compiler on both sides, so a difference is the runner's.

Usage: jax_reference.py [--samples N] [--pjrt-plugin PATH] gemm:fp32:1024:1024:1024 ...
"""
import argparse
import json
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

DTYPES = {"fp32": jnp.float32, "bf16": jnp.bfloat16}


MIN_SECONDS = 0.05


def call_seconds(fn, args, n):
    start = time.perf_counter()
    jax.block_until_ready(fn(*args, n))
    return time.perf_counter() - start


def median_seconds_per_iteration(fn, args, samples):
    """fn(*args, n) runs n iterations of a compiled loop."""
    n = 1
    call_seconds(fn, args, n)  # compile and warm up
    while call_seconds(fn, args, n) < MIN_SECONDS and n < (1 << 30):
        n *= 2
    return statistics.median(call_seconds(fn, args, n) / n for _ in range(samples))


def gemm(precision, m, n, k, samples):
    dtype = DTYPES[precision]
    rng = np.random.default_rng(1)
    a = jnp.asarray(rng.uniform(-1, 1, (m, k)), dtype=dtype)
    b = jnp.asarray(rng.uniform(-1, 1, (k, n)), dtype=dtype)
    def loop(a, b, iterations):
        def body(i, carry):
            x, _ = carry
            _, x = jax.lax.optimization_barrier((i, x))
            return x, jnp.dot(x, b)

        return jax.lax.fori_loop(0, iterations, body, (a, jnp.zeros((m, n), dtype)))[1]

    seconds = median_seconds_per_iteration(jax.jit(loop), (a, b), samples)
    return 2.0 * m * n * k / seconds / 1e9


def stream(kernel, elements, samples):
    x = jnp.arange(elements, dtype=jnp.float32) % 16 - 8
    y = jnp.arange(elements, dtype=jnp.float32) % 5 - 2
    s = jnp.float32(1.0)
    kernels = {
        "copy": (lambda x, y, s: x + s, 2),
        "scale": (lambda x, y, s: x * s, 2),
        "add": (lambda x, y, s: x + y, 3),
        "triad": (lambda x, y, s: x + s * y, 3),
    }
    update, arrays = kernels[kernel]

    def loop(x, y, s, iterations):
        return jax.lax.fori_loop(0, iterations, lambda i, x: update(x, y, s), x)

    seconds = median_seconds_per_iteration(jax.jit(loop), (x, y, s), samples)
    return elements * 4.0 * arrays / seconds / 1e9


def main():
    global MIN_SECONDS
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--min-seconds", type=float, default=0.05)
    parser.add_argument("--pjrt-plugin", default="")
    parser.add_argument("points", nargs="+")
    args = parser.parse_args()
    MIN_SECONDS = args.min_seconds
    if args.pjrt_plugin:
        from jax._src import xla_bridge

        xla_bridge.register_plugin("xpuperf_referee", priority=1000,
                                   library_path=args.pjrt_plugin,
                                   options={"cpu_device_count": 1})
        jax.config.update("jax_platforms", "xpuperf_referee")
        # The plugin's platform is "cpu" too: check that the devices are the plugin client's.
        assert jax.devices() == xla_bridge.get_backend("xpuperf_referee").devices()
        assert len(jax.devices()) == 1, jax.devices()
    out = {}
    for point in args.points:
        kind, *rest = point.split(":")
        if kind == "gemm":
            precision, m, n, k = rest[0], *map(int, rest[1:])
            out[f"gemm_{precision}_{m}x{n}x{k}"] = gemm(precision, m, n, k, args.samples)
        else:
            kernel, elements = rest[0], int(rest[1])
            out[f"stream_{kernel}_{elements}"] = stream(kernel, elements, args.samples)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
