#!/usr/bin/env python3
"""Follow many processes at once on one AsyncClient.

Starts COUNT commands that write for about a second, then follows all of them
concurrently with ``await process.read_output()`` (each reconnecting from its
own offsets when its connection drops) and checks every transcript.

usage: follow_many.py [COUNT]   (default 16)

Environment: DORY_URL (the server's base URL), CE_COMPUTER_ID (default "c1").
"""

from __future__ import annotations

import asyncio
import os
import sys

from dory_wire.client import AsyncClient, AsyncComputer, Transcript

LINES = 20


def command(n: int) -> str:
    return f"i=1; while [ $i -le {LINES} ]; do echo {n}:$i; sleep 0.05; i=$((i+1)); done"


def expected(n: int) -> bytes:
    return b"".join(b"%d:%d\n" % (n, i) for i in range(1, LINES + 1))


async def follow(computer: AsyncComputer, n: int) -> Transcript:
    started = await computer.processes.start(command(n), timeout_seconds=60)
    process = await computer.processes.get(started.proc_id)
    return await process.read_output()


async def main(count: int) -> int:
    async with AsyncClient() as client:
        computer = client.computers.get(os.environ.get("CE_COMPUTER_ID", "c1"))
        transcripts = await asyncio.gather(*(follow(computer, n) for n in range(count)))
    for n, transcript in enumerate(transcripts):
        if transcript.bytes("stdout") != expected(n) or transcript.exit != (0, False):
            print(f"process {n}: unexpected output {transcript.bytes('stdout')!r}", file=sys.stderr)
            return 1
    print(f"{count} processes followed at once, every transcript exact")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 16)))
