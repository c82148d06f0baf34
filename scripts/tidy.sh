#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over every translation unit of the project, in parallel, with a result cache.
#
# Usage: scripts/tidy.sh [BUILD_DIR] [PATH_REGEX]
#   BUILD_DIR   holds compile_commands.json (default build/; configure with tests and benchmarks on
#               to see every file). Its generated headers (protobuf/gRPC) must exist: run its build,
#               or at least `ninja -C BUILD_DIR` on the generated files.
#   PATH_REGEX  limits the files checked (a Python regex on the path relative to the source root,
#               e.g. '^core/'); default all.
# Exit status: 0 clean, 1 when any check fires (or clang-tidy fails on a file), 2 on bad usage.
#
# Which files: every .cpp of compile_commands.json under the source root, except generated code
# (anything under a build folder: protobuf/gRPC stubs, builtin_suites.cpp) and third-party sources
# outside the tree (nanobind). Third-party headers are outside HeaderFilterRegex. Test and benchmark
# files (tests/, gpu_tests/, fuzz/, benchmarks/ folders) run with a narrower set (NARROWER below).
#
# Cache (~/.cache/xpuperf-tidy, or $XDG_CACHE_HOME/xpuperf-tidy): one empty file per clean result,
# named by the SHA-256 of clang-tidy's version, .clang-tidy, the extra checks, the compile command
# and the translation unit preprocessed with comments kept (-E -C), so an edit to the file or any
# header it includes (a NOLINT included) re-checks exactly the files that see it. Findings are
# never cached. XPUPERF_TIDY_BUDGET_S=N stops starting new (uncached) checks after N seconds and
# lists the files left unchecked (CI's cold-cache bound); 0 or unset checks everything.
# XPUPERF_TIDY_JOBS overrides the parallelism (default: the number of cores);
# TIDY_SOURCE_ROOT the source root (default: this checkout; the self-test points it elsewhere).
# XPUPERF_TIDY_CHECKS is appended to every file's checks (part of the cache key), e.g.
# '-clang-analyzer-*' for CI: the static analyzer is ~3/4 of a cold run's cost (22.7 s of the file
# core/src/session.cpp's 25 s; 6 s without it; 2.6 s to parse alone).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${TIDY_SOURCE_ROOT:-$here}
build_dir=${1:-$root/build}
filter=${2:-.}
case "$build_dir" in /*) ;; *) build_dir=$PWD/$build_dir ;; esac
cd "$root"
[ -f "$build_dir/compile_commands.json" ] ||
  { echo "tidy: no $build_dir/compile_commands.json (configure a build first)" >&2; exit 2; }
command -v clang-tidy >/dev/null || { echo "tidy: clang-tidy not installed" >&2; exit 2; }
[ -f .clang-tidy ] || { echo "tidy: no .clang-tidy in $root" >&2; exit 2; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/xpuperf-tidy
mkdir -p "$cache"
exec python3 - "$build_dir" "$filter" "$cache" "${XPUPERF_TIDY_JOBS:-$(nproc)}" \
  "${XPUPERF_TIDY_CHECKS:-}" <<'PY'
import concurrent.futures, hashlib, json, os, re, shlex, subprocess, sys, time

build, cache, jobs = sys.argv[1], sys.argv[3], max(1, int(sys.argv[4]))
try:
    path_filter = re.compile(sys.argv[2])
except re.error as error:
    print(f"tidy: bad PATH_REGEX: {error}", file=sys.stderr)
    sys.exit(2)
root = os.getcwd()
# Narrower sets, appended to .clang-tidy's Checks for these folders:
# - tests: gtest's TEST() macros declare classes named Suite_Name_Test, and fixtures use public
#   members without the trailing underscore; naming is for the library's API.
# - benchmarks: google/benchmark names harnesses BM_<Case>, and its loop `for (auto _ : state)`
#   stores a value that is never read (the analyzer's dead store, by design of that API).
# Everything else (bugprone, analyzer, performance) applies to them too.
NARROWER = [
    (re.compile(r"(^|/)(tests|gpu_tests|fuzz)/"), "-readability-identifier-naming"),
    (re.compile(r"(^|/)benchmarks/"), "-readability-identifier-naming,-clang-analyzer-deadcode.DeadStores"),
]


OVERRIDE = sys.argv[5]


def narrower_checks(path):
    return next((checks for pattern, checks in NARROWER if pattern.search(path)), "")


def extra_checks(path):
    return ",".join(part for part in (narrower_checks(path), OVERRIDE) if part)


version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True, check=True).stdout
config = open(".clang-tidy", "rb").read()


def relative(entry):
    path = entry["file"]
    if not os.path.isabs(path):
        path = os.path.join(entry["directory"], path)
    return os.path.relpath(os.path.realpath(path), root)


def arguments(entry):
    return entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])


def preprocess_command(entry):
    """The compile command with -c/-o replaced by -E -C -o - (comments kept: NOLINT lives there)."""
    out, skip = [], False
    for arg in arguments(entry):
        if skip:
            skip = False
        elif arg in ("-o", "-MF", "-MT", "-MQ"):
            skip = True  # these take the next word as their value
        elif arg not in ("-c", "-MD", "-MMD"):
            out.append(arg)
    return out + ["-E", "-C", "-o", "-"]


build_real = os.path.realpath(build)
entries, seen = [], set()
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    path = relative(entry)
    absolute = os.path.join(root, path)
    if path.startswith("..") or not path.endswith((".cpp", ".cc")) or path in seen:
        continue
    if absolute.startswith(build_real + os.sep) or re.match(r"build[^/]*/", path) or "/generated/" in path:
        continue  # generated code
    if path_filter.search(path):
        seen.add(path)
        entries.append((path, entry))


