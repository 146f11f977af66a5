"""End-to-end conditions against the reference server, decoded by dory_wire.

The seed program, eviction (fail and skip), expiry, offsets beyond the output,
a slow consumer's gap frame, setup logs, synchronous truncation and a kill
mid-stream. Every expectation is computed from what the process wrote.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from dory_wire import (
    Cursor,
    Disconnected,
    Document,
    ExecResult,
    Exit,
    Exited,
    Identity,
    OffsetBeyondOutput,
    Output,
    OutputExpired,
    OutputGap,
    Reader,
    Skipped,
    iter_events,
)
from refserver import ROOT, RefServer, body_chunks, follow_output

NDJSON = {"Accept": "application/x-ndjson"}


def lines_command(count: int, stream: str = "out") -> str:
    """``count`` lines of exactly 100 bytes (line number padded to 99 digits), one write each."""
    redirect = " >&2" if stream == "err" else ""
    return f"i=1; while [ $i -le {count} ]; do printf '%099d\\n' $i{redirect}; i=$((i+1)); done"


def lines_bytes(first: int, last: int) -> bytes:
    return b"".join(b"%099d\n" % i for i in range(first, last + 1))


def raw_get(server: RefServer, suffix: str) -> tuple[int, Any]:
    status, _ctype, body = server.request("GET", suffix)
    return status, json.loads(body) if body.startswith(b"{") else body


# -- the seed program -----------------------------------------------------------


@pytest.mark.parametrize("drop", [None, "80"], ids=["clean", "drop-after-80-bytes"])
def test_seed_program(drop: str | None) -> None:
    args = ["--drop-after-bytes", drop] if drop else []
    with RefServer(*args) as server:
        env = {**os.environ, "DORY_URL": server.url, "CE_COMPUTER_ID": "seed"}
        run = subprocess.run(
            [sys.executable, str(ROOT / "python" / "examples" / "retained_output.py")],
            env=env,
            capture_output=True,
            timeout=120,
        )
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    assert run.stdout.decode() == "Retained bytes and replay identity verified\n"
    connections = int(re.search(rb"over (\d+) connection", run.stderr).group(1))  # type: ignore[union-attr]
    if drop:
        # Every response is cut after 80 bytes: the program had to resume.
        assert connections >= 2, run.stderr
    else:
        assert connections == 1, run.stderr


def test_keyed_replay_of_streaming_exec_is_a_json_identity(server: RefServer) -> None:
    key = str(uuid.uuid4())
    body = {"command": "printf once"}
    conn = server.connection()
    conn.request("POST", server.path("/exec"), json.dumps(body), {**NDJSON, "Idempotency-Key": key})
    resp = conn.getresponse()
    reader = Reader("exec")
    reader.open(resp.status, resp.getheader("content-type"), resp.getheader("ce-process-id"))
    events = iter_events(reader, body_chunks(resp))
    first = list(events)
    conn.close()
    assert events.end == Exited(0, False)
    proc_id = reader.proc_id
    assert proc_id is not None and resp.getheader("ce-process-id") == proc_id
    assert b"".join(e.data for e in first if isinstance(e, Output)) == b"once"

    status, ctype, data = server.request("POST", "/exec", body, {**NDJSON, "Idempotency-Key": key})
    replay = Reader("exec")
    replay.open(status, ctype)
    replay.feed(data)
    assert replay.finish() == ([Identity(proc_id, "exited")], Document())


# -- eviction -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_retention() -> Any:
    # 100-byte pipe reads and 100-byte writes: every chunk is exactly one line,
    # so the 1000 retained bytes are exactly the last 10 chunks.
    with RefServer("--retention-bytes", "1000", "--max-chunk-bytes", "100") as srv:
        yield srv


def test_eviction_fail_policy_reports_earliest_offsets(small_retention: RefServer) -> None:
    proc_id = small_retention.start_process(["sh", "-c", lines_command(50)])
    small_retention.wait_exited(proc_id)
    status, body = raw_get(small_retention, f"/processes/{proc_id}/output?stdout_offset=0&stderr_offset=0")
    assert status == 409 and body["error"] == "output_gap", body
    assert (body["earliest_stdout_offset"], body["earliest_stderr_offset"]) == (4000, 0)

    with pytest.raises(OutputGap) as caught:
        follow_output(small_retention, proc_id)
    assert caught.value.stream == "stdout"
    assert caught.value.consumed == Cursor(0, 0)
    assert caught.value.earliest == Cursor(4000, 0)

    # From inside the evicted range the answer is the same gap.
    with pytest.raises(OutputGap) as caught:
        follow_output(small_retention, proc_id, cursor=Cursor(1234, 0))
    assert caught.value.consumed == Cursor(1234, 0)
    assert caught.value.earliest == Cursor(4000, 0)


def test_eviction_skip_policy_exact_ranges_and_kept_bytes(small_retention: RefServer) -> None:
    proc_id = small_retention.start_process(["sh", "-c", lines_command(50)])
    small_retention.wait_exited(proc_id)
    got = follow_output(small_retention, proc_id, gap_policy="skip")
    skipped = [e for e in got.events if isinstance(e, Skipped)]
    assert skipped == [Skipped("stdout", 0, 4000)]
    assert got.events[0] == skipped[0], "the loss is reported before any kept byte"
    assert bytes(got.data["stdout"]) == lines_bytes(41, 50)
    assert bytes(got.data["stderr"]) == b""
    assert got.end == Exited(0, False)
    # The 409 ended the first response as a disconnect with the moved cursor.
    assert got.ends[0] == Disconnected(Cursor(4000, 0), "gap")


def test_eviction_skip_policy_both_streams(small_retention: RefServer) -> None:
    # Interleaved lines on both streams: which chunks survive depends on the
    # order the server read the two pipes, so the expectation comes from the
    # server's 409, and must be consistent with the writes.
    script = "i=1; while [ $i -le 30 ]; do printf '%099d\\n' $i; printf '%099d\\n' $i >&2; i=$((i+1)); done"
    proc_id = small_retention.start_process(["sh", "-c", script])
    small_retention.wait_exited(proc_id)
    status, body = raw_get(small_retention, f"/processes/{proc_id}/output?stdout_offset=0&stderr_offset=0")
    assert status == 409, body
    early_out, early_err = body["earliest_stdout_offset"], body["earliest_stderr_offset"]
    assert early_out % 100 == 0 and early_err % 100 == 0
    assert (3000 - early_out) + (3000 - early_err) <= 1000, "more than the retention limit was kept"
    assert (3000 - early_out) + (3000 - early_err) >= 900, "more than one chunk too many was evicted"

    got = follow_output(small_retention, proc_id, gap_policy="skip")
    expected_skips = [Skipped(s, 0, e) for s, e in (("stdout", early_out), ("stderr", early_err)) if e > 0]
    assert [e for e in got.events if isinstance(e, Skipped)] == expected_skips
    assert bytes(got.data["stdout"]) == lines_bytes(1, 30)[early_out:]
    assert bytes(got.data["stderr"]) == lines_bytes(1, 30)[early_err:]
    assert got.end == Exited(0, False)


# -- expiry, offsets ----------------------------------------------------------------


def test_expired_output_raises_output_expired() -> None:
    with RefServer("--expiry-ms", "300") as server:
        proc_id = server.start_process("printf abc")
        server.wait_exited(proc_id)
        deadline = time.monotonic() + 30  # hang guard
        while True:
            try:
                got = follow_output(server, proc_id, follow=False)
            except OutputExpired as error:
                assert error.code == "output_expired"
                break
            # Not expired yet: the read is complete and exact.
            assert bytes(got.data["stdout"]) == b"abc" and got.end == Exited(0, False)
            assert time.monotonic() < deadline, "output never expired"
            time.sleep(0.05)
        # The identity outlives the output; killing stays a harmless no-op.
        assert server.json("GET", f"/processes/{proc_id}") == {"proc_id": proc_id, "status": "exited"}
        assert server.kill(proc_id)["proc_id"] == proc_id


def test_offset_beyond_output(server: RefServer) -> None:
    proc_id = server.start_process("printf abc; printf de >&2")
    server.wait_exited(proc_id)
    for cursor in (Cursor(4, 0), Cursor(0, 3), Cursor(2**63, 2)):
        with pytest.raises(OffsetBeyondOutput):
            follow_output(server, proc_id, cursor=cursor)
    # At the very end is not beyond: nothing more, then exit.
    got = follow_output(server, proc_id, cursor=Cursor(3, 2))
    assert got.data == {"stdout": bytearray(), "stderr": bytearray()} and got.end == Exited(0, False)
    got = follow_output(server, proc_id, cursor=Cursor(1, 1))
    assert (bytes(got.data["stdout"]), bytes(got.data["stderr"])) == (b"bc", b"e")


# -- slow consumer --------------------------------------------------------------------


def test_slow_consumer_gets_a_gap_frame(tmp_path: Path) -> None:
    total = 32_000_000
    go = tmp_path / "go"
    with RefServer("--retention-bytes", "65536") as server:
        # The process waits for the follower to be connected before its flood.
        script = f"printf start; while [ ! -e '{go}' ]; do sleep 0.01; done; head -c {total - 5} /dev/zero | tr '\\0' a"
        proc_id = server.start_process(["sh", "-c", script], timeout=120)
        conn = server.connection()
        try:
            conn.request("GET", server.path(f"/processes/{proc_id}/output?stdout_offset=0&stderr_offset=0"))
            resp = conn.getresponse()
            assert resp.status == 200
            body = bytearray()
            while b"\n" not in body:
                chunk = resp.read1(1024)
                assert chunk, f"the body ended before its first frame: {bytes(body)!r}"
                body += chunk
            assert b'"data":"start"' in body
            # Stop reading until the process has produced everything: the
            # chunks this reader needs next are evicted meanwhile.
            go.touch()
            server.wait_exited(proc_id)
            body += b"".join(body_chunks(resp))
        finally:
            conn.close()
        frames = [json.loads(line) for line in bytes(body).split(b"\n")[:-1]]
        assert frames[-1]["type"] == "gap", frames[-1]
        assert not any(f["type"] == "exit" for f in frames)
        gap = frames[-1]
        consumed = max(f["offset"] for f in frames if f["type"] == "stdout")
        assert consumed < gap["earliest_stdout_offset"] <= total
        assert gap["earliest_stderr_offset"] == 0

        def decode(policy: str) -> tuple[list[Any], Any]:
            reader = Reader("process_output", gap_policy=policy)  # type: ignore[arg-type]
            reader.open(200, "application/x-ndjson")
            events = iter_events(reader, [bytes(body)])
            return list(events), events.end

        with pytest.raises(OutputGap) as caught:
            decode("fail")
        assert caught.value.consumed == Cursor(consumed, 0)
        assert caught.value.earliest == Cursor(gap["earliest_stdout_offset"], 0)

        events, end = decode("skip")
        assert events[-1] == Skipped("stdout", consumed, gap["earliest_stdout_offset"])
        assert sum(len(e.data) for e in events if isinstance(e, Output)) == consumed
        assert isinstance(end, Disconnected) and end.reason == "gap"
        assert end.cursor == Cursor(gap["earliest_stdout_offset"], 0)

        # Resuming from the moved cursor reads the rest, exactly.
        rest = follow_output(server, proc_id, cursor=end.cursor, gap_policy="skip")
        kept = bytes(rest.data["stdout"])
        skipped = [e for e in rest.events if isinstance(e, Skipped)]
        lost = sum(e.end - e.start for e in skipped)
        assert kept == b"a" * len(kept)
        assert end.cursor.stdout + lost + len(kept) == total
        assert rest.end == Exited(0, False)


# -- setup logs ------------------------------------------------------------------------


def test_setup_logs_merge_stderr_into_one_stream() -> None:
    setup = "echo out; echo err >&2; printf 'x\\377'; exit 3"
    expected = b"out\nerr\nx\xff"
    with RefServer("--setup-command", setup) as server:
        for offset, follow in ((0, "true"), (4, "true"), (0, "false"), (len(expected), "false")):
            conn = server.connection()
            try:
                conn.request("GET", server.path(f"/setup/logs?offset={offset}&follow={follow}"))
                resp = conn.getresponse()
                reader = Reader("setup_logs", cursor=Cursor(offset, 0))
                reader.open(resp.status, resp.getheader("content-type"))
                events = iter_events(reader, body_chunks(resp))
                outputs = [e for e in events if isinstance(e, Output)]
            finally:
                conn.close()
            assert {e.stream for e in outputs} <= {"stdout"}
            assert b"".join(e.data for e in outputs) == expected[offset:], (offset, follow)
            if follow == "true":
                assert events.end == Exited(3, False)
            assert reader.cursor == Cursor(len(expected), 0)
        status, ctype, data = server.request("GET", f"/setup/logs?offset={len(expected) + 1}")
        reader = Reader("setup_logs", cursor=Cursor(len(expected) + 1, 0))
        reader.open(status, ctype)
        reader.feed(data)
        with pytest.raises(OffsetBeyondOutput):
            reader.finish()


# -- synchronous exec ----------------------------------------------------------------


def sync_exec(server: RefServer, command: str) -> ExecResult:
    status, ctype, data = server.request("POST", "/exec", {"command": command}, {"Accept": "application/json"})
    reader = Reader("exec")
    reader.open(status, ctype)
    reader.feed(data)
    events, end = reader.finish()
    assert end == Document() and len(events) == 1 and isinstance(events[0], ExecResult), (events, end)
    return events[0]


def test_sync_exec_truncation_flags(server: RefServer) -> None:
    limit = 1024 * 1024
    over = sync_exec(server, f"head -c {limit + 1} /dev/zero | tr '\\0' a; printf short >&2")
    assert (over.stdout, over.stdout_truncated) == (b"a" * limit, True)
    assert (over.stderr, over.stderr_truncated) == (b"short", False)
    assert over.exit_code == 0 and not over.timed_out

    exact = sync_exec(server, f"head -c {limit} /dev/zero | tr '\\0' b >&2; exit 7")
    assert (exact.stderr, exact.stderr_truncated) == (b"b" * limit, False)
    assert (exact.stdout, exact.stdout_truncated) == (b"", False)
    assert exact.exit_code == 7

    # A cut inside a multi-byte character: the kept bytes are exact (base64 on the wire).
    cut = sync_exec(server, f"head -c {limit - 1} /dev/zero | tr '\\0' c; printf '\\303\\251\\303\\251'")
    assert cut.stdout == b"c" * (limit - 1) + b"\xc3" and cut.stdout_truncated


# -- kill ------------------------------------------------------------------------------


def test_kill_mid_stream_exec_ends_with_null_exit_code(server: RefServer) -> None:
    conn = server.connection()
    try:
        body = json.dumps({"command": ["sh", "-c", "printf ready; exec sleep 60"]})
        conn.request("POST", server.path("/exec"), body, NDJSON)
        resp = conn.getresponse()
        reader = Reader("exec")
        reader.open(resp.status, resp.getheader("content-type"), resp.getheader("ce-process-id"))
        events = iter_events(reader, body_chunks(resp))
        seen: list[Any] = []
        for event in events:
            seen.append(event)
            if isinstance(event, Output) and event.data == b"ready":
                assert reader.proc_id is not None
                identity = server.kill(reader.proc_id)
                assert identity["proc_id"] == reader.proc_id
    finally:
        conn.close()
    assert b"".join(e.data for e in seen if isinstance(e, Output)) == b"ready"
    assert seen[-1] == Exit(None, False)
    assert events.end == Exited(None, False)


def test_kill_mid_stream_process_output_follower(server: RefServer) -> None:
    proc_id = server.start_process(["sh", "-c", "printf ready >&2; exec sleep 60"])
    conn = server.connection()
    try:
        conn.request("GET", server.path(f"/processes/{proc_id}/output?stdout_offset=0&stderr_offset=0"))
        resp = conn.getresponse()
        reader = Reader("process_output")
        reader.open(resp.status, resp.getheader("content-type"))
        events = iter_events(reader, body_chunks(resp))
        for event in events:
            if isinstance(event, Output):
                assert (event.stream, event.data) == ("stderr", b"ready")
                server.kill(proc_id)
    finally:
        conn.close()
    assert events.end == Exited(None, False)
    assert reader.cursor == Cursor(0, 5)
