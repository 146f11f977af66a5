#!/usr/bin/env python3
"""Check that the repository stands alone (stdlib only).

Usage: python3 tests/api/check_standalone.py

1. Every relative link of every Markdown file resolves: `[text](path)`,
   `[text](path#anchor)`, `![alt](path)` and `[id]: path` definitions, outside
   code blocks and code spans. The target must exist inside the repository;
   an anchor into a Markdown file must name one of its headings (GitHub's
   slugs). Links with a scheme (`https:`, `mailto:`) are not fetched.
2. No file names a file outside the repository, and none speaks of how the
   work on it was organised: the patterns of FORBIDDEN, in every tracked or
   new (not ignored) text file.

The files are those git lists (tracked, plus untracked ones not ignored), so
build output and dependencies are never read. Exits 1 and lists every
problem.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SELF = Path(__file__).resolve()

# (pattern, what it means). Assembled from pieces so this file does not match itself.
FORBIDDEN = [
    (re.compile(r"(?<![\w.-])" + "shared" + r"/"), "a path into a directory outside the repository"),
    (re.compile("TOOL" + r"CHAIN\.md"), "a document outside the repository (docs/wasm-toolchain.md is ours)"),
    (re.compile("PRE" + r"VIEW\.md"), "a document outside the repository (docs/preview.md is ours)"),
    (re.compile(r"/" + "work" + r"/"), "an absolute path of the machine the work was done on"),
    (re.compile(r"\b" + "issue" + r" #?[0-9]+", re.IGNORECASE), "how the work was organised"),
    (re.compile(r"\bthe " + "lead" + r"\b", re.IGNORECASE), "how the work was organised"),
]

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HTML_LINK = re.compile(r"""<(?:a|img)\s[^>]*?(?:href|src)=["']([^"']+)["']""", re.IGNORECASE)
FENCE = re.compile(r"^ {0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def repo_files():
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    return sorted({ROOT / p for p in out.decode().split("\0") if p and (ROOT / p).is_file()})


def read_text(path):
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def prose_lines(text):
    """(line number, line without code spans) for every line outside code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None and not line.startswith("    "):
            yield number, CODE_SPAN.sub("", line)


def slug(heading):
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|__", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path, cache={}):  # noqa: B006 - a cache on purpose
    if path not in cache:
        found = set()
        counts = {}
        text = read_text(path) or ""
        for _, line in prose_lines(text):
            m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                base = slug(m.group(1))
                n = counts.get(base, 0)
                counts[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        # Headings with code spans: prose_lines dropped the spans, so add the full form too.
        for line in text.splitlines():
            m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                found.add(slug(m.group(1)))
        for m in re.finditer(r"""<a\s+(?:name|id)=["']([^"']+)["']""", text):
            found.add(m.group(1))
        cache[path] = found
    return cache[path]


def check_link(md, number, target, problems):
    where = f"{md.relative_to(ROOT)}:{number}"
    if SCHEME.match(target) or target.startswith("//"):
        return
    path_part, _, anchor = target.partition("#")
    if not path_part:
        dest = md
    elif path_part.startswith("/"):
        problems.append(f"{where}: absolute link {target!r} (use a path relative to the file)")
        return
    else:
        dest = (md.parent / path_part).resolve()
    try:
        dest.relative_to(ROOT)
    except ValueError:
        problems.append(f"{where}: {target!r} points outside the repository")
        return
    if not dest.exists():
        problems.append(f"{where}: {target!r} does not exist")
        return
    if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
        problems.append(f"{where}: {target!r}: no heading with the anchor #{anchor}")


def main():
    files = repo_files()
    problems = []
    links = 0
    markdown = [f for f in files if f.suffix == ".md"]
    for md in markdown:
        text = read_text(md)
        if text is None:
            problems.append(f"{md.relative_to(ROOT)}: not UTF-8 text")
            continue
        for number, line in prose_lines(text):
            targets = [m.group(1) for m in LINK.finditer(line)]
            targets += [m.group(1) for m in HTML_LINK.finditer(line)]
            m = DEFINITION.match(line)
            if m:
                targets.append(m.group(1))
            for target in targets:
                links += 1
                check_link(md, number, target, problems)
    scanned = 0
    for f in files:
        if f == SELF:
            continue
        text = read_text(f)
        if text is None:
            continue
        scanned += 1
        for number, line in enumerate(text.splitlines(), 1):
            for pattern, meaning in FORBIDDEN:
                m = pattern.search(line)
                if m:
                    problems.append(f"{f.relative_to(ROOT)}:{number}: {m.group(0)!r}: {meaning}")
    for p in problems:
        print(f"error: {p}")
    print(
        f"{links} relative links in {len(markdown)} Markdown files, {scanned} text files scanned: "
        + ("OK" if not problems else f"{len(problems)} problem(s)")
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
