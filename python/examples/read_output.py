#!/usr/bin/env python3
"""Run a command in the background and print its whole output: one call.

``process.read_output()`` follows the retained output until the exit and,
when a connection drops, reconnects from the consumed byte offsets (the core
reader trims what the server sends again), so the transcript is exact however
often the network breaks. It never starts the command again. Lost output
raises ``OutputGap``, unless you opt in to skipping it, as here: then the
exact lost ranges are reported.

usage: read_output.py [COMMAND ...]
       (default: lines over half a second on stdout, bytes that are not UTF-8
       on stderr)

Environment: DORY_URL (the server's base URL), CE_COMPUTER_ID (default "c1").
Prints the output and the exit status; exits with the command's exit code.
"""

from __future__ import annotations

import os
import sys
import uuid

from dory_wire.client import Client

DEFAULT = "for i in 1 2 3 4 5; do echo line $i; sleep 0.1; done; printf 'raw \\000\\377\\n' >&2"


def main(argv: list[str]) -> int:
    command: str | list[str] = argv if argv else DEFAULT
    with Client() as client:
        computer = client.computers.get(os.environ.get("CE_COMPUTER_ID", "c1"))
        # The key makes the start safe to send again if its answer is lost.
        started = computer.processes.start(
            command, timeout_seconds=60, idempotency_key=str(uuid.uuid4())
        )
        process = computer.processes.get(started.proc_id)
        transcript = process.read_output(gap_policy="skip")
    sys.stdout.write(transcript.text("stdout"))
    print(f"stderr bytes: {transcript.bytes('stderr')!r}")
    for stream in ("stdout", "stderr"):
        for start, end in transcript.skipped(stream):
            print(f"{stream}: bytes {start}..{end} were lost", file=sys.stderr)
    assert transcript.exit is not None  # read_output follows until the exit
    exit_code, timed_out = transcript.exit
    print(f"{started.proc_id}: exit code {exit_code}, timed out {timed_out}")
    return 1 if exit_code is None else exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
