#!/usr/bin/env python3
"""Checks that the examples in README.md and docs/*.md are what the binary prints.

Every ```console block is a list of `$ command` lines, each followed by the output it shows. The
commands run in order, one page at a time, in a scratch folder where `samples/`, `tests/` and `out/`
are the repository's own (read-only use) and `attnviz` on PATH is the binary under test; stdout and
stderr are compared together (stderr first, as a terminal shows notes before a table). A line that is
only `…` or `...` stands for any number of lines (zero or more); a line ending in ` …` matches any line
starting with what comes before it. A block preceded by `<!-- example: not run: REASON -->` is not run
(a long benchmark, a command that needs a network or a cluster); the reason is printed.

usage: check_examples.py ATTNVIZ_BINARY SOURCE_DIR [PAGE.md ...]
Exit 0 when every run example matches, 1 otherwise (each difference printed as a unified diff).
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

ELLIPSIS = {"…", "..."}
NOT_RUN = re.compile(r"<!--\s*example:\s*not run:\s*(.*?)\s*-->")


def console_blocks(text):
    """Yields (line number, lines, not-run reason or None) for each ```console block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            start = i + 1
            reason = None
            for back in lines[max(0, i - 3):i]:
                m = NOT_RUN.search(back)
                if m:
                    reason = m.group(1)
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            yield start + 1, lines[start:j], reason
            i = j + 1
        else:
            i += 1


def commands_and_outputs(block):
    """Splits a block into (command, expected output lines); `\\` continues a command."""
    steps = []
    i = 0
    while i < len(block):
        line = block[i]
        if not line.startswith("$ "):
            if steps:
                steps[-1][1].append(line)
            i += 1
            continue
        command = line[2:]
        while command.rstrip().endswith("\\") and i + 1 < len(block):
            i += 1
            command = command.rstrip()[:-1] + " " + block[i].strip()
        steps.append((command, []))
        i += 1
    return steps


def line_matches(expected, actual):
    if expected.endswith(" …") and len(expected) > 2:
        return actual.startswith(expected[:-2])
    return expected == actual


def matches(expected, actual):
    """Expected lines with `…` lines as wildcards against the actual lines."""
    expected = [e.rstrip() for e in expected]
    actual = [a.rstrip() for a in actual]
    while expected and expected[-1] == "":
        expected.pop()
    while actual and actual[-1] == "":
        actual.pop()

    memo = {}

    def go(e, a):
        key = (e, a)
        if key in memo:
            return memo[key]
        if e == len(expected):
            result = a == len(actual)
        elif expected[e].strip() in ELLIPSIS:
            result = any(go(e + 1, k) for k in range(a, len(actual) + 1))
        else:
            result = a < len(actual) and line_matches(expected[e], actual[a]) and go(e + 1, a + 1)
        memo[key] = result
        return result

    sys.setrecursionlimit(100000)
    return go(0, 0)


def scratch_folder(source_dir, binary):
    scratch = tempfile.mkdtemp(prefix="attnviz-docs-")
    for name in ("samples", "tests", "out", "docs", "scripts"):
        target = os.path.join(source_dir, name)
        if os.path.exists(target):
            os.symlink(target, os.path.join(scratch, name))
    os.makedirs(os.path.join(scratch, ".bin"))
    os.symlink(os.path.abspath(binary), os.path.join(scratch, ".bin", "attnviz"))
    return scratch


def run(command, scratch):
    env = dict(os.environ)
    env["PATH"] = os.path.join(scratch, ".bin") + os.pathsep + env.get("PATH", "")
    env.update({"COLUMNS": "100", "NO_COLOR": "1", "OPENBLAS_THREAD_TIMEOUT": "4", "LC_ALL": "C.UTF-8"})
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=scratch, env=env,
                          capture_output=True, timeout=300)
    return (done.stderr.decode("utf-8", "replace") + done.stdout.decode("utf-8", "replace")).split("\n")


def check_page(path, binary, source_dir):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    scratch = scratch_folder(source_dir, binary)
    failures = checked = 0
    try:
        for line_no, block, reason in console_blocks(text):
            where = f"{os.path.relpath(path, source_dir)}:{line_no}"
            if reason is not None:
                print(f"{where}: not run: {reason}")
                continue
            for command, expected in commands_and_outputs(block):
                actual = run(command, scratch)
                checked += 1
                if not matches(expected, actual):
                    failures += 1
                    print(f"{where}: `{command}` prints other lines than the page shows:")
                    sys.stdout.writelines(difflib.unified_diff(
                        [e + "\n" for e in expected], [a + "\n" for a in actual], "page", "attnviz"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return checked, failures


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, source_dir = argv[1], os.path.abspath(argv[2])
    pages = argv[3:] or [os.path.join(source_dir, "README.md")] + sorted(
        os.path.join(source_dir, "docs", p) for p in os.listdir(os.path.join(source_dir, "docs"))
        if p.endswith(".md"))
    total = failed = 0
    for page in pages:
        checked, failures = check_page(page, binary, source_dir)
        total += checked
        failed += failures
    print(f"{total} example commands run, {failed} differ")
    return 1 if failed or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
