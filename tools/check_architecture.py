#!/usr/bin/env python3
"""Fails when the code has a component dependency that docs/ARCHITECTURE.md does not allow.

Reads the allowed edges from the fenced ```dependencies block of docs/ARCHITECTURE.md (one
`component -> dep, dep` line each; `*` means every component), then checks three things:
  1. the include graph: every `#include "xpuperf/..."` in a component's library code (src/,
     include/ and the other non-test folders) names a header of the component itself or of an
     allowed dependency;
  2. the CMake link graph (link_graph.tsv, written by cmake/ArchitectureGraph.cmake): every
     xpuperf library links only libraries of its own component or of allowed dependencies;
  3. no CMakeLists.txt changes a target (target_sources, target_link_libraries, ...) that another
     component's CMakeLists.txt defines.
It also fails when the allowed graph itself has a cycle, when a component of the tree is not
listed, when a listed component is missing from the layer table or the "Folders" table, or when a
command the cli wires (`app.add_subcommand("NAME"` in cli/app/) is missing from "Where each
command lives". Test, tool and benchmark-program folders are not part of a component's library code.
Usage: check_architecture.py SOURCE_DIR LINK_GRAPH_TSV
"""
import os
import re
import sys

NON_LIBRARY_DIRS = {"tests", "gpu_tests", "tools", "benchmarks", "corpus", "fake_nvml"}
SOURCE_SUFFIXES = (".cpp", ".cc", ".h", ".hpp", ".c", ".cu", ".in")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"](xpuperf/[^>"]+)[>"]', re.M)
DEFINE_RE = re.compile(r"\b(?:add_library|add_executable)\(\s*([A-Za-z0-9_]+)(?=[\s)])")
COMPONENT_RE = re.compile(r"\bxpuperf_component\(\s*NAME\s+([A-Za-z0-9_]+)")
COMPONENT_TESTS_RE = re.compile(r"\bxpuperf_component_tests\(\s*NAME\s+([A-Za-z0-9_]+)")
TARGET_RE = re.compile(r"xpuperf(?:::|_)[A-Za-z0-9_]+")
CHANGE_RE = re.compile(
    r"\b(?:target_sources|target_link_libraries|target_compile_definitions|"
    r"target_compile_options|target_include_directories|target_link_options)\(\s*([A-Za-z0-9_]+)")


def read_allowed(architecture_md):
    text = open(architecture_md, encoding="utf-8").read()
    block = re.search(r"^```dependencies\n(.*?)^```", text, re.S | re.M)
    if not block:
        sys.exit(f"{architecture_md}: no ```dependencies block")
    allowed = {}
    for number, line in enumerate(block.group(1).splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if "->" not in line:
            sys.exit(f"{architecture_md}: dependencies line {number}: expected 'a -> b, c'")
        name, deps = (part.strip() for part in line.split("->", 1))
        if name in allowed:
            sys.exit(f"{architecture_md}: component {name} is listed twice")
        allowed[name] = {d.strip() for d in deps.split(",") if d.strip()}
    return allowed


def table_rows(text, heading_cell):
    """The first cells of the rows of the Markdown table whose header row starts with
    `| heading_cell |`."""
    match = re.search(r"^\| " + re.escape(heading_cell) + r" \|.*?\n((?:\|.*\n)+)", text, re.M)
    if not match:
        return None
    return [row.split("|")[1:-1] for row in match.group(1).splitlines()[1:]]


def check_tables(root, allowed):
    """Every component in the layer and Folders tables, every wired command in the command
    table."""
    text = open(os.path.join(root, "docs", "ARCHITECTURE.md"), encoding="utf-8").read()
    problems = []
    layers = table_rows(text, "layer")
    folders = table_rows(text, "folder")
    commands = table_rows(text, "command")
    if layers is None or folders is None or commands is None:
        return ["docs/ARCHITECTURE.md: the layer, folder or command table is missing"]
    in_layers = {name for row in layers for name in re.findall(r"`([^`]+)`", row[1])}
    in_folders = {name.rstrip("/") for row in folders for name in re.findall(r"`([^`]+)`", row[0])}
    for name in sorted(allowed):
        if name not in in_layers:
            problems.append(f"component {name} is missing from the layer table of "
                            f"docs/ARCHITECTURE.md")
        if name not in in_folders:
            problems.append(f"component {name} is missing from the Folders table of "
                            f"docs/ARCHITECTURE.md")
    documented = {re.split(r"[ /]", name)[0] for row in commands
                  for name in re.findall(r"`([^`]+)`", row[0])}
    wired = set()
    app_dir = os.path.join(root, "cli", "app")
    for name in sorted(os.listdir(app_dir)) if os.path.isdir(app_dir) else []:
        if name.endswith(".cpp"):
            source = open(os.path.join(app_dir, name), encoding="utf-8").read()
            wired |= set(re.findall(r'\bapp\.add_subcommand\(\s*"([a-z-]+)"', source))
    for command in sorted(wired - documented):
        problems.append(f"command {command} is missing from \"Where each command lives\" in "
                        f"docs/ARCHITECTURE.md")
    return problems


def find_cycle(allowed):
    state = {}

    def visit(node, path):
        state[node] = "open"
        for dep in sorted(allowed.get(node, ())):
            if dep == "*" or dep not in allowed:
                continue
            if state.get(dep) == "open":
                return path + [node, dep]
            if dep not in state:
                cycle = visit(dep, path + [node])
                if cycle:
                    return cycle
        state[node] = "done"
        return None

    for node in sorted(allowed):
        if node not in state:
            cycle = visit(node, [])
            if cycle:
                return cycle
    return None


def component_of(relative, components):
    """The longest listed component path that contains `relative` (a path from the root)."""
    best = None
    for name in components:
        if relative == name or relative.startswith(name + "/"):
            if best is None or len(name) > len(best):
                best = name
    return best


def is_library_code(relative, component):
    inner = relative[len(component) + 1:] if relative != component else ""
    return not any(part in NON_LIBRARY_DIRS for part in inner.split("/")[:-1])


def permits(allowed, source, target):
    if source == target:
        return True
    deps = allowed.get(source, set())
    return "*" in deps or target in deps


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, link_graph = sys.argv[1], sys.argv[2]
    allowed = read_allowed(os.path.join(root, "docs", "ARCHITECTURE.md"))
    problems = []
    cycle = find_cycle(allowed)
    if cycle:
        problems.append("the allowed graph has a cycle: " + " -> ".join(cycle))
    for name, deps in allowed.items():
        if "cli" in deps:
            problems.append(f"{name} -> cli: nothing may depend on cli")

    # Components present in the tree: every folder with a CMakeLists.txt directly below the root,
    # and backends/<name>.
    present = set()
    for entry in sorted(os.listdir(root)):
        if os.path.isfile(os.path.join(root, entry, "CMakeLists.txt")):
            present.add(entry)
    backends = os.path.join(root, "backends")
    for entry in sorted(os.listdir(backends)) if os.path.isdir(backends) else []:
        if os.path.isfile(os.path.join(backends, entry, "CMakeLists.txt")):
            present.add("backends/" + entry)
    for name in sorted(present - set(allowed)):
        problems.append(f"component {name} is not listed in docs/ARCHITECTURE.md")
    problems += check_tables(root, allowed)
    components = sorted(present | set(allowed))

    # Which component owns each public header ("xpuperf/core/status.h" -> core).
    header_owner = {}
    files = []
    for directory, subdirectories, names in os.walk(root):
        relative_dir = os.path.relpath(directory, root)
        if relative_dir == ".":
            subdirectories[:] = [d for d in subdirectories
                                 if not d.startswith(".") and not d.startswith("build")
                                 and d not in ("shared",)]
            continue
        for name in names:
            relative = os.path.join(relative_dir, name).replace(os.sep, "/")
            files.append(relative)
            marker = relative.find("include/xpuperf/")
            if marker >= 0:
                owner = component_of(relative, components)
                header = relative[marker + len("include/"):]
                if header.endswith(".in"):
                    header = header[:-3]
                header_owner[header] = owner

    # 1. Includes.
    for relative in files:
        if not relative.endswith(SOURCE_SUFFIXES):
            continue
        component = component_of(relative, components)
        if component is None or not is_library_code(relative, component):
            continue
        text = open(os.path.join(root, relative), encoding="utf-8", errors="replace").read()
        for header in INCLUDE_RE.findall(text):
            owner = header_owner.get(header)
            if owner and not permits(allowed, component, owner):
                problems.append(f"{relative} includes {header}: {component} -> {owner} is not "
                                f"allowed by docs/ARCHITECTURE.md")

    # 2. Links.
    target_component = {}
    graph = []
    for line in open(link_graph, encoding="utf-8"):
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 3:
            continue
        target, source_dir, links = fields
        component = component_of(source_dir, components)
        if component is None or not is_library_code(source_dir + "/x", component):
            continue
        target_component[target] = component
        # Entries may be wrapped in generator expressions ($<LINK_ONLY:...>): keep the names.
        graph.append((target, component, sorted(set(TARGET_RE.findall(links)))))
    for target, component, links in graph:
        for link in links:
            name = link.replace("xpuperf::", "xpuperf_", 1) if link.startswith("xpuperf::") else link
            owner = target_component.get(name)
            if owner and not permits(allowed, component, owner):
                problems.append(f"CMake: {target} ({component}) links {link} ({owner}): "
                                f"{component} -> {owner} is not allowed by docs/ARCHITECTURE.md")

    # 3. CMake lines that change another component's target.
    defined = {}
    changes = []
    for relative in files:
        if not relative.endswith("CMakeLists.txt"):
            continue
        component = component_of(relative, components)
        if component is None:
            continue
        text = open(os.path.join(root, relative), encoding="utf-8").read()
        text = re.sub(r"#[^\n]*", "", text)
        for name in DEFINE_RE.findall(text):
            defined[name] = component
        for name in COMPONENT_RE.findall(text):
            defined["xpuperf_" + name] = component
        for name in COMPONENT_TESTS_RE.findall(text):
            defined[name + "_tests"] = component
        changes += [(relative, component, name) for name in CHANGE_RE.findall(text)]
    for relative, component, name in changes:
        owner = defined.get(name)
        if owner and owner != component:
            problems.append(f"{relative} changes {name}, a target of {owner}: each component's "
                            f"CMakeLists.txt changes only its own targets")

    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} architecture problem(s); see docs/ARCHITECTURE.md")
        return 1
    print(f"architecture ok: {len(graph)} libraries of {len(present)} components, every include "
          f"and link edge allowed by docs/ARCHITECTURE.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
