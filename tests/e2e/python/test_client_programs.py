"""Retained-output programs on dory_wire.client against the reference server.

Each program starts one bounded process with a fresh idempotency key, checks
that replaying the start names the same process, reads its output frame by
frame from the consumed offsets (reconnecting after each cut, never starting
again), checks the bytes (NUL and a non-UTF-8 byte included) and kills the
process in cleanup. The same in asyncio, and the other calls: streaming exec
resumed through the retained output, synchronous exec, setup logs, kill.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from dory_wire import Reconnect
from dory_wire.client import AsyncClient, Client, ExecResult, Frame, Identity, StreamDisconnected
from refserver import RefServer, wire_bytes

COMMAND = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"]
EXPECTED = {"stdout": b"hello\x00\xff", "stderr": b"notice"}
MAX_CONNECTIONS = 50  # hang guard

DROPS = {
    "clean": [],
    "drop-after-80-bytes": ["--drop-after-bytes", "80"],
    "seeded-drops": ["--drop-seed", "11", "--drop-max-bytes", "120"],
}


class Received:
    def __init__(self) -> None:
        self.data = {"stdout": bytearray(), "stderr": bytearray()}
        self.exit: Frame | None = None
        self.connections = 0

    def take(self, frame: Frame) -> None:
        if frame.type in ("stdout", "stderr"):
            assert wire_bytes(frame) == frame.bytes, frame
            self.data[frame.type] += frame.bytes
        elif frame.type == "exit":
            self.exit = frame

    def check(self) -> None:
        assert self.exit is not None
        assert (self.exit.exit_code, self.exit.timed_out) == (0, False)
        assert {k: bytes(v) for k, v in self.data.items()} == EXPECTED


def program(url: str) -> Received:
    key = str(uuid.uuid4())
    got = Received()
    with Client(url) as client:
        computer = client.computers.get("programs")
        first = computer.processes.start(COMMAND, timeout_seconds=30, idempotency_key=key)
        try:
            again = computer.processes.start(COMMAND, timeout_seconds=30, idempotency_key=key)
            assert again.proc_id == first.proc_id, "the replay started new work"
            proc = computer.processes.get(first.proc_id)
            at = (0, 0)
            while got.exit is None:
                got.connections += 1
                assert got.connections <= MAX_CONNECTIONS
                with proc.iter_output(*at) as stream:
                    try:
                        for frame in stream:
                            got.take(frame)
                            at = (stream.stdout_offset, stream.stderr_offset)
                    except StreamDisconnected as gone:
                        assert (gone.stdout_offset, gone.stderr_offset) == at
        finally:
            assert computer.processes.kill(first.proc_id).proc_id == first.proc_id
    return got


async def aprogram(url: str) -> Received:
    key = str(uuid.uuid4())
    got = Received()
    async with AsyncClient(url) as client:
        computer = client.computers.get("programs")
        first = await computer.processes.start(COMMAND, timeout_seconds=30, idempotency_key=key)
        try:
            again = await computer.processes.start(COMMAND, timeout_seconds=30, idempotency_key=key)
            assert again.proc_id == first.proc_id, "the replay started new work"
            proc = await computer.processes.get(first.proc_id)
            at = (0, 0)
            while got.exit is None:
                got.connections += 1
                assert got.connections <= MAX_CONNECTIONS
                async with proc.iter_output(*at) as stream:
                    try:
                        async for frame in stream:
                            got.take(frame)
                            at = (stream.stdout_offset, stream.stderr_offset)
                    except StreamDisconnected as gone:
                        assert (gone.stdout_offset, gone.stderr_offset) == at
        finally:
            killed = await computer.processes.kill(first.proc_id)
            assert killed.proc_id == first.proc_id
    return got


@pytest.mark.parametrize("drop", list(DROPS), ids=list(DROPS))
def test_retained_output_program(drop: str) -> None:
    with RefServer(*DROPS[drop]) as server:
        got = program(server.url)
        got.check()
        if drop == "clean":
            assert got.connections == 1
        else:
            assert got.connections >= 2, "the fault injection cut nothing"


@pytest.mark.parametrize("drop", list(DROPS), ids=list(DROPS))
def test_retained_output_program_async(drop: str) -> None:
    with RefServer(*DROPS[drop]) as server:
        got = asyncio.run(aprogram(server.url))
        got.check()
        assert got.connections == 1 if drop == "clean" else got.connections >= 2


def test_read_output_in_one_call_under_drops() -> None:
    with RefServer("--drop-after-bytes", "80") as server, Client(server.url) as client:
        computer = client.computers.get("programs")
        started = computer.processes.start(COMMAND, timeout_seconds=30)
        transcript = computer.processes.get(started.proc_id).read_output(backoff_seconds=0.01)
        assert transcript.exit == (0, False)
        assert {s: transcript.bytes(s) for s in ("stdout", "stderr")} == EXPECTED
        assert transcript.is_complete("stdout") and transcript.is_complete("stderr")


def test_exec_stream_cut_goes_on_from_the_retained_output(tmp_path: Path) -> None:
    count = 3000
    expected = b"".join(b"%d\n" % i for i in range(1, count + 1))
    runs = tmp_path / "runs"
    command = ["sh", "-c", f"echo run >> '{runs}'; seq {count}"]
    # 100-byte chunks: every response carries a few frames before its cut.
    args = ["--drop-after-bytes", "400", "--max-chunk-bytes", "100"]
    with RefServer(*args) as server, Client(server.url) as client:
        computer = client.computers.get("programs")
        seen: list[Reconnect] = []
        stream = computer.exec_stream(command, timeout_seconds=30, backoff_seconds=0.01, on_reconnect=seen.append)
        frames = list(stream)
        # The core's follower: after `started`, every cut goes on from the
        # process's retained output at the consumed offsets.
        assert [f.type for f in frames if f.type in ("started", "exit")] == ["started", "exit"]
        assert b"".join(f.bytes for f in frames if f.type == "stdout") == expected
        assert frames[-1].exit_code == 0
        assert len(seen) >= 2, "the fault injection cut nothing"
        assert {(r.reason, r.proc_id) for r in seen} == {("end_of_body", stream.proc_id)}
        # Never exec again: the command ran once.
        assert runs.read_text() == "run\n"


def test_synchronous_exec_bytes_and_replay() -> None:
    with RefServer() as server, Client(server.url) as client:
        computer = client.computers.get("programs")
        result = computer.exec(COMMAND, timeout_seconds=30, idempotency_key="sync-key")
        assert isinstance(result, ExecResult)
        assert (result.stdout, result.stderr) == (EXPECTED["stdout"], EXPECTED["stderr"])
        assert (result.exit_code, result.timed_out) == (0, False)
        assert not result.stdout_truncated and not result.stderr_truncated
        # The key was used: the replay answers the identity and runs nothing.
        replay = computer.exec(COMMAND, idempotency_key="sync-key")
        assert replay == Identity(result.proc_id, "exited")


def test_setup_logs_one_merged_stream() -> None:
    setup = "printf 'setup\\000\\377\\n'; echo err >&2; echo done"
    with RefServer("--setup-command", setup) as server, Client(server.url) as client:
        logs = client.computers.get("programs").setup
        transcript = logs.read_logs()
        assert transcript.bytes("stdout") == b"setup\x00\xff\nerr\ndone\n"
        assert transcript.exit == (0, False)
        frames = list(logs.iter_logs(offset=6, follow=False))
        assert b"".join(f.bytes for f in frames) == b"\xff\nerr\ndone\n"


def test_kill_ends_a_followed_stream_with_a_null_exit_code() -> None:
    with RefServer() as server, Client(server.url) as client:
        computer = client.computers.get("programs")
        started = computer.processes.start("printf ready; sleep 30", timeout_seconds=60)
        with computer.processes.get(started.proc_id).iter_output() as stream:
            first = next(stream)
            assert first.bytes == b"ready"
            assert computer.processes.kill(started.proc_id).status == "exited"
            rest = list(stream)
        assert [(f.type, f.exit_code, f.timed_out) for f in rest] == [("exit", None, False)]
