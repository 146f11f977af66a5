"""Load: 64 concurrent followers on one AsyncClient, under seeded cuts.

64 processes write random bytes to both streams over about a second (each
block also appended to a file); 64 followers on one ``AsyncClient`` follow
them live while the server cuts responses at seeded random points. Every
transcript must equal the files exactly. The process's resident memory is
sampled meanwhile (each round in a fresh interpreter): the growth at the peak,
per follower, is printed twice — for ``read_output`` (which keeps each
transcript) and for a frame loop that keeps only a hash (what following
itself costs).

Environment: DORY_E2E_FOLLOWERS (default 64), DORY_E2E_LOAD_BYTES (bytes per
stream and process, default 131072).
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from dory_wire.client import AsyncClient, AsyncProcess, StreamDisconnected
from refserver import RefServer

FOLLOWERS = int(os.environ.get("DORY_E2E_FOLLOWERS", "64"))
BYTES_PER_STREAM = int(os.environ.get("DORY_E2E_LOAD_BYTES", str(128 * 1024)))
BLOCKS = 16
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


class PeakRss:
    """Samples the resident set size every 5 ms in a thread."""

    def __init__(self) -> None:
        self.base = rss()
        self.peak = self.base
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, rss())

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss())


def script(directory: Path, go: Path) -> str:
    out = shlex.quote(str(directory / "stdout"))
    err = shlex.quote(str(directory / "stderr"))
    size = BYTES_PER_STREAM // BLOCKS
    lines = [f"while [ ! -e {shlex.quote(str(go))} ]; do sleep 0.01; done", f": > {out}", f": > {err}"]
    for _ in range(BLOCKS):
        lines.append(f"head -c {size} /dev/urandom | tee -a {out}")
        lines.append(f"head -c {size} /dev/urandom | tee -a {err} >&2")
        lines.append("sleep 0.05")
    return "\n".join(lines)


async def follow_hashing(process: AsyncProcess) -> dict[str, str]:
    """A frame loop that keeps nothing but a hash per stream."""
    hashes = {"stdout": hashlib.sha256(), "stderr": hashlib.sha256()}
    at = (0, 0)
    for _ in range(1000):  # hang guard
        async with process.iter_output(*at) as stream:
            try:
                async for frame in stream:
                    if frame.type in hashes:
                        hashes[frame.type].update(frame.bytes)
                    elif frame.type == "exit":
                        return {k: h.hexdigest() for k, h in hashes.items()}
                    at = (stream.stdout_offset, stream.stderr_offset)
            except StreamDisconnected as gone:
                at = (gone.stdout_offset, gone.stderr_offset)
    raise AssertionError("no exit after 1000 connections")


async def run(url: str, root: Path, mode: str) -> tuple[list[Path], list[object], int]:
    go = root / f"go-{mode}"
    dirs = [root / f"{mode}-{i}" for i in range(FOLLOWERS)]
    async with AsyncClient(url) as client:
        computer = client.computers.get("load")
        processes = []
        for directory in dirs:
            directory.mkdir()
            started = await computer.processes.start(["sh", "-c", script(directory, go)], timeout_seconds=120)
            processes.append(await computer.processes.get(started.proc_id))
        gc.collect()
        with PeakRss() as memory:
            go.touch()
            if mode == "transcripts":
                results: list[object] = list(
                    await asyncio.gather(*(p.read_output(backoff_seconds=0.01) for p in processes))
                )
            else:
                results = list(await asyncio.gather(*(follow_hashing(p) for p in processes)))
        return dirs, results, memory.peak - memory.base


def phase(url: str, root: Path, mode: str) -> tuple[float, int]:
    """One round of followers, checked against the files: (seconds, RSS growth)."""
    began = time.monotonic()
    dirs, results, growth = asyncio.run(run(url, root, mode))
    elapsed = time.monotonic() - began
    for directory, result in zip(dirs, results):
        for name in ("stdout", "stderr"):
            written = (directory / name).read_bytes()
            assert len(written) == BYTES_PER_STREAM // BLOCKS * BLOCKS
            if mode == "transcripts":
                assert result.bytes(name) == written, (directory, name)  # type: ignore[attr-defined]
                assert result.exit == (0, False)  # type: ignore[attr-defined]
            else:
                assert result[name] == hashlib.sha256(written).hexdigest(), (directory, name)  # type: ignore[index]
    return elapsed, growth


def test_64_followers_on_one_async_client() -> None:
    drop = ["--drop-seed", "64", "--drop-probability", "0.5", "--drop-max-bytes", str(BYTES_PER_STREAM)]
    report = []
    with RefServer(*drop) as server, tempfile.TemporaryDirectory(prefix="dory-client-load-") as tmp:
        for mode in ("hashes", "transcripts"):
            # Each round in a fresh interpreter: its resident memory starts from
            # a clean heap, not one grown (and kept) by earlier tests.
            run_ = subprocess.run(
                [sys.executable, __file__, server.url, tmp, mode],
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert run_.returncode == 0, run_.stdout + run_.stderr
            elapsed, growth = json.loads(run_.stdout.strip().splitlines()[-1])
            if mode == "hashes":
                # Following keeps one frame and the connection's buffers, not the output.
                assert growth / FOLLOWERS < 2**20, f"{growth / FOLLOWERS:.0f} bytes per follower"
            report.append(
                f"{mode}: {FOLLOWERS} followers in {elapsed:.1f} s, resident memory +{growth / 2**20:.1f} MiB "
                f"at the peak = {growth / FOLLOWERS / 1024:.0f} KiB per follower "
                f"({2 * BYTES_PER_STREAM // 1024} KiB of output each)"
            )
    print("\n" + "\n".join(report))


if __name__ == "__main__":
    # python test_client_load.py URL DIRECTORY MODE: one round, prints [seconds, growth].
    print(json.dumps(phase(sys.argv[1], Path(sys.argv[2]), sys.argv[3])))
