#!/usr/bin/env python3
"""A complete retained-output program on dory_wire.client.

Starts one bounded process with a fresh idempotency key, replays the start
to confirm it names the same process, reads the retained output frame by
frame and saves the consumed offsets after every frame; when a connection
drops it reopens the output from those offsets (a bounded number of times)
and never starts the command again. A gap or expired output is raised, not
papered over. The bytes (NUL and a non-UTF-8 byte included) are checked
exactly, and the process is killed in cleanup.

Environment:
  DORY_URL              base URL of the server, e.g. the one
                        `dory-refserver --port 0` prints
  CE_COMPUTER_ID        the computer to use (default "c1"; the reference
                        server serves any id unless started with --computer-id)
  DORY_MAX_CONNECTIONS  how many output connections to open at most (default 5)

Prints "Retained bytes and replay identity verified" and exits 0 on success;
how many connections the output took goes to stderr.
"""

from __future__ import annotations

import base64
import os
import sys
import uuid

from dory_wire.client import (
    Client,
    Frame,
    OutputExpired,
    OutputGap,
    Process,
    StreamDisconnected,
)

COMPUTER = os.environ.get("CE_COMPUTER_ID", "c1")
MAX_CONNECTIONS = int(os.environ.get("DORY_MAX_CONNECTIONS", "5"))

COMMAND = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"]
EXPECTED = {"stdout": b"hello\x00\xff", "stderr": b"notice"}


def frame_bytes(frame: Frame) -> bytes:
    """A frame's bytes from its wire fields (``frame.bytes`` holds them too)."""
    if frame.encoding == "base64":
        return base64.b64decode(frame.data, validate=True)
    return frame.data.encode()


def read_all(process: Process) -> tuple[dict[str, bytes], int]:
    """The process's whole output, and how many connections it took."""
    output = {"stdout": bytearray(), "stderr": bytearray()}
    offsets = {"stdout_offset": 0, "stderr_offset": 0}
    for connection in range(1, MAX_CONNECTIONS + 1):
        with process.iter_output(**offsets) as stream:
            try:
                for frame in stream:
                    if frame.type in output:
                        output[frame.type] += frame_bytes(frame)
                    # Save after every frame: this is where a reconnect resumes.
                    offsets = {
                        "stdout_offset": stream.stdout_offset,
                        "stderr_offset": stream.stderr_offset,
                    }
                    if frame.type == "exit":
                        if frame.exit_code != 0 or frame.timed_out:
                            raise RuntimeError(
                                f"guest process failed: exit code {frame.exit_code}, "
                                f"timed out {frame.timed_out}"
                            )
                        return {k: bytes(v) for k, v in output.items()}, connection
            except StreamDisconnected as gone:
                # The output is still retained: reopen it from the consumed offsets.
                offsets = {"stdout_offset": gone.stdout_offset, "stderr_offset": gone.stderr_offset}
            except (OutputGap, OutputExpired):
                # Lost bytes need a decision of the caller; never restart the command.
                raise
    raise RuntimeError(f"output still incomplete after {MAX_CONNECTIONS} connections ({offsets})")


def main() -> int:
    key = str(uuid.uuid4())
    with Client() as client:
        computer = client.computers.get(COMPUTER)
        started = computer.processes.start(COMMAND, timeout_seconds=30, idempotency_key=key)
        try:
            # Replaying the same start key identifies the same process, not new work.
            replay = computer.processes.start(COMMAND, timeout_seconds=30, idempotency_key=key)
            if replay.proc_id != started.proc_id:
                raise RuntimeError(
                    f"process replay changed identity: {started.proc_id} then {replay.proc_id}"
                )
            output, connections = read_all(computer.processes.get(started.proc_id))
            if output != EXPECTED:
                raise RuntimeError(f"output was incomplete or different: {output!r}")
            print(
                f"retained output of {started.proc_id} read over {connections} connection(s)",
                file=sys.stderr,
            )
            print("Retained bytes and replay identity verified")
        finally:
            computer.processes.kill(started.proc_id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
