#!/usr/bin/env python3
"""The seed's "complete retained-output program", on dory_wire and urllib.

Starts one bounded process with a fresh idempotency key, replays the start to
confirm the identity, follows the retained output from per-stream byte offsets
(reconnecting from the consumed offsets when the connection drops, a bounded
number of times), fails on a gap or expired output instead of restarting the
command, verifies the exact bytes, and kills the process in cleanup.

Environment:
  DORY_URL            base URL of the server (default http://127.0.0.1:8080),
                      e.g. the one `dory-refserver --port 0` prints
  CE_COMPUTER_ID      the computer to use (default "c1"; the reference server
                      serves any id unless started with --computer-id)
  DORY_MAX_CONNECTIONS  how many output connections to open at most (default 5)

Prints "Retained bytes and replay identity verified" and exits 0 on success;
how many connections the output took goes to stderr.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

from dory_wire import (
    Cursor,
    Disconnected,
    Exited,
    Identity,
    Output,
    OutputExpired,
    OutputGap,
    Reader,
    iter_events,
)

BASE = os.environ.get("DORY_URL", "http://127.0.0.1:8080").rstrip("/")
COMPUTER = os.environ.get("CE_COMPUTER_ID", "c1")
MAX_CONNECTIONS = int(os.environ.get("DORY_MAX_CONNECTIONS", "5"))
# Socket timeout: far above the 15 s heartbeat, so a silent connection is dead.
READ_TIMEOUT = 60.0

COMMAND = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"]
EXPECTED = {"stdout": b"hello\x00\xff", "stderr": b"notice"}


def send(method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    """Opens a request; error answers are returned as responses too, so the
    reader decodes them (409 -> OutputGap, 410 -> OutputExpired, ...)."""
    data = None if body is None else json.dumps(body).encode()
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    request = urllib.request.Request(
        f"{BASE}/computers/{COMPUTER}{path}", data=data, method=method, headers=all_headers
    )
    try:
        return urllib.request.urlopen(request, timeout=READ_TIMEOUT)
    except urllib.error.HTTPError as error:
        return error


def identity(
    method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> Identity:
    """A JSON identity answer, checked by the reader (Content-Type, shape, errors)."""
    with send(method, path, body, headers) as resp:
        reader = Reader("document")
        reader.open(
            resp.status, resp.headers.get("Content-Type"), resp.headers.get("CE-Process-Id")
        )
        reader.feed(resp.read())
        events, _ = reader.finish()
    if len(events) != 1 or not isinstance(events[0], Identity):
        raise RuntimeError(f"{method} {path}: expected a process identity, got {events!r}")
    return events[0]


def body_chunks(resp: http.client.HTTPResponse) -> Iterator[bytes]:
    """The body as it arrives. A dropped connection just ends it: the reader
    then reports Disconnected with the offsets to resume from."""
    while True:
        try:
            data = resp.read1(1 << 16)
        except (http.client.IncompleteRead, ConnectionError, TimeoutError):
            return
        if not data:
            return
        yield data


def follow(proc_id: str) -> tuple[dict[str, bytearray], int]:
    """The process's complete output, and how many connections it took."""
    cursor = Cursor(stdout=0, stderr=0)
    output = {"stdout": bytearray(), "stderr": bytearray()}
    for connection in range(1, MAX_CONNECTIONS + 1):
        # The default gap policy is "fail": missing bytes raise OutputGap.
        reader = Reader("process_output", cursor=cursor)
        query = urllib.parse.urlencode(
            {"stdout_offset": cursor.stdout, "stderr_offset": cursor.stderr, "follow": "true"}
        )
        with send("GET", f"/processes/{proc_id}/output?{query}") as resp:
            reader.open(
                resp.status, resp.headers.get("Content-Type"), resp.headers.get("CE-Process-Id")
            )
            events = iter_events(reader, body_chunks(resp))
            try:
                for event in events:
                    if isinstance(event, Output):
                        output[event.stream].extend(event.data)
            except (OutputGap, OutputExpired):
                # Missing bytes require a caller decision; never start again.
                raise
        end = events.end
        if isinstance(end, Exited):
            if end.exit_code != 0 or end.timed_out:
                raise RuntimeError(
                    f"guest process failed: exit code {end.exit_code}, timed out {end.timed_out}"
                )
            return output, connection
        if not isinstance(end, Disconnected):
            raise RuntimeError(f"unexpected end of the output stream: {end!r}")
        # Reconnect to the retained output from the consumed offsets.
        cursor = end.cursor
    raise RuntimeError(
        f"output still incomplete after {MAX_CONNECTIONS} connections (at {cursor.to_dict()})"
    )


def main() -> int:
    key = str(uuid.uuid4())
    body = {"command": COMMAND, "timeout_seconds": 30}
    started = identity("POST", "/processes", body, {"Idempotency-Key": key})
    try:
        # Replaying the same start key identifies the same process, not new work.
        replay = identity("POST", "/processes", body, {"Idempotency-Key": key})
        if replay.proc_id != started.proc_id:
            raise RuntimeError(
                f"process replay changed identity: {started.proc_id} then {replay.proc_id}"
            )
        output, connections = follow(started.proc_id)
        got = {name: bytes(data) for name, data in output.items()}
        if got != EXPECTED:
            raise RuntimeError(
                f"output was incomplete or different: {got!r}, expected {EXPECTED!r}"
            )
        print(
            f"retained output of {started.proc_id} read over {connections} connection(s)",
            file=sys.stderr,
        )
        print("Retained bytes and replay identity verified")
    finally:
        identity("POST", f"/processes/{started.proc_id}/kill")
    return 0


if __name__ == "__main__":
    sys.exit(main())
