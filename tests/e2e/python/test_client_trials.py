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

import base64
import os
import random
import shlex
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from dory_wire.client import Client, Process, StreamDisconnected
from refserver import RefServer

TRIALS = int(os.environ.get("DORY_E2E_TRIALS", "200"))
SEED = int(os.environ.get("DORY_E2E_SEED", "6"))
BYTES_PER_STREAM = int(os.environ.get("DORY_E2E_CLIENT_TRIAL_BYTES", "100000"))
PARALLEL = 4
# A trial's body is about 2.7 x BYTES_PER_STREAM (base64 frames): every first
# response is cut, and most trials reconnect several times.
DROP_MAX = max(1, BYTES_PER_STREAM)
MAX_CONNECTIONS = 1000  # hang guard


def script(rng: random.Random, directory: Path) -> str:
    files = {name: shlex.quote(str(directory / name)) for name in ("stdout", "stderr")}
    blocks = []
    for name in files:
        left = BYTES_PER_STREAM
        while left > 0:
            size = min(left, rng.randint(1, max(1, BYTES_PER_STREAM // 4)))
            blocks.append((name, size))
            left -= size
    rng.shuffle(blocks)
    lines = ["set -e", *(f": > {f}" for f in files.values())]
    for name, size in blocks:
        redirect = " >&2" if name == "stderr" else ""
        lines.append(f"head -c {size} /dev/urandom | tee -a {files[name]}{redirect}")
    return "\n".join(lines)


def read_frames(process: Process) -> tuple[dict[str, bytes], int]:
    """The frame loop: offsets saved after each frame, reconnect from them."""
    data = {"stdout": bytearray(), "stderr": bytearray()}
    at = (0, 0)
    for connection in range(1, MAX_CONNECTIONS + 1):
        with process.iter_output(*at) as stream:
            try:
                for frame in stream:
                    if frame.type in data:
                        wire = (
                            base64.b64decode(frame.data, validate=True)
                            if frame.encoding == "base64"
                            else frame.data.encode()
                        )
                        assert wire == frame.bytes
                        data[frame.type] += frame.bytes
                    elif frame.type == "exit":
                        assert (frame.exit_code, frame.timed_out) == (0, False)
                        return {k: bytes(v) for k, v in data.items()}, connection
                    at = (stream.stdout_offset, stream.stderr_offset)
            except StreamDisconnected as gone:
                assert gone.cursor == stream.cursor
                at = (gone.stdout_offset, gone.stderr_offset)
    raise AssertionError(f"no exit after {MAX_CONNECTIONS} connections")


def run_trial(url: str, trial: int, root: Path) -> int:
    rng = random.Random(f"client:{SEED}:{trial}")
    directory = root / f"trial-{trial}"
    directory.mkdir()
    with Client(url) as client:
        processes = client.computers.get("trials").processes
        started = processes.start(["sh", "-c", script(rng, directory)], timeout_seconds=120)
        process = processes.get(started.proc_id)
        if trial % 2 == 0:
            got, connections = read_frames(process)
        else:
            # A frame carries up to 64 KiB (87 KiB of base64): a random cut
            # before the end of the first frame brings nothing new, several
            # times in a row now and then. Waiting would not help: no backoff.
            transcript = process.read_output(retries=100, backoff_seconds=0)
            assert transcript.exit == (0, False)
            got = {s: transcript.bytes(s) for s in ("stdout", "stderr")}
            connections = 0  # read_output does not say; the frame trials count
    for name in ("stdout", "stderr"):
        written = (directory / name).read_bytes()
        assert len(written) == BYTES_PER_STREAM, f"trial {trial}: the process wrote {len(written)}"
        if got[name] != written:
            first = next((i for i, (a, b) in enumerate(zip(got[name], written)) if a != b), None)
            raise AssertionError(
                f"trial {trial} (seed {SEED}, {started.proc_id}): {name} differs: got "
                f"{len(got[name])} bytes, wrote {len(written)}, first difference at {first}"
            )
        (directory / name).unlink()
    directory.rmdir()
    return connections


def test_seeded_drops_client_output_is_byte_identical() -> None:
    drop = ["--drop-seed", str(SEED), "--drop-probability", "1.0", "--drop-max-bytes", str(DROP_MAX)]
    with RefServer(*drop) as server, tempfile.TemporaryDirectory(prefix="dory-client-trials-") as tmp:
        with ThreadPoolExecutor(PARALLEL) as pool:
            connections = list(pool.map(lambda t: run_trial(server.url, t, Path(tmp)), range(TRIALS)))
    framed = connections[::2]
    assert len(connections) == TRIALS
    assert min(framed) >= 2, f"a frame trial was never cut: {framed}"
    print(
        f"{TRIALS} client trials byte-identical; frame-loop trials used {sum(framed)} connections "
        f"(min {min(framed)}, max {max(framed)})"
    )
