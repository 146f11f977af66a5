#!/usr/bin/env python3
"""No Rust modules that import each other in a circle (stdlib only).

For each checked folder of sibling modules (the core's `src/preview`, the
Rust client's `src`) this draws the import graph between its files, from
every `super::...` or `crate::<folder>::...` path in code (comments, doc
comments and strings stripped): `use` lines (brace groups expanded) and
inline paths alike. Paths inside `mod tests` resolve one level deeper
(`super` is the file itself). A name the folder's root file re-exports
(`pub use x::{A, B}`) resolves to module x. It prints each graph and exits 1
when one has a cycle, test code included.

Run by `make test` (scripts/test-repo.sh).
"""

from __future__ import annotations

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

CHECKED = [
    # (folder, its root file, the path that names the folder in its crate)
    ("crates/dory-wire/src/preview", "mod.rs", ["crate", "preview"]),
    ("crates/dory-wire-client/src", "lib.rs", ["crate"]),
]


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def strip(src: str) -> str:
    """The code without comments, and every string or char literal emptied."""
    out: list[str] = []
    i, n = 0, len(src)
    while i < n:
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i)
            i = n if j < 0 else j + 2
        elif src.startswith('r"', i) or src.startswith("r#", i):
            k = i + 1
            hashes = 0
            while k < n and src[k] == "#":
                hashes += 1
                k += 1
            if k >= n or src[k] != '"':
                out.append(src[i])
                i += 1
                continue
            end = '"' + "#" * hashes
            j = src.find(end, k + 1)
            out.append('""')
            i = n if j < 0 else j + len(end)
        elif src[i] == '"':
            k = i + 1
            while k < n and src[k] != '"':
                k += 2 if src[k] == "\\" else 1
            out.append('""')
            i = k + 1
        elif src[i] == "'":
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\x..|\\.|[^\\'])'", src[i:])
            if m:
                out.append("' '")
                i += m.end()
            else:  # a lifetime
                out.append(src[i])
                i += 1
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


def expand(tree: str) -> list[list[str]]:
    """`a::{b, c::{d, self}}` as its paths (lists of segments)."""
    s = re.sub(r"\s+", "", tree)

    def parse(i: int, prefix: list[str]) -> tuple[list[list[str]], int]:
        paths: list[list[str]] = []
        cur, tok = list(prefix), ""
        while i < len(s):
            c = s[i]
            if c == "{":
                if tok:
                    cur.append(tok)
                    tok = ""
                sub, i = parse(i + 1, cur)
                paths += sub
                cur = list(prefix)
                continue
            if c == "}":
                if tok:
                    paths.append([*cur, tok])
                return paths, i + 1
            if c == ",":
                if tok:
                    paths.append([*cur, tok])
                cur, tok = list(prefix), ""
            elif s.startswith("::", i):
                if tok:
                    cur.append(tok)
                    tok = ""
                i += 2
                continue
            else:
                tok += c
            i += 1
        if tok:
            paths.append([*cur, tok])
        return paths, i

    return parse(0, [])[0]


def graph_of(folder: str, root_file: str, prefix: list[str]) -> dict[str, dict[str, set[str]]]:
    d = os.path.join(ROOT, folder)
    files = sorted(f for f in os.listdir(d) if f.endswith(".rs"))
    mods = {f[:-3] for f in files} - {root_file[:-3]}
    reexports: dict[str, str] = {}
    root_src = strip(read(os.path.join(d, root_file)))
    for m in re.finditer(r"pub(?:\([a-z]+\))?\s+use\s+(\w+)::(\{[^}]*\}|\w+)\s*;", root_src):
        for name in re.findall(r"\w+", m.group(2)):
            reexports[name] = m.group(1)

    def target(path: list[str], depth: int) -> str | None:
        p = list(path)
        if p[: len(prefix)] == prefix:
            p = p[len(prefix) :]
        else:
            ups = 0
            while p and p[0] == "super":
                ups += 1
                p = p[1:]
            # `super` of a file is the folder (of its `mod tests`, the file).
            if ups != depth + 1:
                return None
        if not p:
            return None
        if p[0] in mods:
            return p[0]
        return reexports.get(p[0])

    inline = re.compile(r"\b(?:(?:super::)+|" + "::".join(prefix) + r"::)\w+")
    graph: dict[str, dict[str, set[str]]] = {m: {} for m in mods}
    for f in files:
        m = f[:-3]
        if m not in mods:
            continue
        src = strip(read(os.path.join(d, f)))
        tests = []
        for t in re.finditer(r"mod\s+tests\s*\{", src):
            depth, i = 1, t.end()
            while depth and i < len(src):
                depth += {"{": 1, "}": -1}.get(src[i], 0)
                i += 1
            tests.append((t.start(), i))

        def in_test(pos: int, tests: list[tuple[int, int]] = tests) -> bool:
            return any(a <= pos < b for a, b in tests)

        seen = []
        for u in re.finditer(r"\buse\s+((?:super|crate)::[^;]*);", src):
            seen.append((u.start(), u.end()))
            for path in expand(u.group(1)):
                t = target(path, 1 if in_test(u.start()) else 0)
                if t and t != m:
                    graph[m].setdefault(t, set()).add("test" if in_test(u.start()) else "prod")
        for p in inline.finditer(src):
            if any(a <= p.start() < b for a, b in seen):
                continue
            t = target(p.group(0).split("::"), 1 if in_test(p.start()) else 0)
            if t and t != m:
                graph[m].setdefault(t, set()).add("test" if in_test(p.start()) else "prod")
    return graph


def cycles(g: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Elementary cycles found by a depth-first search (back edges)."""
    found: set[tuple[str, ...]] = set()
    color: dict[str, int] = {}
    stack: list[str] = []

    def dfs(u: str) -> None:
        color[u] = 1
        stack.append(u)
        for v in sorted(g[u]):
            if color.get(v) == 1:
                c = stack[stack.index(v) :]
                k = c.index(min(c))
                found.add(tuple(c[k:] + c[:k]))
            elif not color.get(v):
                dfs(v)
        stack.pop()
        color[u] = 2

    for u in sorted(g):
        if not color.get(u):
            dfs(u)
    return sorted(found)


def main() -> int:
    failed = False
    for folder, root_file, prefix in CHECKED:
        graph = graph_of(folder, root_file, prefix)
        print(f"== {folder}")
        for m in sorted(graph):
            prod = sorted(t for t, k in graph[m].items() if "prod" in k)
            test = sorted(t for t, k in graph[m].items() if k == {"test"})
            extra = f"   [tests only: {', '.join(test)}]" if test else ""
            print(f"  {m:14} -> {', '.join(prod) or '(none)'}{extra}")
        g = {m: set(graph[m]) for m in graph}
        found = cycles(g)
        for c in found:
            print("  CYCLE: " + " -> ".join((*c, c[0])))
        failed |= bool(found)
    if failed:
        print("modules import each other in a circle: see the CYCLE lines", file=sys.stderr)
        return 1
    print("no module cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