budget = float(os.environ.get("XPUPERF_TIDY_BUDGET_S", "0") or 0)  # 0: no limit
start = time.monotonic()


def check(item):
    path, entry = item
    extra = extra_checks(path)
    pre = subprocess.run(preprocess_command(entry), cwd=entry["directory"], capture_output=True)
    if pre.returncode != 0:
        return path, False, False, f"{path}: preprocessing failed:\n{pre.stderr.decode(errors='replace')}"
    key = hashlib.sha256()
    for part in (version.encode(), config, extra.encode(), " ".join(arguments(entry)).encode(), pre.stdout):
        key.update(hashlib.sha256(part).digest())
    done = os.path.join(cache, key.hexdigest())
    if os.path.exists(done):
        return path, True, True, ""
    if budget and time.monotonic() - start > budget:
        return path, True, None, ""  # not checked in this run: over the time budget
    command = ["clang-tidy", "-p", build, "--quiet", "--warnings-as-errors=*"]
    if extra:
        command.append(f"--checks={extra}")
    run = subprocess.run(command + [path], capture_output=True, text=True)
    clean = run.returncode == 0 and "warning:" not in run.stdout and "error:" not in run.stdout
    if clean:
        open(done, "w").close()
    output = run.stdout
    if not clean and not output.strip():
        output = f"{path}: clang-tidy exited {run.returncode}:\n{run.stderr}"
    return path, clean, False, output


# Library code first, and within it the most recently committed files first: their findings
# matter most, and a run with a time budget on a cold cache checks what changed last.
recency = {}
try:
    log = subprocess.run(["git", "-C", root, "log", "-n", "400", "--name-only", "--format="],
                         capture_output=True, text=True, timeout=60).stdout
    for name in log.split():
        recency.setdefault(name, len(recency))
except (OSError, subprocess.SubprocessError):
    pass
entries.sort(key=lambda item: (bool(narrower_checks(item[0])), recency.get(item[0], len(recency)),
                               item[0]))
failed = cached = 0
skipped = []
with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    for path, clean, hit, output in pool.map(check, entries):
        if hit is None:
            skipped.append(path)
            continue
        cached += hit
        if not clean:
            failed += 1
            sys.stdout.write(output if output.endswith("\n") else output + "\n")
            sys.stdout.flush()
checked = len(entries) - cached - len(skipped)
print(f"tidy: {len(entries)} files ({cached} unchanged since a clean check, {checked} checked"
      f"{f', {len(skipped)} NOT checked: over the {budget:.0f} s budget' if skipped else ''}) "
      f"in {time.monotonic() - start:.0f} s, {failed} with findings")
if skipped:
    print("tidy: not checked in this run (a warm cache checks them next time): " + " ".join(skipped))
sys.exit(1 if failed else 0)
PY
