"""A real PyTorch (CPU) training loop and a real JAX function instrumented with xpuperf.scope and
the step helpers: the ranges are in the tracer's Chrome trace and in op_execution_time_seconds."""

import json

import pytest

import xpuperf
from xpuperf import frameworks


def _trace_names(path):
    with open(path) as f:
        return [e["name"] for e in json.load(f)["traceEvents"] if e["ph"] == "X"]


def _op_counts():
    reading = next(r for r in xpuperf.metrics("op_execution_time_seconds", window=0))
    return {s.labels.get("op"): s.count for s in reading.samples}


def _import_or_skip(name):
    try:
        return __import__(name)
    except ImportError as error:  # e.g. torch's CUDA libraries missing on this machine
        pytest.skip(f"skipped: {name} cannot be imported here ({error})")


def test_pytorch_training_loop(tmp_path):
    torch = _import_or_skip("torch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 16), torch.randn(64, 1)
    path = tmp_path / "torch.json"
    with xpuperf.trace(path, record_ops=True):
        remove = frameworks.torch_step_hook(optimizer, op="torch_train_step")
        for _ in range(5):
            optimizer.zero_grad()
            with xpuperf.scope("torch_forward"):
                loss = torch.nn.functional.mse_loss(model(x), y)
            with xpuperf.scope("torch_backward"):
                loss.backward()
            optimizer.step()
        remove()
    names = _trace_names(path)
    assert names.count("torch_forward") == 5 and names.count("torch_backward") == 5
    assert sum(n.startswith("ProfilerStep#") for n in names) == 6  # 5 steps + the one closed by remove()
    counts = _op_counts()
    assert counts["torch_forward"] >= 5 and counts["torch_backward"] >= 5
    assert counts["torch_train_step"] >= 5


def test_jax_function(tmp_path):
    jax = _import_or_skip("jax")
    import jax.numpy as jnp

    @jax.jit
    def f(a, b):
        return jnp.tanh(a @ b).sum()

    a = jnp.ones((64, 64))
    step = frameworks.jax_step(f, op="jax_step_op")
    path = tmp_path / "jax.json"
    with xpuperf.trace(path, record_ops=True):
        for _ in range(4):
            with xpuperf.scope("jax_matmul"):
                jax.block_until_ready(f(a, a))
            step(a, a)
    names = _trace_names(path)
    assert names.count("jax_matmul") == 4
    assert sum(n.startswith("ProfilerStep#") for n in names) == 4
    counts = _op_counts()
    assert counts["jax_matmul"] >= 4 and counts["jax_step_op"] >= 4
