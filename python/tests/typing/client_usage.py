"""Typed usage of dory_wire.client, checked by ``mypy --strict`` (see
tests/test_client_typing.py); never run. The frame loop reads the wire's
fields (``type``, ``data``, ``encoding``, ``offset``, ``exit_code``,
``timed_out``) as a client of the wire format would."""

from __future__ import annotations

import base64
import uuid

from dory_wire import Reconnect
from dory_wire.client import (
    AsyncClient,
    Client,
    ExecResult,
    Frame,
    Identity,
    OutputExpired,
    OutputGap,
    StreamDisconnected,
    Transcript,
)


def wire_bytes(frame: Frame) -> bytes:
    if frame.encoding == "base64":
        return base64.b64decode(frame.data, validate=True)
    return frame.data.encode()


def frame_loop(client: Client, computer_id: str) -> dict[str, bytearray]:
    computer = client.computers.get(computer_id)
    key = str(uuid.uuid4())
    started: Identity = computer.processes.start(
        ["sh", "-c", "printf hi"], timeout_seconds=30, idempotency_key=key
    )
    output = {"stdout": bytearray(), "stderr": bytearray()}
    try:
        process = computer.processes.get(started.proc_id)
        # A plain dict of saved offsets, passed as keywords.
        offsets = {"stdout_offset": 0, "stderr_offset": 0}
        for _attempt in range(3):
            stream = process.iter_output(**offsets)
            try:
                for frame in stream:
                    if frame.type in output:
                        output[frame.type].extend(wire_bytes(frame))
                        end: int | None = frame.offset
                        assert end is not None
                    offsets = {
                        "stdout_offset": stream.stdout_offset,
                        "stderr_offset": stream.stderr_offset,
                    }
                    if frame.type == "exit" and (frame.exit_code != 0 or frame.timed_out):
                        raise RuntimeError("failed")
                break
            except StreamDisconnected as gone:
                offsets = {"stdout_offset": gone.stdout_offset, "stderr_offset": gone.stderr_offset}
                reason: str = gone.reason
                print(reason, gone.cursor.stdout, gone.proc_id)
            except (OutputGap, OutputExpired):
                raise
            finally:
                stream.close()
    finally:
        killed: Identity = computer.processes.kill(started.proc_id)
        print(killed.status)
    return output


def one_call(client: Client) -> bytes:
    computer = client.computers.get("c1")
    process = computer.processes.get("p_1")
    transcript: Transcript = process.read_output(gap_policy="skip", retries=3)
    records: list[Reconnect] = []
    process.read_output(jitter=False, backoff_seconds=0.5, on_reconnect=records.append)
    process.read_output(on_reconnect=lambda r: print(r.attempt, r.reason, r.delay_seconds))
    saved = {"stdout_offset": 5, "stderr_offset": 0}
    rest: Transcript = process.read_output(**saved)
    print(rest.exit)
    lost: list[tuple[int, int]] = transcript.skipped("stdout")
    print(lost, transcript.exit, transcript.text("stderr"))
    result = computer.exec("echo hi")
    if isinstance(result, ExecResult):
        print(result.stdout_truncated)
    with computer.exec_stream(["true"], on_reconnect=records.append, retries=2) as stream:
        for frame in stream:
            print(frame.proc_id, stream.proc_id)
    logs: Transcript = computer.setup.read_logs(offset=0, follow=False)
    return transcript.bytes("stdout") + logs.bytes("stdout")


async def async_usage() -> bytes:
    async with AsyncClient("http://127.0.0.1:8080", liveness_timeout_seconds=5.0) as client:
        computer = client.computers.get("c1")
        started = await computer.processes.start("sleep 1", idempotency_key="k")
        process = await computer.processes.get(started.proc_id)
        async with process.iter_output(follow=False) as stream:
            async for frame in stream:
                data: bytes = frame.bytes
                print(data, frame.type, stream.cursor)
        transcript = await process.read_output(stream.stdout_offset, stream.stderr_offset)
        await computer.processes.kill(started.proc_id)
        return transcript.bytes("stdout")
