"""The preview bounder per call from Python, part of ``make bench``.

``dory_wire.bound()`` against a plain head + tail written by hand in Python,
on the 2 KB and 16 KB log inputs of the Rust benchmark (``dory-bench``,
``crates/dory-bench/src/preview.rs``), cut to 10 lines and max(169, size / 8)
bytes. Both run in the same process, interleaved; the medians are compared
and the records appended to ``--out`` for ``dory-bench report``.

Usage::

    python preview_calls.py [--runs 5] [--out results.jsonl]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any, Callable


def log_input(size: int) -> bytes:
    """Log text of exactly ``size`` bytes (the Rust benchmark's generator)."""
    out = bytearray()
    state = size
    i = 0
    while len(out) < size:
        state = (state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        words = 1 + (state >> 33) % 10
        out += f"{i:04} building target ".encode() + b"item " * words + b"\n"
        i += 1
    return bytes(out[:size])


def head_tail(data: bytes, max_lines: int, max_bytes: int) -> str:
    """The head + tail a Python author writes by hand: decode, split lines,
    keep the first and last lines that fit both limits around a marker."""
    text = data.decode("utf-8", "replace")
    lines = text.splitlines(keepends=True)
    if len(lines) <= max_lines and len(data) <= max_bytes:
        return text
    head: list[str] = []
    tail: list[str] = []
    used = len(f"[... {len(lines)} lines omitted ...]\n".encode())
    lo, hi = 0, len(lines)
    while len(head) + len(tail) + 1 < max_lines and lo < hi:
        take_tail = len(tail) <= len(head)
        line = lines[hi - 1] if take_tail else lines[lo]
        size = len(line.encode())
        if used + size > max_bytes:
            break
        used += size
        if take_tail:
            tail.insert(0, line)
            hi -= 1
        else:
            head.append(line)
            lo += 1
    return "".join(head) + f"[... {hi - lo} lines omitted ...]\n" + "".join(tail)


def _per_call(fn: Callable[[], object], calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - start) / calls


def run(runs: int = 5, out: str | None = None) -> list[dict[str, Any]]:
    """Runs the comparison; returns the records (appended to ``out``)."""
    import dory_wire

    records: list[dict[str, Any]] = []
    for size in (2048, 16384):
        data = log_input(size)
        max_lines, max_bytes = 10, max(169, size // 8)
        corpus = f"{size // 1024} KB cut"

        def ours(data: bytes = data, lines: int = max_lines, limit: int = max_bytes) -> object:
            return dory_wire.bound(data, max_lines=lines, max_bytes=limit)

        def hand(data: bytes = data, lines: int = max_lines, limit: int = max_bytes) -> object:
            return head_tail(data, lines, limit)

        assert dory_wire.bound(data, max_lines=max_lines, max_bytes=max_bytes).truncated
        probe = max(_per_call(ours, 200), _per_call(hand, 200))
        calls = max(200, round(0.05 / probe))
        times: dict[str, list[float]] = {"bound": [], "head-tail": []}
        for _ in range(runs):
            times["bound"].append(_per_call(ours, calls))
            times["head-tail"].append(_per_call(hand, calls))
        impls = [
            ("bound", "dory_wire.bound(), no writer", "ours"),
            ("head-tail", "plain head + tail written in Python", "baseline"),
        ]
        for impl, label, role in impls:
            for secs in times[impl]:
                records.append(
                    {
                        "lang": "python",
                        "group": "preview-calls",
                        "corpus": corpus,
                        "id": impl,
                        "label": label,
                        "role": role,
                        "secs": secs,
                        "bytes": size,
                    }
                )
        ours_s = statistics.median(times["bound"])
        hand_s = statistics.median(times["head-tail"])
        ratio = hand_s / ours_s
        print(
            f"python: preview {corpus}: bound {ours_s * 1e6:.1f} µs, head + tail "
            f"{hand_s * 1e6:.1f} µs: bound is {ratio:.2f} times as fast "
            f"({'met' if ratio > 1 else 'missed'})",
            file=sys.stderr,
        )
    if out:
        with open(out, "a") as f:
            for record in records:
                f.write(json.dumps(record) + "\n")
    return records


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args()
    run(args.runs, args.out)


if __name__ == "__main__":
    main()
