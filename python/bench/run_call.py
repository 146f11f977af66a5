#!/usr/bin/env python3
"""The agent call `computer.run` against `read_output` + `bound` (make bench).

usage:
  run_call.py rss MB          peak RSS of one call following a command that
                              writes MB megabytes, in a child process per
                              measurement, against read_output + bound
  run_call.py overhead N      per-call time of run on a 2 KB output against
                              exec + bound, N calls each, interleaved
  run_call.py identity SEEDS  seeded commands (DORY_URL should cut responses):
                              each spill's sha256 equals the output's, and
                              each preview equals bound() of the full bytes

DORY_URL names the server. Each mode prints one JSON line.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dory_wire import RUN_PRESET, SpillDirectory, bound
from dory_wire.client import Client

LIMITS = {"max_lines": 400, "max_bytes": 16384}


def noisy(mb: int) -> str:
    """A command writing `mb` MB to stdout in 1 MB bursts 0.1 s apart (so a
    follower keeps up and 200 MB passes through the 10 MB retention live),
    and a line to stderr after each burst."""
    burst = "awk 'BEGIN { for (j = 1; j <= 10000; j++) printf \"%08d %090d\\n\", j, j }'"
    return f'for i in $(seq 1 {mb}); do {burst}; echo "burst $i" >&2; sleep 0.1; done'


def peak_rss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(how: str, mb: int) -> None:
    """One measurement, in this (fresh) process."""
    with Client() as client:
        computer = client.computers.get("bench")
        base = peak_rss_kib()
        t0 = time.monotonic()
        if how == "run":
            with tempfile.TemporaryDirectory() as spill:
                result = computer.run(
                    noisy(mb), spill=SpillDirectory(spill), gap_policy="skip", **LIMITS
                )
                lost = result.stdout_lost_bytes + result.stderr_lost_bytes
                total = result.stdout.total_bytes + result.stderr.total_bytes
        else:
            started = computer.processes.start(noisy(mb))
            process = computer.processes.get(started.proc_id)
            transcript = process.read_output(gap_policy="skip")
            out, err = transcript.bytes("stdout"), transcript.bytes("stderr")
            bound(out, **LIMITS)
            bound(err, **LIMITS)
            lost = sum(e - s for s, e in transcript.skipped("stdout")) + sum(
                e - s for s, e in transcript.skipped("stderr")
            )
            total = len(out) + len(err)
        wall = time.monotonic() - t0
    print(
        json.dumps(
            {
                "how": how,
                "base_kib": base,
                "peak_kib": peak_rss_kib(),
                "bytes": total,
                "lost": lost,
                "wall_s": wall,
            }
        )
    )


def rss(mb: int) -> dict:
    rows = {}
    for how in ("run", "read_output+bound"):
        out = subprocess.run(
            [sys.executable, __file__, "child", how, str(mb)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        rows[how] = json.loads(out.strip().splitlines()[-1])
    return {"bench": "run_rss", "mb": mb, **rows}


def overhead(n: int) -> dict:
    command = "seq 1 400"  # 1,892 bytes
    times = {"run": [], "exec+bound": []}
    with Client() as client:
        computer = client.computers.get("bench")
        for i in range(n):
            for how in ("run", "exec+bound") if i % 2 == 0 else ("exec+bound", "run"):
                t0 = time.perf_counter()
                if how == "run":
                    computer.run(command, **LIMITS)
                else:
                    answer = computer.exec(command)
                    bound(answer.stdout, **LIMITS)
                    bound(answer.stderr, **LIMITS)
                times[how].append(time.perf_counter() - t0)
    run, base = statistics.median(times["run"]), statistics.median(times["exec+bound"])
    return {
        "bench": "run_overhead",
        "calls": n,
        "run_ms": run * 1000,
        "exec_bound_ms": base * 1000,
        "ratio": run / base,
    }


def identity(seeds: int) -> dict:
    exact = 0
    with Client() as client, tempfile.TemporaryDirectory() as spill:
        computer = client.computers.get("bench")
        for seed in range(seeds):
            rng = random.Random(seed)
            lines = rng.randrange(100, 20000)
            command = (
                f"awk 'BEGIN {{ srand({seed}); for (i = 1; i <= {lines}; i++) "
                '{ if (rand() < 0.1) print "err " i > "/dev/stderr"; else print "out " i } }\''
            )
            result = computer.run(
                command, spill=SpillDirectory(spill), max_lines=60, max_bytes=4000
            )
            process = computer.processes.get(result.proc_id)
            transcript = process.read_output()
            ok = True
            for view, data in (
                ("stdout", transcript.bytes("stdout")),
                ("stderr", transcript.bytes("stderr")),
            ):
                preview = getattr(result, view)
                if preview.spill_path is not None:
                    ok &= (
                        hashlib.sha256(Path(preview.spill_path).read_bytes()).digest()
                        == hashlib.sha256(data).digest()
                    )
                # Each stream's view is bound() of its bytes in run's shape
                # (RUN_PRESET: keep, terminal, the tail split).
                again = (
                    bound(
                        data,
                        max_lines=60,
                        max_bytes=4000,
                        spill=lambda _id, _d, p=preview.spill_path: p,
                        spill_id=preview.spill_id,
                        **RUN_PRESET,
                    )
                    if preview.truncated
                    else bound(data, max_lines=60, max_bytes=4000, **RUN_PRESET)
                )
                ok &= again.text == preview.text
            exact += ok
    return {"bench": "run_identity", "seeds": seeds, "exact": exact}


def main(argv: list[str]) -> int:
    mode = argv[1] if len(argv) > 1 else "overhead"
    if mode == "child":
        child(argv[2], int(argv[3]))
        return 0
    arg = int(argv[2]) if len(argv) > 2 else 0
    row = {"rss": rss, "overhead": overhead, "identity": identity}[mode](arg)
    row["lang"] = "python"
    print(json.dumps(row))
    return 0 if row.get("exact", 1) == row.get("seeds", 1) else 1


if __name__ == "__main__":
    os.environ.setdefault("DORY_URL", "http://127.0.0.1:8080")
    sys.exit(main(sys.argv))
