"""Loads the native module with an error that says what to do when it is missing."""

try:
    from xpuperf import _xpuperf as native  # noqa: F401
except ImportError as error:  # pragma: no cover - only without a build
    raise ImportError(
        "xpuperf's native module (xpuperf._xpuperf) is not built or does not match this "
        f"Python ({error}); install the package with `pip install .` from the repository"
    ) from error
