"""Seeded trials through dory_wire.client: random bytes, random cuts, exact output.

Each trial starts a process writing random bytes (NUL and invalid UTF-8
included) to stdout and stderr in interleaved blocks of seeded random sizes,
each block also appended to a file of its stream. The server cuts NDJSON
responses at seeded random points. Even trials read with the frame loop
(``iter_output`` from the saved offsets after each ``StreamDisconnected``,
checking that every frame's ``data``/``encoding`` give back its ``bytes``),
odd trials with the one call ``read_output``. Both must equal the files byte
for byte, every time.

Environment: DORY_E2E_TRIALS (default 200), DORY_E2E_SEED (default 6),
DORY_E2E_CLIENT_TRIAL_BYTES (bytes per stream, default 100000).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from dory_wire import Reconnect
from dory_wire.client import Client, Process, StreamDisconnected
from refserver import SEED, TRIALS, RefServer, check_trial_output, run_trials, trial_script, wire_bytes

BYTES_PER_STREAM = int(os.environ.get("DORY_E2E_CLIENT_TRIAL_BYTES", "100000"))
# A trial's body is about 2.7 x BYTES_PER_STREAM (base64 frames): every first
# response is cut, and most trials reconnect several times.
DROP_MAX = max(1, BYTES_PER_STREAM)
MAX_CONNECTIONS = 1000  # hang guard


def read_frames(process: Process) -> tuple[dict[str, bytes], int]:
    """The frame loop: offsets saved after each frame, reconnect from them."""
    data = {"stdout": bytearray(), "stderr": bytearray()}
    at = (0, 0)
    for connection in range(1, MAX_CONNECTIONS + 1):
        with process.iter_output(*at) as stream:
            try:
                for frame in stream:
                    if frame.type in data:
                        assert wire_bytes(frame) == frame.bytes
                        data[frame.type] += frame.bytes
                    elif frame.type == "exit":
                        assert (frame.exit_code, frame.timed_out) == (0, False)
                        return {k: bytes(v) for k, v in data.items()}, connection
                    at = (stream.stdout_offset, stream.stderr_offset)
            except StreamDisconnected as gone:
                assert gone.cursor == stream.cursor
                at = (gone.stdout_offset, gone.stderr_offset)
    raise AssertionError(f"no exit after {MAX_CONNECTIONS} connections")


def run_trial(server: RefServer, trial: int, directory: Path) -> int:
    rng = random.Random(f"client:{SEED}:{trial}")
    with Client(server.url) as client:
        processes = client.computers.get("trials").processes
        command = ["sh", "-c", trial_script(rng, directory, BYTES_PER_STREAM)]
        started = processes.start(command, timeout_seconds=120)
        process = processes.get(started.proc_id)
        if trial % 2 == 0:
            got, connections = read_frames(process)
        else:
            # A frame carries up to 64 KiB (87 KiB of base64): a random cut
            # before the end of the first frame brings nothing new, several
            # times in a row now and then. Waiting would not help: no backoff.
            seen: list[Reconnect] = []
            transcript = process.read_output(retries=100, backoff_seconds=0, on_reconnect=seen.append)
            assert transcript.exit == (0, False)
            got = {s: transcript.bytes(s) for s in ("stdout", "stderr")}
            connections = 1 + len(seen)  # the reconnect hook sees each one
    check_trial_output(directory, got, BYTES_PER_STREAM, f"trial {trial} (seed {SEED}, {started.proc_id})")
    return connections


def test_seeded_drops_client_output_is_byte_identical() -> None:
    connections = run_trials("dory-client-trials-", DROP_MAX, run_trial)
    framed, one_call = connections[::2], connections[1::2]
    assert min(framed) >= 2, f"a frame trial was never cut: {framed}"
    assert not one_call or min(one_call) >= 2, f"a read_output trial was never cut: {one_call}"
    print(
        f"{TRIALS} client trials byte-identical; frame-loop trials used {sum(framed)} connections "
        f"(min {min(framed)}, max {max(framed)}), read_output trials {sum(one_call)}"
    )
