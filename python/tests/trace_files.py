"""The shared real traces for the HTA comparisons: the files, and one file as a directory of its
own (HTA reads directories)."""

import glob
import os


def shared_traces():
    """The *.json* files of XPUPERF_TRACE_DIR, sorted; empty when it is not set."""
    root = os.environ.get("XPUPERF_TRACE_DIR", "")
    return sorted(glob.glob(os.path.join(root, "*.json*"))) if os.path.isdir(root) else []


def single(tmp_path, path):
    """A directory under tmp_path holding a link to `path` alone."""
    directory = tmp_path / os.path.basename(path)
    directory.mkdir()
    os.symlink(os.path.abspath(path), directory / os.path.basename(path))
    return str(directory)
