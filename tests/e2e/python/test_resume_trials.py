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
from pathlib import Path

from dory_wire import Exited
from refserver import SEED, TRIALS, RefServer, check_trial_output, follow_output, run_trials, trial_script

BYTES_PER_STREAM = int(os.environ.get("DORY_E2E_TRIAL_BYTES", "500000"))
# Every response is cut after 1..=DROP_MAX body bytes unless it ends first. An
# NDJSON body of a trial is about 1.35 MB (base64), so each trial reconnects
# several times, and always at least once.
DROP_MAX = 500_000


def run_trial(server: RefServer, trial: int, directory: Path) -> int:
    rng = random.Random(f"{SEED}:{trial}")
    command = ["sh", "-c", trial_script(rng, directory, BYTES_PER_STREAM)]
    proc_id = server.start_process(command, timeout=120)
    got = follow_output(server, proc_id)
    context = f"trial {trial} (seed {SEED}, {proc_id}, {got.connections} connections)"
    assert got.end == Exited(0, False), f"{context}: ended {got.end!r}"
    check_trial_output(directory, {s: bytes(d) for s, d in got.data.items()}, BYTES_PER_STREAM, context)
    return got.reconnects


def test_seeded_drops_resume_byte_identical() -> None:
    reconnects = run_trials("dory-e2e-trials-", DROP_MAX, run_trial)
    # The fault injection really cut every trial's first response.
    assert min(reconnects) >= 1, f"a trial was never cut: {reconnects}"
    print(f"{TRIALS} trials, {sum(reconnects)} reconnects (min {min(reconnects)}, max {max(reconnects)})")
