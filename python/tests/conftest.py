"""Shared fixtures. ctest sets PYTHONPATH (the build tree's package), XPUPERF_TRACE_DIR (the
shared real traces), XPUPERF_CLI (the built binary) and XPUPERF_SOURCE_DIR."""

import os
import sys

import pytest

SOURCE_DIR = os.environ.get(
    "XPUPERF_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))


@pytest.fixture(scope="session")
def trace_dir():
    path = os.environ.get("XPUPERF_TRACE_DIR", "")
    if not path or not os.path.isdir(path):
        pytest.skip(f"skipped: the shared traces are not here (XPUPERF_TRACE_DIR={path!r})")
    return path


@pytest.fixture(scope="session")
def cli_path():
    path = os.environ.get("XPUPERF_CLI", "")
    if not path or not os.access(path, os.X_OK):
        pytest.skip(f"skipped: no xpuperf binary (XPUPERF_CLI={path!r})")
    return path


@pytest.fixture(scope="session")
def hta_referee():
    """trace/tests/hta_referee.py, for its generator of synthetic Kineto traces."""
    sys.path.insert(0, os.path.join(SOURCE_DIR, "trace", "tests"))
    import hta_referee

    return hta_referee
