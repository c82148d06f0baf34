"""The README's examples, run as a newcomer runs them (ctest `readme_examples`): every `$ ` line
of the fenced examples under "One example per pillar", in order, through the shell, from a fresh
empty working directory with `xpuperf` on PATH, with the README's own relative paths. The main
job failed once on a relative path that every test passed (results/ did not exist in the user's
directory); this runs the documented commands themselves.

What the test changes, and why:
  - an argument naming a file of the repository (roofline/examples/..., deploy/...) that does not
    exist in the empty directory is given as its path in the checkout (a reader runs the README
    from the clone; the working directory stays empty);
  - a trace file name is looked up in XPUPERF_TRACE_DIR (the shared real traces); without it the
    line is skipped and says so;
  - a line ending in `&` (a server) is started in the background on a free port, waited for until
    it answers, and the README's address 127.0.0.1:10877 in the later lines points at that port;
    it is stopped with SIGTERM at the end and must exit 0.
Exit codes: 0 for every line, but `bench check` and `compare --fail-on-regression` may exit 1
(a figure below its threshold or a regression on a noisy machine is their documented answer, not
a failure of the command), and 3 when every figure was measured unstable (a busy machine: this
test runs beside others) and they say so ("no stable ..."); 2 or a signal is always a failure.

Usage: readme_examples_test.py XPUPERF README.md TRACE_DIR"""
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

README_ADDRESS = "127.0.0.1:10877"


def example_lines(readme):
    """The `$ ` lines (continuations joined) of the fenced blocks after "One example per pillar"."""
    section = readme.split("## One example per pillar", 1)[1].split("\n## ", 1)[0]
    lines, in_block, pending = [], False, None
    for line in section.splitlines():
        if line.startswith("```"):
            in_block = not in_block and line.strip() == "```"
            continue
        if not in_block:
            continue
        if pending is not None:
            pending += " " + line.strip()
        elif line.startswith("$ "):
            pending = line[2:]
        else:
            continue
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        lines.append(pending)
        pending = None
    return lines


def without_comment(command):
    """The command without its trailing `  # ...` comment (a " #" outside quotes)."""
    quote = None
    for i, c in enumerate(command):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and i > 0 and command[i - 1] == " ":
            return command[:i].rstrip()
    return command


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def resolve_paths(command, repo, trace_dir, cwd):
    """Repository files and trace names as paths that exist; None when a trace is absent."""
    out = []
    for word in command.split(" "):
        bare = word.strip("'\"")
        if bare and not bare.startswith("-") and "/" in bare and not os.path.exists(
                os.path.join(cwd, bare)) and os.path.exists(os.path.join(repo, bare)):
            word = word.replace(bare, os.path.join(repo, bare))
        elif re.search(r"\.json(\.gz)?$", bare) and "/" not in bare:
            if not trace_dir or not os.path.exists(os.path.join(trace_dir, bare)):
                return None
            word = word.replace(bare, os.path.join(trace_dir, bare))
        out.append(word)
    return " ".join(out)


def wait_for_server(url, process, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=10):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def main():
    xpuperf, readme_path, trace_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    repo = os.path.dirname(os.path.abspath(readme_path))
    readme = open(readme_path, encoding="utf-8").read()
    commands = example_lines(readme)
    if not commands:
        print("FAIL: no example lines found under 'One example per pillar'")
        return 1
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(xpuperf)) + os.pathsep +
               os.environ.get("PATH", ""))
    # The quick suite's collectives run under mpirun: Open MPI's runtime keeps its allocations until
    # exit, so in sanitizer runs its ranks must not fail on leak reports about them.
    if "ASAN_OPTIONS" in env:
        env["ASAN_OPTIONS"] += ":detect_leaks=0"
    failures, servers, address = [], [], README_ADDRESS
    with tempfile.TemporaryDirectory(prefix="xpuperf-readme-") as cwd:
        assert not os.listdir(cwd)
        try:
            for raw in commands:
                command = without_comment(raw).replace(README_ADDRESS, address)
                resolved = resolve_paths(command, repo, trace_dir, cwd)
                if resolved is None:
                    print(f"SKIP  {raw}  (its trace is not in {trace_dir!r})")
                    continue
                if resolved.endswith("&"):
                    port = free_port()
                    address = f"127.0.0.1:{port}"
                    argv = shlex.split(resolved[:-1]) + ["--listen", address]
                    print(f"START {raw}  (on {address})")
                    server = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.PIPE, text=True)
                    servers.append((raw, server))
                    if not wait_for_server(f"http://{address}/metrics", server):
                        failures.append(f"{raw}: the server did not answer on {address}")
                    continue
                started = time.monotonic()
                r = subprocess.run(["bash", "-o", "pipefail", "-c", resolved], cwd=cwd, env=env,
                                   capture_output=True, text=True, timeout=900)
                judging = re.search(r"xpuperf (bench check|compare)\b", command)
                allowed = {0, 1} if judging else {0}
                if judging and "no stable" in r.stderr:
                    allowed.add(3)  # nothing stable to judge on a busy machine: said, not failed
                print(f"RUN   {raw}  -> exit {r.returncode} in {time.monotonic() - started:.1f} s")
                if r.returncode not in allowed or (r.returncode == 1 and not r.stdout.strip()):
                    failures.append(f"{raw}: exit {r.returncode}: {r.stderr.strip()[-2000:]}")
        finally:
            for raw, server in servers:
                server.send_signal(signal.SIGTERM)
                try:
                    code = server.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    server.kill()
                    code = "still running 60 s after SIGTERM"
                if code != 0:
                    failures.append(f"{raw}: exit {code} after SIGTERM: {server.stderr.read()}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(commands)} example lines, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
