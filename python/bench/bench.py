"""The Python side of ``make bench``.

Compares ``dory_wire.Reader`` with the decoders an SDK author writes by
hand (``json`` and ``orjson``, see ``baselines.py``) on the corpora made by
``dory-bench corpora``, and ``dory_wire.bound`` with a pure-Python bounder.
Each measured run is a child process (``--child``), so its peak RSS
(``ru_maxrss``) is its own; runs of the compared implementations are
interleaved round by round; time is the process's CPU time. Results are
JSON lines appended to ``--out`` for ``dory-bench report``.

Usage::

    python bench.py --corpora DIR --mb 100 --runs 5 --out results.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
PIECE = 64 * 1024
PREVIEW_MAX_LINES = 2000
PREVIEW_MAX_BYTES = 50 * 1024
SPILL_ID = "0123456789abcdef0123456789abcdef"

# id -> (group, label, role)
IMPLS: dict[str, tuple[str, str, str]] = {
    "reader": ("reader", "dory_wire.Reader.feed, bytes per stream", "ours"),
    "reader-into": (
        "reader",
        "dory_wire.Reader.feed_into(Transcript), then bytes (recommended)",
        "ours",
    ),
    "reader-into-kept": (
        "reader",
        "dory_wire.Reader.feed_into(Transcript), bytes left in it (no bytes() copy)",
        "ours-variant",
    ),
    "follower-into-kept": (
        "reader",
        "dory_wire.Follower.feed_into(Transcript), one response, no faults (bytes left in it)",
        "ours-variant",
    ),
    "json": ("reader", "json.loads + b64decode + bytearray", "baseline"),
    "orjson": ("reader", "orjson.loads + b64decode + bytearray", "baseline"),
    "transcript": ("transcript", "Reader into dory_wire.Transcript (bytes and text)", "ours"),
    "json-text": ("transcript", "json baseline + bytes.decode(errors='replace')", "baseline"),
    "orjson-text": ("transcript", "orjson baseline + bytes.decode(errors='replace')", "baseline"),
    "bound": ("bound", "dory_wire.bound (caller's spill id)", "ours"),
    "py-bound": ("bound", "pure-Python head/tail bounder", "baseline"),
    "streaming": (
        "preview-memory",
        "dory_wire.StreamingBounder fed from disk (64 KiB reads)",
        "ours",
    ),
}


def _rss_now() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return None


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _chunks(body: bytes, piece: int) -> Any:
    return (body[i : i + piece] for i in range(0, len(body), piece))


def _run_reader(body: bytes, piece: int) -> tuple[int, int]:
    import dory_wire

    reader = dory_wire.Reader("process_output")
    reader.open(200, "application/x-ndjson")
    out = {"stdout": bytearray(), "stderr": bytearray()}
    output = dory_wire.Output
    for chunk in _chunks(body, piece):
        for event in reader.feed(chunk):
            if isinstance(event, output):
                out[event.stream] += event.data
    _events, end = reader.finish()
    if not isinstance(end, dory_wire.Exited):
        raise SystemExit(f"the corpus must end with exit, got {end!r}")
    return len(out["stdout"]), len(out["stderr"])


def _fill_transcript(body: bytes, piece: int) -> Any:
    """Decodes into a ``Transcript``: with ``feed_into`` (no Python object
    per output frame) when the binding has it, else one ``push`` per event."""
    import dory_wire

    reader = dory_wire.Reader("process_output")
    reader.open(200, "application/x-ndjson")
    transcript = dory_wire.Transcript()
    if hasattr(reader, "feed_into"):
        feed_into = reader.feed_into
        for chunk in _chunks(body, piece):
            feed_into(chunk, transcript)
    else:
        push = transcript.push
        for chunk in _chunks(body, piece):
            for event in reader.feed(chunk):
                push(event)
    _events, end = reader.finish()
    if not isinstance(end, dory_wire.Exited):
        raise SystemExit(f"the corpus must end with exit, got {end!r}")
    transcript.finish()
    return transcript


def _run_reader_into(body: bytes, piece: int) -> tuple[int, int]:
    transcript = _fill_transcript(body, piece)
    return len(transcript.bytes("stdout")), len(transcript.bytes("stderr"))


def _run_reader_into_kept(body: bytes, piece: int) -> tuple[int, int]:
    """The recommended path without its last step: what collecting costs
    before ``bytes()`` copies each stream into a new ``bytes`` object (the
    lengths come from the cursor: the corpora start at offset 0)."""
    import dory_wire

    reader = dory_wire.Reader("process_output")
    reader.open(200, "application/x-ndjson")
    transcript = dory_wire.Transcript()
    for chunk in _chunks(body, piece):
        reader.feed_into(chunk, transcript)
    _events, end = reader.finish()
    if not isinstance(end, dory_wire.Exited):
        raise SystemExit(f"the corpus must end with exit, got {end!r}")
    transcript.finish()
    cursor = reader.cursor
    return cursor.stdout, cursor.stderr


def _run_follower_into_kept(body: bytes, piece: int) -> tuple[int, int]:
    """``_run_reader_into_kept`` through the follower: its request, the
    response's head, the body, its decision. What the whole conversation
    costs over the bare reader."""
    import dory_wire

    follower = dory_wire.Follower.process_output("bench", "p1")
    follower.request()
    follower.open(200, "application/x-ndjson")
    transcript = dory_wire.Transcript()
    feed_into = follower.feed_into
    for chunk in _chunks(body, piece):
        feed_into(chunk, transcript)
    _events, decision = follower.finish()
    if not (isinstance(decision, dory_wire.Done) and decision.exited):
        raise SystemExit(f"the corpus must end with exit, got {decision!r}")
    transcript.finish()
    cursor = follower.cursor
    return cursor.stdout, cursor.stderr


def _run_transcript(body: bytes, piece: int) -> tuple[int, int]:
    transcript = _fill_transcript(body, piece)
    return len(transcript.text("stdout")), len(transcript.text("stderr"))


def _run_baseline(
    decode: Callable[[Any], Any], text: bool = False
) -> Callable[[bytes, int], tuple[int, int]]:
    def run(body: bytes, piece: int) -> tuple[int, int]:
        out, err, code = decode(_chunks(body, piece))
        if code != 0:
            raise SystemExit(f"the corpus must end with exit 0, got {code!r}")
        if text:
            return len(out.decode("utf-8", "replace")), len(err.decode("utf-8", "replace"))
        return len(out), len(err)

    return run


def _run_bound(body: bytes, _piece: int) -> tuple[int, int]:
    import dory_wire

    preview = dory_wire.bound(
        body, max_lines=PREVIEW_MAX_LINES, max_bytes=PREVIEW_MAX_BYTES, spill_id=SPILL_ID
    )
    return len(preview.text.encode()), preview.text.count("\n")


def _run_py_bound(body: bytes, _piece: int) -> tuple[int, int]:
    from baselines import py_bound

    text = py_bound(body, PREVIEW_MAX_LINES, PREVIEW_MAX_BYTES)
    return len(text.encode()), text.count("\n")


def child(impl: str, path: str, piece: int, limit: int | None) -> dict[str, Any]:
    """One measured run; returns the measurement."""
    sys.path.insert(0, str(HERE))
    import dory_wire  # noqa: F401  (imported before the baseline RSS is read)

    if impl == "streaming":
        import dory_wire as dw

        base = _rss_now()
        t0, w0 = time.process_time(), time.perf_counter()
        bounder = dw.StreamingBounder(PREVIEW_MAX_LINES, PREVIEW_MAX_BYTES, spill_id=SPILL_ID)
        total = 0
        with open(path, "rb") as f:
            while limit is None or total < limit:
                want = piece if limit is None else min(piece, limit - total)
                chunk = f.read(want)
                if not chunk:
                    break
                total += len(chunk)
                bounder.push(chunk)
        preview = bounder.finish()
        cpu, wall = time.process_time() - t0, time.perf_counter() - w0
        return {
            "secs": cpu,
            "wall": wall,
            "bytes": total,
            "peak_rss": _peak_rss(),
            "base_rss": base,
            "check": [len(preview.text)],
        }

    if impl.startswith("orjson"):
        import orjson  # noqa: F401  (fail early when missing)
    with open(path, "rb") as f:
        body = f.read() if limit is None else f.read(limit)
    runs: dict[str, Callable[[bytes, int], tuple[int, int]]] = {
        "reader": _run_reader,
        "reader-into": _run_reader_into,
        "reader-into-kept": _run_reader_into_kept,
        "follower-into-kept": _run_follower_into_kept,
        "transcript": _run_transcript,
        "bound": _run_bound,
        "py-bound": _run_py_bound,
    }
    if impl in ("json", "orjson", "json-text", "orjson-text"):
        import baselines

        runs[impl] = _run_baseline(
            baselines.decode_json if impl.startswith("json") else baselines.decode_orjson,
            text=impl.endswith("-text"),
        )
    run = runs[impl]
    base = _rss_now()
    t0, w0 = time.process_time(), time.perf_counter()
    check = run(body, piece)
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    return {
        "secs": cpu,
        "wall": wall,
        "bytes": len(body),
        "peak_rss": _peak_rss(),
        "base_rss": base,
        "check": list(check),
    }


def _spawn(impl: str, path: Path, limit: int | None = None) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", impl, "--file", str(path)]
    if limit is not None:
        cmd += ["--limit", str(limit)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"bench child {impl} on {path.name} failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _record(impl: str, corpus: str, m: dict[str, Any]) -> str:
    group, label, role = IMPLS[impl]
    return json.dumps(
        {
            "lang": "python",
            "group": group,
            "corpus": corpus,
            "id": impl,
            "label": label,
            "role": role,
            "secs": m["secs"],
            "wall": m["wall"],
            "bytes": m["bytes"],
            "peak_rss": m["peak_rss"],
            "base_rss": m["base_rss"],
        }
    )


def _corpus(corpora: Path, letter: str, mb: int) -> Path:
    ext = "log" if letter == "P" else "ndjson"
    matches = sorted(corpora.glob(f"{letter}-{mb}MB-v*.{ext}"))
    if not matches:
        raise SystemExit(f"no corpus {letter} at {mb} MB in {corpora}: run dory-bench corpora")
    return matches[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child")
    ap.add_argument("--file")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--piece", type=int, default=PIECE)
    ap.add_argument("--corpora", default="target/bench-corpora")
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default="target/bench-results/results.jsonl")
    ap.add_argument("--no-orjson", action="store_true")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.file, args.piece, args.limit)))
        return

    corpora = Path(args.corpora)
    import dory_wire

    impls = ["reader", "json"] + ([] if args.no_orjson else ["orjson"])
    if hasattr(dory_wire.Reader, "feed_into"):
        # The collect mode is what a "read all output" SDK call uses: it is
        # ours; the per-event loop stays as a variant.
        impls.insert(0, "reader-into")
        impls.insert(1, "reader-into-kept")
        if hasattr(dory_wire, "Follower"):
            impls.insert(2, "follower-into-kept")
        group, label, _ = IMPLS["reader"]
        IMPLS["reader"] = (group, label, "ours-variant")
    # The transcript-collecting path, when the binding has one.
    text_impls = []
    if hasattr(dory_wire, "Transcript"):
        text_impls = ["transcript", "json-text"] + ([] if args.no_orjson else ["orjson-text"])
    with open(args.out, "a") as out:
        for letter in "ABCD":
            path = _corpus(corpora, letter, args.mb)
            print(f"python: reader on {letter} …", file=sys.stderr, flush=True)
            checks = {}
            for _ in range(args.runs):
                for impl in impls:
                    m = _spawn(impl, path)
                    checks[impl] = m["check"]
                    out.write(_record(impl, letter, m) + "\n")
                    out.flush()
            if len({tuple(c) for c in checks.values()}) != 1:
                raise SystemExit(f"python: decoders disagree on {letter}: {checks}")
            checks = {}
            # The transcript path is a secondary figure: fewer runs keep
            # `make bench` well inside its time budget.
            for _ in range(min(args.runs, 3) if text_impls else 0):
                for impl in text_impls:
                    m = _spawn(impl, path)
                    checks[impl] = m["check"]
                    out.write(_record(impl, letter, m) + "\n")
                    out.flush()
            if len({tuple(c) for c in checks.values()}) > 1:
                # A correctness signal, not a reason to lose the timings.
                print(
                    f"python: WARNING: text lengths (stdout, stderr) differ on {letter}: {checks}",
                    file=sys.stderr,
                )

        path = _corpus(corpora, "P", args.mb)
        print("python: bound …", file=sys.stderr, flush=True)
        for _ in range(args.runs):
            for impl in ("bound", "py-bound"):
                m = _spawn(impl, path)
                out.write(_record(impl, "P", m) + "\n")
        size = path.stat().st_size
        for limit in (size // 10, size):
            m = _spawn("streaming", path, limit)
            out.write(_record("streaming", f"P, first {m['bytes'] // 1_000_000} MB", m) + "\n")
    sys.path.insert(0, str(HERE))
    import preview_calls

    preview_calls.run(args.runs, args.out)
    print(f"python: records appended to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
