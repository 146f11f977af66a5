#!/usr/bin/env python3
"""Write a `make bench` report into docs/bench.md.

    python3 scripts/bench-docs.py REPORT.md [DOCS.md] [--commit SHA]
    python3 scripts/bench-docs.py --self-test   # in make test's repo suite

REPORT.md is what scripts/bench.sh prints (target/bench-results/latest.md).
Two regions of DOCS.md (default docs/bench.md) are replaced:

- between `<!-- table:start -->` and `<!-- table:end -->`: the report without
  its title and without the targets' table, preceded by one line saying when
  and from which commit it was measured;
- between `<!-- verdicts:start -->` and `<!-- verdicts:end -->`: the targets'
  table (`| target | measured (same run) | met |`).

Everything outside the markers (the method, the rounds, the profiles) is kept
as written. Fails, changing nothing, when a marker is missing or the report
has no targets' table.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

VERDICTS_HEADER = "| target | measured (same run) | met |"


def split_report(report: str) -> tuple[str, str, str]:
    """(title, everything else, the targets' table) of a bench report."""
    lines = report.strip("\n").split("\n")
    title = ""
    if lines and lines[0].startswith("## "):
        title = lines.pop(0)[3:].strip().removesuffix(", `make bench`")
    try:
        start = lines.index(VERDICTS_HEADER)
    except ValueError:
        raise SystemExit(f"bench-docs: the report has no targets' table (no line {VERDICTS_HEADER!r})") from None
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    verdicts = "\n".join(lines[start:end])
    rest = "\n".join(lines[:start] + lines[end:])
    rest = re.sub(r"\n{3,}", "\n\n", rest).strip("\n")
    return title, rest, verdicts


def replace_region(text: str, name: str, body: str) -> str:
    """TEXT with the region between NAME's markers replaced by BODY."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    i, j = text.find(start), text.find(end)
    if i < 0 or j < i:
        raise SystemExit(f"bench-docs: docs/bench.md has no {start} … {end} region")
    return text[: i + len(start)] + "\n" + body.strip("\n") + "\n" + text[j:]


def render(report: str, docs: str, commit: str) -> str:
    """DOCS with its two regions written from REPORT."""
    title, rest, verdicts = split_report(report)
    where = f"commit `{commit}`" if commit else "the working tree"
    stamp = f"Written by `make bench` ({title or 'a bench report'}, {where}) through `scripts/bench-docs.py`."
    docs = replace_region(docs, "table", stamp + "\n\n" + rest)
    return replace_region(docs, "verdicts", verdicts)


def outside(docs: str) -> list[str]:
    """DOCS without its two regions' bodies."""
    return re.split(r"<!-- (?:table|verdicts):start -->.*?<!-- (?:table|verdicts):end -->", docs, flags=re.S)


def self_test(docs_path: Path) -> int:
    """Write a made-up report into docs/bench.md's text (not the file) and check the result."""
    docs = docs_path.read_text(encoding="utf-8")
    report = (
        "## dory-wire benchmarks — 2026-01-01 00:00 UTC, `make bench`\n\nx86_64, 2 cores.\n\n"
        "| lang | bench | MB/s |\n|---|---|--:|\n| rust | reader | 1 |\n\n"
        f"{VERDICTS_HEADER}\n|---|---|---|\n| a target | 1.5 | yes |\n\nRaw records: `r.jsonl`.\n"
    )
    out = render(report, docs, "abc1234")
    assert outside(out) == outside(docs), "text outside the markers changed"
    table = out.split("<!-- table:start -->")[1].split("<!-- table:end -->")[0]
    verdicts = out.split("<!-- verdicts:start -->")[1].split("<!-- verdicts:end -->")[0]
    assert "(dory-wire benchmarks — 2026-01-01 00:00 UTC, commit `abc1234`)" in table, table
    assert "| rust | reader | 1 |" in table and "Raw records: `r.jsonl`." in table, table
    assert VERDICTS_HEADER not in table and "| a target | 1.5 | yes |" in verdicts, (table, verdicts)
    assert render(report, out, "abc1234") == out, "writing the same report twice differs"
    for broken in (report.replace(VERDICTS_HEADER, "| x |"), None):
        try:
            render(broken, docs, "") if broken else render(report, docs.replace("<!-- verdicts:end -->", ""), "")
        except SystemExit:
            continue
        raise AssertionError("a report without targets or docs without a marker was accepted")
    print("bench-docs: self-test passed", file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-test", action="store_true", help="check this script on docs/bench.md's text")
    parser.add_argument("report", type=Path, nargs="?")
    parser.add_argument("docs", type=Path, nargs="?", default=Path(__file__).resolve().parent.parent / "docs/bench.md")
    parser.add_argument("--commit", default="", help="the commit measured (shown in the docs)")
    args = parser.parse_args()
    if args.self_test:
        return self_test(args.docs)
    if args.report is None:
        parser.error("a report is required (or --self-test)")
    docs = render(args.report.read_text(encoding="utf-8"), args.docs.read_text(encoding="utf-8"), args.commit)
    args.docs.write_text(docs, encoding="utf-8")
    print(f"bench-docs: wrote the table and the targets into {args.docs}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
