#!/usr/bin/env python3
"""Checks that the examples in README.md and docs/*.md are what the binary prints, and the pages' shape.

Examples. Every ```console block is a list of `$ command` lines, each followed by the output it
shows (a command line ending in `\\` continues on the next line). The commands of a page run in
order, in a scratch folder of the page's own where `samples/`, `tests/`, `docs/`, `scripts/` and
`bench/` are the repository's (for reading only) and `attnviz` on PATH is the binary under test, so
a later example can read what an earlier one on the same page wrote (`init -o mymodel`, then
`run -m mymodel`). Every command runs with COLUMNS=80, NO_COLOR=1, LC_ALL=C.UTF-8, HOME in the
scratch folder and no Hugging Face or Ollama variables, so the output is the same on every machine.

What is compared: the command's stderr, then its stdout (as a terminal shows notes above a table),
line by line, trailing spaces and trailing blank lines ignored, with these rules:
- a line that is only `…` (or `...`) stands for any number of lines, zero included;
- a line ending in ` …` matches any line that starts with what comes before the ` …`;
- a page may leave out `attnviz: note: …` lines (stderr notes, such as how tokens were embedded):
  any printed note the page does not show is skipped; every other line, stderr included
  (`attnviz: wrote …`, warnings, errors), must be shown;
- a command that exits with a status other than 0 fails the check unless the page shows its
  `attnviz: error:` line, or the status is 3 (`check` found problems, which its output lists).
A table (or any lines) after `<!-- generated: COMMAND -->`, up to the first blank line, is exactly
what COMMAND prints (README's families table is `attnviz families --markdown`).
A block after `<!-- example: not run: REASON -->` (within the three lines above it) is not run: a
command that needs a network, a cluster, a file the repository does not hold, or more than 10 s.

Pages. README.md has at most 300 lines; every relative link of README.md and docs/*.md names a file
that exists, and a `#anchor` one of the target's headings (GitHub's rule: lower case, punctuation
dropped, spaces as `-`); no page mentions a note outside the repository (`../shared`, an issue or a
tutorial by number).

--update rewrites each run block's outputs in place with what the binary prints: a block without
`…` becomes the whole output; an elided block keeps its shape — its first lines (as many as before
its first `…`), each later part found again by its first line (a part at the end of the block: the
last lines), the `…` between them. Notes the block did not show stay out. Then the pages are checked.

usage: check_examples.py [--update] ATTNVIZ_BINARY SOURCE_DIR [PAGE.md ...]
Exit 0 when every example matches and every page check passes, 1 otherwise (each difference is
printed as a unified diff, page:line first).
"""
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ELLIPSIS = {"…", "..."}
NOT_RUN = re.compile(r"<!--\s*example:\s*not run:\s*(.*?)\s*-->")
GENERATED = re.compile(r"<!--\s*generated:\s*(.*?)\s*-->")
NOTE = "attnviz: note: "
README_MAX_LINES = 300
# Mentions of notes a reader of the repository does not have.
OUTSIDE = [(re.compile(r"\.\./shared"), "../shared"), (re.compile(r"\bissue #?\d", re.I), "an issue number"),
           (re.compile(r"\bseeds? 00\d", re.I), "a tutorial by number (seed 00N)")]
READ_ONLY = ("samples", "tests", "docs", "scripts", "bench")


def is_elision(line):
    return line.strip() in ELLIPSIS


def console_blocks(lines):
    """Yields (index of the first line inside, index of the closing fence, not-run reason or None)."""
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            reason = None
            for back in lines[max(0, i - 3):i]:
                m = NOT_RUN.search(back)
                if m:
                    reason = m.group(1)
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            yield i + 1, j, reason
            i = j + 1
        else:
            i += 1


def commands_and_outputs(block):
    """Splits a block into [command, command line count, expected output lines] steps."""
    steps = []
    i = 0
    while i < len(block):
        line = block[i]
        if not line.startswith("$ "):
            if steps:
                steps[-1][2].append(line)
            i += 1
            continue
        command, first = line[2:], i
        while command.rstrip().endswith("\\") and i + 1 < len(block):
            i += 1
            command = command.rstrip()[:-1] + " " + block[i].strip()
        steps.append([command, i - first + 1, []])
        i += 1
    return steps


def trimmed(lines):
    lines = [line.rstrip() for line in lines]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def line_matches(expected, actual):
    if expected.endswith(" …") and len(expected) > 2:
        return actual.startswith(expected[:-2])
    return expected == actual


