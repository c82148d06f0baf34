"""The PyTorch interpreter of the tests that run a real PyTorch process (the agent's on-demand
capture, the MFU referee): the Python package's test environment (requirements/python-tests.txt),
created once by scripts/python-env.sh. Standard library only."""
import os
import subprocess


def torch_python(source_dir):
    """(path of a python that imports torch, None), or (None, why not) to skip on."""
    env_script = os.path.join(source_dir, "scripts", "python-env.sh")
    made = subprocess.run(["bash", env_script, "python-tests"], capture_output=True, text=True)
    if made.returncode != 0:
        return None, "cannot create the PyTorch environment: " + made.stderr[-2000:]
    python = os.path.join(made.stdout.strip(), "bin", "python")
    imported = subprocess.run([python, "-c", "import torch"], capture_output=True, text=True)
    if imported.returncode != 0:
        return None, "torch does not import here: " + " ".join(
            imported.stderr.strip().splitlines()[-1:])
    return python, None
