"""The README's commands against the binary (ctest `readme_commands`): every `xpuperf ...` the
README shows, in its command table and its examples, names commands that exist and options those
commands take (each checked in the command's --help); every script and page it links exists; it
stays within 250 lines. A renamed option or command fails here instead of in a user's terminal.

Usage: readme_commands_test.py XPUPERF README.md"""
import functools
import os
import re
import subprocess
import sys

MAX_LINES = 250


@functools.lru_cache(maxsize=None)
def help_text(xpuperf, path):
    r = subprocess.run([xpuperf, *path, "--help"], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise AssertionError(f"xpuperf {' '.join(path)} --help: exit {r.returncode}: {r.stderr}")
    return r.stdout


def subcommands(xpuperf, path):
    text = help_text(xpuperf, path)
    if "Subcommands:" not in text:
        return set()
    block = text.split("Subcommands:", 1)[1].split("\n\n", 1)[0]
    return {line.split()[0] for line in block.splitlines() if line.strip()}


def commands_in(readme):
    """(line number, text after 'xpuperf') of every xpuperf invocation the README shows."""
    found = []
    for number, line in enumerate(readme.splitlines(), 1):
        for span in re.findall(r"`([^`]*)`", line):
            for m in re.finditer(r"(?:^|\s)xpuperf((?:\s+\S+)*)", span):
                found.append((number, m.group(1)))
        m = re.match(r"\$ (?:mpirun \S+ \S+ )?xpuperf((?:\s+\S+)*)", line)
        if m:
            found.append((number, m.group(1).split("  #")[0]))
    return [(n, text) for n, text in found if text.strip()]


def command_paths(xpuperf, words):
    """Every subcommand path the words name (`a\\|b` names both); the rest are arguments."""
    paths = [()]
    for word in words:
        choices = [w for w in re.split(r"\\?\|", word.strip("[]")) if w]
        extended = []
        for path in paths:
            known = subcommands(xpuperf, path)
            if choices and all(c in known for c in choices):
                extended += [path + (c,) for c in choices]
        if not extended:
            break
        paths = extended
    return paths


def check_command(xpuperf, number, text, failures):
    text = text.split(" -- ", 1)[0]  # a job's own arguments
    words = text.split()
    paths = command_paths(xpuperf, words)
    options = set(re.findall(r"(?<![\w-])(--[A-Za-z0-9][\w-]*|-[A-Za-z])(?![\w-])", text))
    for path in paths:
        available = help_text(xpuperf, path) + help_text(xpuperf, ())
        for option in sorted(options):
            if not re.search(r"(^|[\s,])" + re.escape(option) + r"([\s,=]|$)", available, re.M):
                failures.append(f"README line {number}: xpuperf {' '.join(path)} has no option "
                                f"{option} (in: xpuperf{text})")
        if not path and words and not words[0].startswith("-") and words[0].isalpha():
            failures.append(f"README line {number}: '{words[0]}' is not an xpuperf command")


def main():
    xpuperf, readme_path = sys.argv[1], sys.argv[2]
    root = os.path.dirname(os.path.abspath(readme_path))
    readme = open(readme_path, encoding="utf-8").read()
    failures = []
    lines = readme.count("\n")
    if lines > MAX_LINES:
        failures.append(f"README has {lines} lines (at most {MAX_LINES}: move the manual to docs/)")
    commands = commands_in(readme)
    for number, text in commands:
        check_command(xpuperf, number, text, failures)
    links = set(re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme))
    scripts = set(re.findall(r"\b(scripts/[\w.-]+\.sh)\b", readme))
    for path in sorted(links | scripts):
        if not os.path.exists(os.path.join(root, path)):
            failures.append(f"README names {path}, which does not exist")
    for f in failures:
        print(f)
    print(f"{len(commands)} commands, {len(links | scripts)} files checked; "
          f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
