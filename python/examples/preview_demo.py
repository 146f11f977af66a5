#!/usr/bin/env python3
"""Bounded preview of a big command output, with the full output spilled to a file.

Runs a command that prints 200,000 log lines on the server (streaming exec,
decoded by Reader), feeds stdout to a StreamingBounder (2000 lines /
50 KiB) while writing every byte to a spill file, and prints the preview's
head, notice and tail. Then it runs the notice's own `sed -n 'F,Lp' <path>`
command and checks that it gives back exactly the hidden lines.

Environment:
  DORY_URL        base URL of the server (default http://127.0.0.1:8080)
  CE_COMPUTER_ID  the computer to use (default "c1")
  DORY_SPILL_DIR  where to write the full output (default: a new temporary directory)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from dory_wire import (
    Cursor,
    Disconnected,
    Exited,
    Output,
    Reader,
    StreamingBounder,
    iter_events,
    new_spill_id,
)

BASE = os.environ.get("DORY_URL", "http://127.0.0.1:8080").rstrip("/")
COMPUTER = os.environ.get("CE_COMPUTER_ID", "c1")
LINES = 200_000
MAX_LINES = 2000
MAX_BYTES = 50 * 1024
# About 7.4 MB: below the 10 MB retention, so a reconnect can always resume.
COMMAND = (
    f"awk 'BEGIN {{ for (i = 1; i <= {LINES}; i++) "
    'printf "line %06d: GET /api/items/%d 200 %dms\\n", i, i % 977, (i * 7) % 250 }\''
)
SHOWN = 3  # lines of the head and of the tail printed here


def send(method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"{BASE}/computers/{COMPUTER}{path}",
        data=data,
        method=method,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        return urllib.request.urlopen(request, timeout=60)
    except urllib.error.HTTPError as error:
        return error


def chunks(resp: Any) -> Any:
    while True:
        try:
            data = resp.read1(1 << 16)
        except (ConnectionError, TimeoutError, OSError):
            return
        if not data:
            return
        yield data


def run_streaming(command: str, sink: Any) -> int | None:
    """Runs ``command`` with a streaming exec; passes stdout bytes to ``sink``.
    Resumes from the consumed offsets on the process output if the stream drops."""
    reader = Reader("exec")
    resp = send(
        "POST",
        "/exec",
        {"command": command, "timeout_seconds": 120},
        {"Accept": "application/x-ndjson"},
    )
    for _attempt in range(10):
        with resp:
            reader.open(
                resp.status, resp.headers.get("Content-Type"), resp.headers.get("CE-Process-Id")
            )
            events = iter_events(reader, chunks(resp))
            for event in events:
                if isinstance(event, Output) and event.stream == "stdout":
                    sink(event.data)
        end = events.end
        if isinstance(end, Exited):
            return end.exit_code
        if not isinstance(end, Disconnected) or reader.proc_id is None:
            raise RuntimeError(f"unexpected end: {end!r}")
        cursor: Cursor = end.cursor
        proc_id = reader.proc_id
        reader = Reader("process_output", cursor=cursor)
        query = urllib.parse.urlencode(
            {"stdout_offset": cursor.stdout, "stderr_offset": cursor.stderr}
        )
        resp = send("GET", f"/processes/{proc_id}/output?{query}")
    raise RuntimeError("too many reconnects")


def main() -> int:
    spill_dir = Path(os.environ.get("DORY_SPILL_DIR") or tempfile.mkdtemp(prefix="dory-preview-"))
    spill_dir.mkdir(parents=True, exist_ok=True)
    spill_id = new_spill_id()
    spill_path = spill_dir / f"{spill_id}.txt"
    bounder = StreamingBounder(MAX_LINES, MAX_BYTES, spill_id=spill_id)

    print(f"$ {COMMAND}")
    with spill_path.open("wb") as spill:

        def sink(data: bytes) -> None:
            spill.write(data)  # the full output, as it arrives
            bounder.push(data)  # the bounder keeps only about 4 x max_bytes

        exit_code = run_streaming(COMMAND, sink)
    if exit_code != 0:
        raise RuntimeError(f"the command failed: exit code {exit_code}")
    preview = bounder.finish(spill=lambda _spill_id: str(spill_path))

    text = preview.text
    lines = text.split("\n")
    notice_index = next(i for i, line in enumerate(lines) if line.startswith("[... "))
    head, notice, tail = lines[:notice_index], lines[notice_index], lines[notice_index + 1 :]
    if tail and tail[-1] == "":
        tail = tail[:-1]
    print(
        f"output: {preview.total_lines} lines, {preview.total_bytes} bytes; "
        f"preview: {len(text.splitlines())} lines, {len(text.encode())} bytes "
        f"(limits {MAX_LINES} lines / {MAX_BYTES} bytes)"
    )
    print(f"--- preview head ({len(head)} lines, first {SHOWN}) ---")
    print("\n".join(head[:SHOWN]))
    print(f"--- notice ---\n{notice}")
    print(f"--- preview tail ({len(tail)} lines, last {SHOWN}) ---")
    print("\n".join(tail[-SHOWN:]))

    # The notice's own sed command recovers the hidden lines from the spill file.
    match = re.search(r"; (sed -n '(\d+),(\d+)p') (\S+) ", notice)
    if not match or match.group(4) != str(spill_path):
        raise RuntimeError(f"the notice does not name the spill file and a sed command: {notice}")
    first, last = int(match.group(2)), int(match.group(3))
    argv = ["sed", "-n", f"{first},{last}p", str(spill_path)]
    print(f"--- recovering the hidden lines: {match.group(1)} {spill_path} ---")
    recovered = subprocess.run(argv, check=True, capture_output=True).stdout.decode().splitlines()
    full = spill_path.read_bytes().decode().splitlines()
    print(f"recovered {len(recovered)} lines: first {recovered[0]!r}, last {recovered[-1]!r}")
    accounted = preview.head_bytes + preview.omitted_bytes + preview.tail_bytes
    checks = {
        "the preview is within both limits": preview.truncated
        and len(text.encode()) <= MAX_BYTES
        and len(text.splitlines()) <= MAX_LINES,
        "head + omitted + tail bytes == total bytes": accounted == preview.total_bytes,
        "count == omitted lines in the notice": len(recovered)
        == preview.omitted_lines
        == last - first + 1,
        "head + hidden + tail == every line": len(head) + len(recovered) + len(tail)
        == LINES
        == len(full),
        "the head ends just before the first hidden line": head[-1] == full[first - 2],
        "the tail starts just after the last hidden line": tail[0] == full[last],
        "the hidden lines are the full output's lines F..L": recovered == full[first - 1 : last],
        "nothing shown is hidden": head == full[: first - 1] and tail == full[last:],
    }
    for name, ok in checks.items():
        print(f"  {'ok ' if ok else 'FAIL'} {name}")
    if not all(checks.values()):
        return 1
    print("Preview bounded and the hidden lines recovered from the spill file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
