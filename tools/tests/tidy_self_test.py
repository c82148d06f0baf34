#!/usr/bin/env python3
"""scripts/tidy.sh fails on a finding, caches clean results by the preprocessed translation unit
(so an edit to an included header, a NOLINT comment included, re-checks the file), applies the
narrower test check set to tests/ folders, and refuses a build folder without compile commands.

Runs on a seeded scratch tree with the project's .clang-tidy; skips (77) without clang-tidy.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIDY = os.path.join(ROOT, "scripts", "tidy.sh")

HEADER_NOLINT = "inline int* Null() { return 0; }  // NOLINT(modernize-use-nullptr): seeded\n"
HEADER_FINDING = "inline int* Null() { return 0; }\n"
FILES = {
    "include/xpuperf/seed/seed.h": "#pragma once\n" + HEADER_NOLINT,
    "seed/src/clean.cpp": '#include "xpuperf/seed/seed.h"\nint* Pointer() { return Null(); }\n',
    "seed/src/finding.cpp": "int* Pointer() { return 0; }\n",
    "seed/src/bad_naming.cpp": "struct bad_name {};\nbad_name value;\n",
    "seed/tests/bad_naming_test.cpp": "struct bad_name {};\nbad_name value;\n",
}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    if shutil.which("clang-tidy") is None:
        print("SKIP: clang-tidy is not installed")
        return 77
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        src, build = os.path.join(scratch, "src"), os.path.join(scratch, "build")
        for name, text in FILES.items():
            write(os.path.join(src, name), text)
        shutil.copy(os.path.join(ROOT, ".clang-tidy"), src)
        os.makedirs(build)
        commands = [{"directory": build, "file": os.path.join(src, name),
                     "command": f"c++ -std=c++20 -I{src}/include -c {os.path.join(src, name)} -o x.o"}
                    for name in FILES if name.endswith(".cpp")]
        with open(os.path.join(build, "compile_commands.json"), "w") as f:
            json.dump(commands, f)
        env = dict(os.environ, TIDY_SOURCE_ROOT=src, XDG_CACHE_HOME=os.path.join(scratch, "cache"),
                   XPUPERF_TIDY_JOBS="2")

        def tidy(build_dir, regex):
            run = subprocess.run(["bash", TIDY, build_dir, regex], env=env, capture_output=True, text=True)
            return run.returncode, run.stdout + run.stderr

        def expect(what, result, code, *needles):
            rc, output = result
            if rc != code or any(n not in output for n in needles):
                failures.append(f"{what}: want exit {code} with {needles}, got {rc}:\n{output}")

        expect("seeded finding fails", tidy(build, "finding"), 1, "modernize-use-nullptr", "1 with findings")
        expect("clean file passes", tidy(build, "clean"), 0, "0 unchanged", "1 checked")
        expect("unchanged file is cached", tidy(build, "clean"), 0, "1 unchanged", "0 checked")
        write(os.path.join(src, "include/xpuperf/seed/seed.h"), "#pragma once\n" + HEADER_FINDING)
        expect("header edit (NOLINT removed) re-checks", tidy(build, "clean"), 1, "modernize-use-nullptr",
               "0 unchanged")
        expect("library naming is checked", tidy(build, "src/bad_naming"), 1, "readability-identifier-naming")
        expect("tests get the narrower set", tidy(build, "tests/bad_naming"), 0, "1 checked")
        expect("no compile commands", tidy(os.path.join(scratch, "nowhere"), "."), 2, "compile_commands.json")
        expect("bad regex", tidy(build, "("), 2, "bad PATH_REGEX")
    for failure in failures:
        print("FAIL:", failure)
    print(f"tidy self-test: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
