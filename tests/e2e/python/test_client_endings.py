"""Every way an output read can end badly, through dory_wire.client against the
reference server, and the exact type each one raises.

Cuts (mid-frame, between frames, before the first byte), a refused
connection (first and on reconnect), a stalled stream, a gap frame, 409,
410, 400, a keyed replay answered as a JSON identity, and a non-JSON 502
(from a stand-in proxy: the reference server only answers JSON errors).
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from dory_wire import Cursor, Disconnected, Reconnect
from dory_wire.client import (
    ApiError,
    Client,
    NoAnswer,
    OffsetBeyondOutput,
    OutputExpired,
    OutputGap,
    StreamDisconnected,
)
from refserver import RefServer

HELLO = b"hello\x00\xff"
ONLY_STDOUT = ["sh", "-c", "printf 'hello\\000\\377'"]


def first_frame_length(server: RefServer, proc_id: str) -> int:
    """Bytes of the first line of the process's output body (read raw)."""
    status, _ctype, body = server.request("GET", f"/processes/{proc_id}/output?follow=false")
    assert status == 200, body
    return body.index(b"\n") + 1


def exited_process(client: Client, server: RefServer, command: list[str] | str) -> str:
    proc_id = client.computers.get(server.computer).processes.start(command, timeout_seconds=30).proc_id
    server.wait_exited(proc_id)
    return proc_id


# -- cuts ----------------------------------------------------------------------------


