#!/usr/bin/env python3
"""The architecture check fails on each kind of forbidden edge and passes on a clean tree."""
import os
import subprocess
import sys
import tempfile

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "check_architecture.py")


def write(root, path, text=""):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def run(root, link_graph=""):
    write(root, "build/link_graph.tsv", link_graph)
    result = subprocess.run([sys.executable, CHECKER, root, os.path.join(root, "build/link_graph.tsv")],
                            capture_output=True, text=True)
    return result.returncode, result.stdout


TABLES = """
| layer | components |
| --- | --- |
| engines | `bench`, `cli` |
| base | `core` |

| command | wiring (`cli/app/`) | work |
| --- | --- | --- |
| `devices` | `devices_command.cpp` | `cli/src/command_devices.cpp` |

| folder | component |
| --- | --- |
| `core/` | the base |
| `bench/` | benchmarks |
| `cli/` | the program |
"""


def tree(root, allowed="core ->\nbench -> core\n", tables=TABLES):
    write(root, "docs/ARCHITECTURE.md",
          "# A\n\n```dependencies\n" + allowed + "```\n" + tables)
    write(root, "cli/app/devices_command.cpp", 'app.add_subcommand(\n    "devices", "List");\n')
    write(root, "core/CMakeLists.txt", "xpuperf_component(NAME core)\n")
    write(root, "core/include/xpuperf/core/status.h", "#pragma once\n")
    write(root, "core/src/status.cpp", '#include "xpuperf/core/status.h"\n')
    write(root, "bench/CMakeLists.txt", "xpuperf_component(NAME bench DEPS xpuperf::core)\n")
    write(root, "bench/include/xpuperf/bench/engine.h", '#include "xpuperf/core/status.h"\n')
    write(root, "bench/src/engine.cpp", '#include "xpuperf/bench/engine.h"\n')


def main():
    failures = []

    def expect(name, code, output, want_code, want_text):
        if code != want_code or want_text not in output:
            failures.append(f"{name}: exit {code}, output:\n{output}")

    with tempfile.TemporaryDirectory() as root:
        tree(root)
        code, out = run(root, "xpuperf_core\tcore\t\nxpuperf_bench\tbench\txpuperf::core\n")
        expect("clean tree", code, out, 0, "architecture ok")
        # An include against the allowed direction.
        write(root, "core/src/bad.cpp", '#include "xpuperf/bench/engine.h"\n')
        code, out = run(root)
        expect("include", code, out, 1, "core -> bench is not allowed")
        os.remove(os.path.join(root, "core/src/bad.cpp"))
        # A link against the allowed direction.
        code, out = run(root, "xpuperf_core\tcore\t$<LINK_ONLY:xpuperf::bench>\nxpuperf_bench\tbench\t\n")
        expect("link", code, out, 1, "CMake: xpuperf_core (core) links")
        # A CMakeLists.txt changing another component's target.
        write(root, "core/CMakeLists.txt",
              "xpuperf_component(NAME core)\ntarget_sources(xpuperf_bench PRIVATE x.cpp)\n")
        code, out = run(root)
        expect("reach-in", code, out, 1, "core/CMakeLists.txt changes xpuperf_bench")
        write(root, "core/CMakeLists.txt", "xpuperf_component(NAME core)\n")
        # A component missing from the block, and a cycle in it.
        write(root, "trace/CMakeLists.txt", "xpuperf_component(NAME trace)\n")
        code, out = run(root)
        expect("unlisted", code, out, 1, "component trace is not listed")
        os.remove(os.path.join(root, "trace/CMakeLists.txt"))
        tree(root, "core -> bench\nbench -> core\n")
        code, out = run(root)
        expect("cycle", code, out, 1, "the allowed graph has a cycle")
        tree(root, "core ->\nbench -> core, cli\ncli -> *\n")
        code, out = run(root)
        expect("cli", code, out, 1, "nothing may depend on cli")
        # A component missing from the Folders table; a command missing from the command table.
        tree(root, tables=TABLES.replace("| `bench/` | benchmarks |\n", ""))
        code, out = run(root)
        expect("folders", code, out, 1, "component bench is missing from the Folders table")
        tree(root)
        write(root, "cli/app/serve_command.cpp", 'app.add_subcommand("serve", "Exporter");\n')
        code, out = run(root)
        expect("command", code, out, 1, "command serve is missing from \"Where each command")
    for failure in failures:
        print(failure)
    print(f"{9 - len(failures)} of 9 cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