def matches(expected, actual):
    """Expected lines (with `…` wildcards) against the actual ones; notes not shown may be skipped."""
    expected, actual = trimmed(expected), trimmed(actual)
    memo = {}

    def go(e, a):
        key = (e, a)
        if key in memo:
            return memo[key]
        if e == len(expected):
            result = a == len(actual) or (actual[a].startswith(NOTE) and go(e, a + 1))
        elif is_elision(expected[e]):
            result = any(go(e + 1, k) for k in range(a, len(actual) + 1))
        else:
            result = a < len(actual) and ((line_matches(expected[e], actual[a]) and go(e + 1, a + 1))
                                          or (actual[a].startswith(NOTE) and go(e, a + 1)))
        memo[key] = result
        return result

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * (len(expected) + len(actual)) + 1000))
    return go(0, 0)


def updated(expected, actual):
    """The block's new output lines: `actual`, cut where `expected` was cut (see the docstring)."""
    expected, actual = trimmed(expected), trimmed(actual)
    if matches(expected, actual):
        return expected
    if not any(line.startswith(NOTE) for line in expected) and expected:
        actual = [line for line in actual if not line.startswith(NOTE)]
    if not any(is_elision(line) for line in expected):
        return actual
    parts, part = [], []
    for line in expected:
        if is_elision(line):
            parts.append(part)
            part = []
        else:
            part.append(line)
    parts.append(part)  # empty when the block ends with `…`
    ellipsis = next(line.strip() for line in expected if is_elision(line))

    def keep(old, new):  # a line the page cut with ` …` stays cut while it still matches
        return old if line_matches(old, new) else new

    out = [keep(o, n) for o, n in zip(parts[0], actual)]
    at = len(out)
    for k, part in enumerate(parts[1:], start=1):
        out.append(ellipsis)
        if not part:
            continue
        last = k == len(parts) - 1
        if last:
            start = max(at, len(actual) - len(part))
        else:
            start = next((j for j in range(at, len(actual)) if line_matches(part[0], actual[j])), None)
            if start is None:
                print(f"  (a part starting `{part[0]}` is no longer printed: left out)")
                continue
        new = actual[start:start + len(part)]
        out.extend(keep(o, n) for o, n in zip(part, new))
        at = start + len(new)
    while len(out) > 1 and is_elision(out[-1]) and is_elision(out[-2]):
        out.pop()
    return out


class Scratch:
    """A page's working folder: the repository's read-only folders linked in, attnviz on PATH."""

    def __init__(self, source_dir, binary):
        self.path = tempfile.mkdtemp(prefix="attnviz-docs-")
        for name in READ_ONLY:
            target = os.path.join(source_dir, name)
            if os.path.exists(target):
                os.symlink(target, os.path.join(self.path, name))
        os.makedirs(os.path.join(self.path, ".bin"))
        os.makedirs(os.path.join(self.path, ".home"))
        os.symlink(os.path.abspath(binary), os.path.join(self.path, ".bin", "attnviz"))

    def run(self, command):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("HF_", "OLLAMA_", "XDG_")) and k not in ("NO_COLOR", "TERM")}
        env.update({"PATH": os.path.join(self.path, ".bin") + os.pathsep + env.get("PATH", ""),
                    "HOME": os.path.join(self.path, ".home"), "COLUMNS": "80", "NO_COLOR": "1",
                    "TERM": "dumb", "LC_ALL": "C.UTF-8", "OPENBLAS_THREAD_TIMEOUT": "4"})
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=self.path, env=env,
                              capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
        text = done.stderr.decode("utf-8", "replace") + done.stdout.decode("utf-8", "replace")
        return done.returncode, text.split("\n")

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


def exit_shown(status, expected):
    return status in (0, 3) or any(line.startswith("attnviz: error:") for line in expected)


def generated_blocks(lines):
    """(first, end, command) of each run of lines after a `<!-- generated: COMMAND -->` line."""
    for i, line in enumerate(lines):
        found = GENERATED.search(line)
        if found:
            end = next((j for j in range(i + 1, len(lines)) if not lines[j].strip()), len(lines))
            yield i + 1, end, found.group(1)