def test_cuts_mid_frame_between_frames_and_before_the_first_byte() -> None:
    # The frame length comes from a clean server running the same command.
    with RefServer() as clean, Client(clean.url) as client:
        frame_length = first_frame_length(clean, exited_process(client, clean, ONLY_STDOUT))
    cases = {
        "before the first byte": (0, Cursor(0, 0)),
        "mid-frame": (frame_length // 2, Cursor(0, 0)),
        "between frames": (frame_length, Cursor(len(HELLO), 0)),
    }
    for name, (budget, cursor) in cases.items():
        with RefServer("--drop-after-bytes", str(budget)) as server, Client(server.url) as client:
            proc_id = exited_process(client, server, ONLY_STDOUT)
            process = client.computers.get(server.computer).processes.get(proc_id)
            stream = process.iter_output()
            received = bytearray()
            with pytest.raises(StreamDisconnected) as info:
                for frame in stream:
                    received += frame.bytes
            err = info.value
            assert (err.reason, err.cursor) == ("end_of_body", cursor), name
            assert isinstance(err.__cause__, httpx.RemoteProtocolError), (name, err.__cause__)
            assert bytes(received) == HELLO[: cursor.stdout], name
            assert isinstance(stream.end, Disconnected), name
            # Where each response gets a frame through, the one call gets everything.
            if budget >= frame_length:
                transcript = process.read_output(backoff_seconds=0.01)
                assert (transcript.bytes("stdout"), transcript.exit) == (HELLO, (0, False)), name


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_refused_connection_first_and_on_reconnect() -> None:
    with Client(f"http://127.0.0.1:{free_port()}") as client:
        computer = client.computers.get("c1")
        # A get may be sent again (the core's one-answer rule): then NoAnswer.
        with pytest.raises(NoAnswer) as lost:
            computer.processes.get("p_1")
        # Refused every time: it never reached the service (the core's rule).
        assert (lost.value.reason, lost.value.attempts) == ("not_connected", 6)
        assert lost.value.reached is False
        assert isinstance(lost.value.__cause__, httpx.ConnectError)
    with RefServer("--drop-after-bytes", "20") as server:
        url = server.url
        with Client(url) as client:
            process = client.computers.get(server.computer).processes.get(exited_process(client, server, ONLY_STDOUT))
            with pytest.raises(StreamDisconnected) as cut:
                list(process.iter_output())
            assert cut.value.reason == "end_of_body"
            server.stop()
            # Reconnecting to a server that is gone: the connection is refused.
            with pytest.raises(StreamDisconnected) as refused:
                list(process.iter_output(cut.value.stdout_offset, cut.value.stderr_offset))
            assert (refused.value.reason, refused.value.cursor) == ("not_connected", cut.value.cursor)
            assert isinstance(refused.value.__cause__, httpx.ConnectError)
            started = time.monotonic()
            seen: list[Reconnect] = []
            with pytest.raises(StreamDisconnected) as spent:
                process.read_output(retries=2, backoff_seconds=0.1, jitter=False, on_reconnect=seen.append)
            assert spent.value.reason == "not_connected"
            assert isinstance(spent.value.__cause__, httpx.ConnectError)
            # The core's waits, jitter off: 0.1 s then 0.2 s; the hook saw both.
            assert [(r.attempt, r.reason, r.delay_seconds) for r in seen] == [
                (1, "not_connected", 0.1),
                (2, "not_connected", 0.2),
            ]
            assert url in seen[0].detail  # where no answer came from
            assert time.monotonic() - started >= 0.3


def test_a_silent_stream_is_stalled_after_the_liveness_timeout() -> None:
    with RefServer("--heartbeat-ms", "60000") as server, Client(server.url) as client:
        processes = client.computers.get(server.computer).processes
        started = processes.start("printf abc; sleep 30", timeout_seconds=60)
        try:
            process = processes.get(started.proc_id)
            stream = process.iter_output(liveness_timeout_seconds=0.5)
            received = bytearray()
            begin = time.monotonic()
            with pytest.raises(StreamDisconnected) as info:
                for frame in stream:
                    received += frame.bytes
            waited = time.monotonic() - begin
            assert (info.value.reason, info.value.cursor) == ("stalled", Cursor(3, 0))
            assert bytes(received) == b"abc"
            assert 0.5 <= waited < 10, waited
            assert stream.end == Disconnected(Cursor(3, 0), "stalled")
        finally:
            processes.kill(started.proc_id)


def test_heartbeats_keep_a_silent_stream_alive() -> None:
    with RefServer("--heartbeat-ms", "100") as server, Client(server.url) as client:
        processes = client.computers.get(server.computer).processes
        started = processes.start("sleep 1.5; printf done", timeout_seconds=30)
        frames = list(processes.get(started.proc_id).iter_output(liveness_timeout_seconds=0.5))
        assert frames[-2].bytes == b"done" and frames[-1].type == "exit"
        assert sum(f.type == "heartbeat" for f in frames) >= 5


# -- loss ----------------------------------------------------------------------------


def test_a_slow_consumer_gets_a_gap_frame(tmp_path: Path) -> None:
    total = 32_000_000
    go = tmp_path / "go"
    script = f"printf start; while [ ! -e '{go}' ]; do sleep 0.01; done; head -c {total - 5} /dev/zero | tr '\\0' a"
    with RefServer("--retention-bytes", "65536") as server, Client(server.url) as client:
        processes = client.computers.get(server.computer).processes
        for policy in ("fail", "skip"):
            go.unlink(missing_ok=True)
            process = processes.get(processes.start(["sh", "-c", script], timeout_seconds=120).proc_id)
            with process.iter_output(gap_policy=policy) as stream:
                assert next(stream).bytes == b"start"
                # Stop reading while the process floods: what this reader needs is evicted.
                go.touch()
                server.wait_exited(process.proc_id)
                if policy == "fail":
                    with pytest.raises(OutputGap) as info:
                        list(stream)
                    assert info.value.consumed.stdout < info.value.earliest.stdout <= total
                    continue
                frames = []
                with pytest.raises(StreamDisconnected) as gone:
                    frames.extend(stream)
            skipped = [f for f in frames if f.type == "skipped"]
            assert len(skipped) == 1 and skipped[0].end == gone.value.stdout_offset
            assert gone.value.reason == "gap"
            # Reading on from the moved cursor ends exactly at the total.
            rest = process.read_output(gone.value.stdout_offset, 0, gap_policy="skip")
            lost = sum(end - start for start, end in rest.skipped("stdout"))
            kept = rest.bytes("stdout")
            assert kept == b"a" * len(kept)
            assert gone.value.stdout_offset + lost + len(kept) == total
            assert rest.exit == (0, False)


def test_409_410_400_are_typed_and_never_retried() -> None:
    lines = "i=1; while [ $i -le 50 ]; do printf '%099d\\n' $i; i=$((i+1)); done"
    args = ["--retention-bytes", "1000", "--max-chunk-bytes", "100", "--expiry-ms", "3000"]
    with RefServer(*args) as server, Client(server.url) as client:
        processes = client.computers.get(server.computer).processes
        evicted = processes.get(exited_process(client, server, ["sh", "-c", lines]))
        with pytest.raises(OutputGap) as gap:
            list(evicted.iter_output())
        assert (gap.value.consumed, gap.value.earliest) == (Cursor(0, 0), Cursor(4000, 0))
        with pytest.raises(OutputGap):
            evicted.read_output(retries=5)
        # Skipping is explicit and reports the exact lost range.
        transcript = evicted.read_output(gap_policy="skip")
        assert transcript.skipped("stdout") == [(0, 4000)]
        assert transcript.bytes("stdout") == b"".join(b"%099d\n" % i for i in range(41, 51))
        with pytest.raises(OffsetBeyondOutput):
            list(evicted.iter_output(stdout_offset=5001))
        with pytest.raises(OffsetBeyondOutput):
            evicted.read_output(0, 1)
        deadline = time.monotonic() + 30  # hang guard
        while True:
            try:
                list(evicted.iter_output(stdout_offset=4000))
            except OutputExpired:
                break
            assert time.monotonic() < deadline, "the output never expired"
            time.sleep(0.1)
        with pytest.raises(OutputExpired):
            evicted.read_output(4000, 0, retries=5)
        with pytest.raises(ApiError) as unknown:
            processes.get("p_unknown")
        assert (unknown.value.status, unknown.value.api_code) == (404, "not_found")


# -- answers that are not a stream ------------------------------------------------------


def test_a_keyed_replay_of_a_streaming_exec_is_a_json_identity(server: RefServer) -> None:
    with Client(server.url) as client:
        computer = client.computers.get(server.computer)
        first = list(computer.exec_stream(ONLY_STDOUT, idempotency_key="replayed"))
        assert first[0].type == "started"
        proc_id = first[0].proc_id
        replay = computer.exec_stream(ONLY_STDOUT, idempotency_key="replayed")
        frames = list(replay)
        # The identity, then (the core's follower) the first run's retained
        # output: nothing ran again.
        assert [(f.type, f.proc_id) for f in frames[:1]] == [("identity", proc_id)]
        assert b"".join(f.bytes for f in frames) == HELLO
        assert (frames[-1].type, frames[-1].exit_code) == ("exit", 0)
        assert replay.proc_id == proc_id
        # The same key on a background start: the same process again.
        assert computer.processes.start(["false"], idempotency_key="replayed").proc_id == proc_id


class _BadGateway(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<html><body>502 Bad Gateway</body></html>"
        self.send_response(502)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def bad_gateway() -> Iterator[str]:
    proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _BadGateway)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}"
    finally:
        proxy.shutdown()
        proxy.server_close()


def test_a_non_json_502_is_an_api_error(bad_gateway: str) -> None:
    with Client(bad_gateway) as client:
        computer = client.computers.get("c1")
        with pytest.raises(ApiError) as info:
            computer.processes.start(["true"])
        assert (info.value.status, info.value.api_code) == (502, None)
        with pytest.raises(ApiError) as info:
            list(computer.setup.iter_logs())
        assert (info.value.status, info.value.api_code) == (502, None)
        with pytest.raises(ApiError):
            computer.setup.read_logs(retries=3)
        assert json.dumps(info.value.server_message)  # a description of the body
