"""The xpuperf command-line tool from Python: `python -m xpuperf ARGS` runs it.

Which binary: $XPUPERF_CLI when set; else the one bundled in the package (a wheel built with
-C cmake.define.XPUPERF_PYTHON_BUNDLE_CLI=ON has xpuperf/bin/xpuperf); else `xpuperf` on PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import List, Optional, Sequence

__all__ = ["executable", "main"]


def executable() -> str:
    """The path of the xpuperf binary; FileNotFoundError saying where it was looked for."""
    explicit = os.environ.get("XPUPERF_CLI")
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise FileNotFoundError(f"XPUPERF_CLI={explicit} is not an executable file")
        return explicit
    bundled = os.path.join(os.path.dirname(__file__), "bin", "xpuperf")
    if os.path.isfile(bundled) and os.access(bundled, os.X_OK):
        return bundled
    found = shutil.which("xpuperf")
    if found:
        return found
    raise FileNotFoundError(
        "the xpuperf command-line tool was not found: not bundled in this package, not on PATH, "
        "and XPUPERF_CLI is not set (build it with CMake, or build the wheel with "
        "-C cmake.define.XPUPERF_PYTHON_BUNDLE_CLI=ON)")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the CLI with `argv` (default sys.argv[1:]) and returns its exit status."""
    args: List[str] = list(sys.argv[1:] if argv is None else argv)
    try:
        binary = executable()
    except FileNotFoundError as error:
        print(f"xpuperf: error: {error}", file=sys.stderr)
        return 127
    try:
        return subprocess.call([binary] + args)
    except KeyboardInterrupt:  # the child got the same SIGINT and stops itself
        return 130