def check_page(path, binary, source_dir, update):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    name = os.path.relpath(path, source_dir)
    scratch = Scratch(source_dir, binary)
    failures = checked = 0
    rewritten = []  # (first, end, new lines) of the blocks --update changes
    try:
        for first, end, reason in console_blocks(lines):
            if reason is not None:
                print(f"{name}:{first}: not run: {reason}")
                continue
            new_block = []
            line_at = first
            for command, command_lines, expected in commands_and_outputs(lines[first:end]):
                began = time.monotonic()
                status, actual = scratch.run(command)
                seconds = time.monotonic() - began
                checked += 1
                where = f"{name}:{line_at + 1}"
                if seconds > 10:
                    print(f"{where}: `{command}` took {seconds:.1f} s (more than 10 s: mark it not run)")
                new_block.extend(lines[line_at:line_at + command_lines])
                line_at += command_lines + len(expected)
                shown = updated(expected, actual) if update else expected
                if update:
                    new_block.extend(shown)
                if not matches(shown, actual):
                    failures += 1
                    print(f"{where}: `{command}` prints other lines than the page shows:")
                    sys.stdout.writelines(difflib.unified_diff(
                        [e + "\n" for e in trimmed(shown)], [a + "\n" for a in trimmed(actual)], "page",
                        "attnviz"))
                elif not exit_shown(status, shown):
                    failures += 1
                    print(f"{where}: `{command}` exits with status {status}, and the page shows no error")
            if update and new_block != lines[first:end]:
                rewritten.append((first, end, new_block))
        for first, end, command in generated_blocks(lines):
            status, actual = scratch.run(command)
            checked += 1
            actual = trimmed(actual)
            if update and actual != lines[first:end]:
                rewritten.append((first, end, actual))
            elif status != 0 or actual != trimmed(lines[first:end]):
                failures += 1
                print(f"{name}:{first + 1}: `{command}` (exit {status}) prints other lines than the page shows:")
                sys.stdout.writelines(difflib.unified_diff(
                    [e + "\n" for e in trimmed(lines[first:end])], [a + "\n" for a in actual], "page",
                    "attnviz"))
    finally:
        scratch.remove()
    if rewritten:
        for first, end, new_block in sorted(rewritten, reverse=True):
            lines[first:end] = new_block
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        print(f"{name}: {len(rewritten)} block(s) rewritten")
    return checked, failures


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|<[^>]*>", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    found, fenced = set(), False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and re.match(r"#{1,6} ", line):
                base = slug(line.lstrip("#"))
                anchor, n = base, 0
                while anchor in found:
                    n += 1
                    anchor = f"{base}-{n}"
                found.add(anchor)
    return found


def page_problems(pages, source_dir):
    """The pages' shape: README's length, links to files and anchors, no notes from outside."""
    problems = []
    readme = os.path.join(source_dir, "README.md")
    for page in pages:
        name = os.path.relpath(page, source_dir)
        with open(page, encoding="utf-8") as f:
            text = f.read()
        lines = text.split("\n")
        if os.path.abspath(page) == readme:
            count = len(text.rstrip("\n").split("\n"))
            if count > README_MAX_LINES:
                problems.append(f"{name}: {count} lines, more than {README_MAX_LINES}: move a part to docs/")
        fenced = False
        for n, line in enumerate(lines, start=1):
            for pattern, what in OUTSIDE:
                if pattern.search(line):
                    problems.append(f"{name}:{n}: mentions {what}, which a reader of the repository cannot open")
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if fenced:
                continue
            for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
                if re.match(r"[a-z]+:", target):
                    continue  # https:, mailto:
                file_part, _, anchor = target.partition("#")
                linked = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) if file_part else page
                if not os.path.exists(linked):
                    problems.append(f"{name}:{n}: links to {target}, which does not exist")
                elif anchor and linked.endswith(".md") and anchor not in anchors(linked):
                    problems.append(f"{name}:{n}: links to {target}: {os.path.relpath(linked, source_dir)} "
                                    f"has no heading with that anchor")
    return problems


def main(argv):
    update = "--update" in argv
    argv = [a for a in argv if a != "--update"]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, source_dir = argv[1], os.path.abspath(argv[2])
    pages = [os.path.abspath(p) for p in argv[3:]] or (
        [os.path.join(source_dir, "README.md")] + sorted(glob.glob(os.path.join(source_dir, "docs", "*.md"))))
    total = failed = 0
    began = time.monotonic()
    for page in pages:
        checked, failures = check_page(page, binary, source_dir, update)
        total += checked
        failed += failures
    problems = page_problems(pages, source_dir)
    for problem in problems:
        print(problem)
    print(f"{total} example commands run in {time.monotonic() - began:.1f} s, {failed} differ; "
          f"{len(problems)} page problems")
    return 1 if failed or problems or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
