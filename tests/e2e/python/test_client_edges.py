"""The clients' edges, decided by the core and the same in every language:
a consumer slower than the liveness timeout, a start on a refused
connection, a redirect to another origin with credentials, and a start whose
answer was lost (keyed: sent again; unkeyed: ``NoAnswer``).

The same four cases, against the same reference server, are in
``tests/e2e/node/client-edges.test.mjs`` (Node) and
``crates/dory-refserver/tests/clients.rs`` (Rust); here for the synchronous
and the asyncio client.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import anyio
import httpx
import pytest

from dory_wire.client import ApiError, AsyncClient, Client, NoAnswer
from refserver import RefServer

# Six lines a quarter-second apart; heartbeats every 0.2 s; a 0.5 s liveness
# timeout; a consumer that spends 0.8 s over each line (longer than the
# timeout: only waits for the service may count).
SLOW_LINES = "for i in 1 2 3 4 5 6; do echo $i; sleep 0.25; done"
LINES = b"".join(f"{i}\n".encode() for i in range(1, 7))
CONSUMER_SECONDS = 0.8
LIVENESS_SECONDS = 0.5


def closed_port_url() -> str:
    """A loopback URL where nothing listens (the port was bound, then freed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_a_slow_consumer_reads_every_frame() -> None:
    with RefServer("--heartbeat-ms", "200") as server:
        with Client(server.url, liveness_timeout_seconds=LIVENESS_SECONDS) as client:
            processes = client.computers.get(server.computer).processes
            process = processes.get(processes.start(SLOW_LINES).proc_id)
            got = bytearray()
            # One response (iter_output never reconnects): a false stall would raise.
            for frame in process.iter_output():
                if frame.type == "stdout":
                    got += frame.bytes
                    time.sleep(CONSUMER_SECONDS)
            assert bytes(got) == LINES

        async def slow_async() -> bytes:
            async with AsyncClient(server.url, liveness_timeout_seconds=LIVENESS_SECONDS) as client:
                processes = (client.computers.get(server.computer)).processes
                process = await processes.get((await processes.start(SLOW_LINES)).proc_id)
                got = bytearray()
                async for frame in process.iter_output():
                    if frame.type == "stdout":
                        got += frame.bytes
                        await anyio.sleep(CONSUMER_SECONDS)
                return bytes(got)

        assert anyio.run(slow_async) == LINES


def test_a_start_on_a_refused_connection_is_no_answer() -> None:
    # Nothing listens: every attempt is refused. The unkeyed start cannot
    # have reached the service, so it is sent again until the budget (5
    # retries) is spent, and the error says it never reached the service.
    url = closed_port_url()
    with Client(url) as client, pytest.raises(NoAnswer) as info:
        client.computers.get("c1").processes.start("true")
    err = info.value
    assert (err.code, err.reason, err.method, err.target, err.attempts, err.reached) == (
        "no_answer",
        "not_connected",
        "POST",
        "/computers/c1/processes",
        6,
        False,
    )
    assert str(err).endswith("; tried 6 times; it never reached the service"), str(err)
    assert isinstance(err.__cause__, httpx.ConnectError)

    async def refused_async() -> NoAnswer:
        async with AsyncClient(url) as client:
            try:
                await (client.computers.get("c1")).processes.start("true")
            except NoAnswer as e:
                return e
        raise AssertionError("no NoAnswer")

    refused = anyio.run(refused_async)
    assert (refused.attempts, refused.reached) == (6, False)
    assert "it never reached the service" in str(refused)


def test_a_redirect_is_an_answer_never_followed() -> None:
    elsewhere = closed_port_url()  # followed, the request would be refused instead
    headers = {"Authorization": "Bearer secret"}
    with RefServer("--redirect-to", elsewhere) as server:
        with Client(server.url, headers=headers) as client, pytest.raises(ApiError) as info:
            client.computers.get(server.computer).processes.get("p_1")
        assert info.value.status == 302
        assert "redirects are not followed" in str(info.value)

        async def redirected_async() -> int:
            async with AsyncClient(server.url, headers=headers) as client:
                try:
                    await (client.computers.get(server.computer)).processes.start("true")
                except ApiError as e:
                    return e.status
            raise AssertionError("no ApiError")

        assert anyio.run(redirected_async) == 302


def test_a_keyed_start_whose_answer_was_lost_is_sent_again(tmp_path: Path) -> None:
    marks = tmp_path / "started"
    command = f"echo started >> {marks}"
    with RefServer("--lose-start-answers", "1") as server, Client(server.url) as client:
        processes = client.computers.get(server.computer).processes
        identity = processes.start(command, idempotency_key="edge-1")
        server.wait_exited(identity.proc_id)
        # The answer was lost once; the keyed start was sent again and
        # answered the same process: it ran once.
        assert marks.read_text() == "started\n"
        assert processes.get(identity.proc_id).proc_id == identity.proc_id

    marks.unlink()
    with RefServer("--lose-start-answers", "1") as server, Client(server.url) as client:
        with pytest.raises(NoAnswer) as info:
            client.computers.get(server.computer).processes.start(command)
        # Lost before or after its headers, depending on when the server's
        # connection closed: either way, sent once.
        assert info.value.reason in ("no_response", "end_of_body")
        assert info.value.attempts == 1
        # Never sent twice: it ran once, and the caller is told it may have.
        assert "it may have taken effect" in str(info.value)
        deadline = time.monotonic() + 10
        while not marks.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marks.read_text() == "started\n"

    async def lost_async() -> str:
        with RefServer("--lose-start-answers", "1") as server:
            async with AsyncClient(server.url) as client:
                processes = (client.computers.get(server.computer)).processes
                identity = await processes.start(command, idempotency_key="edge-2")
                server.wait_exited(identity.proc_id)
                return identity.proc_id

    marks.unlink()
    assert anyio.run(lost_async)
    assert marks.read_text() == "started\n"
