"""Seeded resume trials: random bytes, random connection drops, exact transcripts.

Each trial starts a process that writes 1 MB of random bytes, 500,000 to
stdout and 500,000 to stderr,
interleaved in blocks of seeded random sizes, and also appends every byte it
writes to a file of its stream (``tee``). One server cuts NDJSON responses at
seeded random points (``--drop-seed``); the client reconnects with the reader's
consumed offsets until ``exit``. The transcript of each stream must equal the
file byte for byte, every time.

Environment: DORY_E2E_TRIALS (default 200), DORY_E2E_SEED (default 6),
DORY_E2E_TRIAL_BYTES (bytes per stream, default 500000).
"""

from __future__ import annotations

import os
import random
import shlex
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from dory_wire import Exited
from refserver import RefServer, follow_output

TRIALS = int(os.environ.get("DORY_E2E_TRIALS", "200"))
SEED = int(os.environ.get("DORY_E2E_SEED", "6"))
BYTES_PER_STREAM = int(os.environ.get("DORY_E2E_TRIAL_BYTES", "500000"))
PARALLEL = 4
# Every response is cut after 1..=DROP_MAX body bytes unless it ends first. An
# NDJSON body of a trial is about 1.35 MB (base64), so each trial reconnects
# several times, and always at least once.
DROP_MAX = 500_000


def block_sizes(rng: random.Random, total: int) -> list[int]:
    sizes = []
    left = total
    while left > 0:
        size = min(left, rng.randint(1, total // 4))
        sizes.append(size)
        left -= size
    return sizes


def trial_command(rng: random.Random, directory: Path) -> str:
    """A shell script writing both streams in interleaved random blocks."""
    out = shlex.quote(str(directory / "stdout"))
    err = shlex.quote(str(directory / "stderr"))
    blocks = [("out", n) for n in block_sizes(rng, BYTES_PER_STREAM)]
    blocks += [("err", n) for n in block_sizes(rng, BYTES_PER_STREAM)]
    rng.shuffle(blocks)
    lines = ["set -e", f": > {out}", f": > {err}"]
    for stream, size in blocks:
        if stream == "out":
            lines.append(f"head -c {size} /dev/urandom | tee -a {out}")
        else:
            lines.append(f"head -c {size} /dev/urandom | tee -a {err} >&2")
    return "\n".join(lines)


def run_trial(server: RefServer, trial: int, root: Path) -> int:
    rng = random.Random(f"{SEED}:{trial}")
    directory = root / f"trial-{trial}"
    directory.mkdir()
    proc_id = server.start_process(["sh", "-c", trial_command(rng, directory)], timeout=120)
    got = follow_output(server, proc_id)
    context = f"trial {trial} (seed {SEED}, {proc_id}, {got.connections} connections)"
    assert got.end == Exited(0, False), f"{context}: ended {got.end!r}"
    for stream in ("stdout", "stderr"):
        written = (directory / stream).read_bytes()
        assert len(written) == BYTES_PER_STREAM, f"{context}: the process wrote {len(written)} {stream} bytes"
        data = bytes(got.data[stream])
        if data != written:
            first = next((i for i, (a, b) in enumerate(zip(data, written)) if a != b), min(len(data), len(written)))
            raise AssertionError(
                f"{context}: {stream} differs: got {len(data)} bytes, wrote {len(written)}, first difference at {first}"
            )
        (directory / stream).unlink()
    directory.rmdir()
    return got.reconnects


def test_seeded_drops_resume_byte_identical() -> None:
    drop = ["--drop-seed", str(SEED), "--drop-probability", "1.0", "--drop-max-bytes", str(DROP_MAX)]
    with RefServer(*drop) as server, tempfile.TemporaryDirectory(prefix="dory-e2e-trials-") as tmp:
        with ThreadPoolExecutor(PARALLEL) as pool:
            reconnects = list(pool.map(lambda t: run_trial(server, t, Path(tmp)), range(TRIALS)))
    # The fault injection really cut every trial's first response.
    assert len(reconnects) == TRIALS
    assert min(reconnects) >= 1, f"a trial was never cut: {reconnects}"
    print(f"{TRIALS} trials, {sum(reconnects)} reconnects (min {min(reconnects)}, max {max(reconnects)})")
