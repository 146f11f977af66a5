#!/usr/bin/env python3
"""Many followers on one AsyncClient, the Python row beside the Rust client's
`client_bench scale` (make bench): starts FOLLOWERS processes (the same
command as the Rust bench), reads them all at once with
``await process.read_output()`` while the server cuts responses at seeded
points, checks every transcript byte for byte, and prints one JSON line:
peak RSS over the baseline per follower and CPU seconds per MB read.

usage: client_scale.py [FOLLOWERS]   (DORY_URL: the server)
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time

from dory_wire.client import AsyncClient

LINES = 6000


def command(n: int) -> str:
    return f"echo start-{n}; seq 1 {LINES}; echo end-{n} >&2"


def expected(n: int) -> tuple[bytes, bytes]:
    out = f"start-{n}\n".encode() + b"".join(b"%d\n" % i for i in range(1, LINES + 1))
    return out, f"end-{n}\n".encode()


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def main(followers: int) -> int:
    async with AsyncClient() as client:
        computer = client.computers.get("bench")
        processes = []
        for batch in range(0, followers, 50):
            started = await asyncio.gather(
                *(
                    computer.processes.start(command(n), timeout_seconds=120)
                    for n in range(batch, min(batch + 50, followers))
                )
            )
            processes += await asyncio.gather(*(computer.processes.get(s.proc_id) for s in started))
        base = rss_kib()
        peak = base
        done = False

        async def sample() -> None:
            nonlocal peak
            while not done:
                peak = max(peak, rss_kib())
                await asyncio.sleep(0.005)

        sampler = asyncio.create_task(sample())
        usage = resource.getrusage(resource.RUSAGE_SELF)
        began = time.monotonic()
        transcripts = await asyncio.gather(*(p.read_output(retries=20, max_backoff_seconds=0.5) for p in processes))
        wall = time.monotonic() - began
        after = resource.getrusage(resource.RUSAGE_SELF)
        done = True
        await sampler
        total = 0
        for n, transcript in enumerate(transcripts):
            out, err = expected(n)
            if (transcript.bytes("stdout"), transcript.bytes("stderr")) != (out, err):
                print(f"follower {n}: the transcript differs", file=sys.stderr)
                return 1
            total += len(out) + len(err)
        cpu = (after.ru_utime + after.ru_stime) - (usage.ru_utime + usage.ru_stime)
        mb = total / 1e6
        print(
            json.dumps(
                {
                    "lang": "python",
                    "bench": "scale",
                    "followers": followers,
                    "exact": len(transcripts),
                    "mb": mb,
                    "wall_s": wall,
                    "cpu_s_per_mb": cpu / mb,
                    "peak_rss_over_base_kib_per_follower": (peak - base) / followers,
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 256)))
