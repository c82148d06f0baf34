"""A small real JAX program for the XLA profiler tests: a jitted function with its own module name
(jit_xpuperf_probe_step) and a few HLO ops that XLA:CPU does not fuse into one, run in steps.

  jax_program.py server PORT SECONDS   serves jax.profiler.start_server(PORT) while stepping
  jax_program.py trace DIR STEPS        jax.profiler.trace(DIR) around STEPS steps
  jax_program.py trace-python DIR STEPS the same with the Python tracer and verbose host tracing
                                        (many small events: scripts/xplane-perf.sh)
Prints "ready" (server mode) once the server is up and the function compiled."""
import sys
import time

import jax
import jax.numpy as jnp


@jax.jit
def xpuperf_probe_step(x, w):
    y = jnp.tanh(x @ w)
    z = jnp.sort(y, axis=0)  # a sort is its own op on XLA:CPU
    return jnp.cumsum(z, axis=1)[0] + jnp.sum(y * 2.0, axis=0)


def step(x, w, i):
    with jax.profiler.StepTraceAnnotation("xpuperf_train", step_num=i):
        return xpuperf_probe_step(x, w).block_until_ready()


def main():
    mode, where, amount = sys.argv[1], sys.argv[2], float(sys.argv[3])
    x = jnp.ones((128, 128))
    w = jnp.ones((128, 128)) * 0.01
    step(x, w, 0)
    if mode == "server":
        jax.profiler.start_server(int(where))
        print("ready", flush=True)
        end = time.monotonic() + amount
        i = 1
        while time.monotonic() < end:
            step(x, w, i)
            i += 1
            time.sleep(0.002)
    else:
        options = None
        if mode == "trace-python":
            options = jax.profiler.ProfileOptions()
            options.python_tracer_level = 1
            options.host_tracer_level = 3
        with jax.profiler.trace(where, profiler_options=options):
            for i in range(int(amount)):
                step(x, w, i)


if __name__ == "__main__":
    main()
