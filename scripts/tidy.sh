#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over the library code of every component, in parallel, with a result
# cache: a file is checked again only when it, a project header, its compile command, .clang-tidy
# or clang-tidy itself changed (cache in ~/.cache/xpuperf-tidy, keyed by their SHA-256).
# Usage: scripts/tidy.sh [BUILD_DIR] [PATH_REGEX]   (BUILD_DIR needs compile_commands.json;
# default build/; PATH_REGEX limits the files, e.g. '^core/'). Exit 1 when a check fires.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
filter=${2:-.}
[ -f "$build_dir/compile_commands.json" ] || { echo "tidy: no $build_dir/compile_commands.json (configure first)" >&2; exit 2; }
command -v clang-tidy >/dev/null || { echo "tidy: clang-tidy not installed" >&2; exit 2; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/xpuperf-tidy
mkdir -p "$cache"
python3 - "$build_dir" "$filter" "$cache" "$(nproc)" <<'PY'
import concurrent.futures, hashlib, json, os, re, subprocess, sys
build, path_filter, cache, jobs = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3], int(sys.argv[4])
root = os.getcwd()
version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True).stdout
config = open(".clang-tidy", "rb").read()
headers = hashlib.sha256()
for d, _, names in sorted(os.walk(root)):
    rel = os.path.relpath(d, root)
    if rel.startswith(("build", ".", "shared")):
        continue
    for name in sorted(names):
        if name.endswith((".h", ".hpp", ".h.in")):
            headers.update(open(os.path.join(d, name), "rb").read())
library_dirs = re.compile(r"^(?!.*/(tests|gpu_tests|tools|benchmarks)/)[a-z_/]+/(src|launcher|formulas)/|^backends/builtin_backends\.cpp$|^builtin_benchmarks/builtin_benchmarks\.cpp$")
entries = []
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    path = os.path.relpath(entry["file"], root)
    if path.startswith("..") or not path.endswith(".cpp") or "/generated/" in path:
        continue
    if library_dirs.search(path) and path_filter.search(path):
        entries.append((path, entry))
def check(item):
    path, entry = item
    key = hashlib.sha256(version.encode() + config + headers.digest() +
                         entry.get("command", " ".join(entry.get("arguments", []))).encode() +
                         open(path, "rb").read()).hexdigest()
    done = os.path.join(cache, key)
    if os.path.exists(done):
        return path, True, ""
    run = subprocess.run(["clang-tidy", "-p", build, "--quiet", path], capture_output=True, text=True)
    clean = run.returncode == 0 and "warning:" not in run.stdout and "error:" not in run.stdout
    if clean:
        open(done, "w").close()
    return path, clean, run.stdout
failed = 0
with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    for path, clean, output in pool.map(check, entries):
        if not clean:
            failed += 1
            sys.stdout.write(output)
print(f"tidy: {len(entries)} files, {failed} with findings")
sys.exit(1 if failed else 0)
PY
