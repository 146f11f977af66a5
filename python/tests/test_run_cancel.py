"""Cancelling ``AsyncComputer.run`` the asyncio and anyio ways (the sync
client's cancellation, a ``KeyboardInterrupt``, is in test_client_async.py
and its generated twin): nothing is returned, the spill files are
discarded, and the process is killed only with ``kill_on_cancel`` — the
kill shielded from a cancel scope that keeps cancelling every wait."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio
import pytest
from run_server import refserver

from dory_wire.client import AsyncClient, AsyncComputer, SpillDirectory

pytestmark = pytest.mark.anyio

COMMAND = ["sh", "-c", "echo ready; sleep 30"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def status_after(computer: AsyncComputer, key: str, kill: bool) -> str:
    """The status of the run's process once the kill (if any) is done; the
    keyed start again starts nothing, it names the process."""
    proc_id = (await computer.processes.start(COMMAND, idempotency_key=key)).proc_id
    for _ in range(500):
        status = (await computer.processes.get(proc_id)).status
        if status == "exited" or not kill:
            break
        await anyio.sleep(0.02)
    if status == "running":
        await computer.processes.kill(proc_id)
    return status


@pytest.mark.parametrize("kill", [True, False], ids=["kill_on_cancel", "keep_running"])
async def test_a_cancelled_task_raises_cancelled_error(tmp_path: Path, kill: bool) -> None:
    with refserver() as server:
        client = AsyncClient(server.url)
        try:
            computer = client.computers.get("cancel")
            ready = asyncio.Event()
            task = asyncio.ensure_future(
                computer.run(
                    COMMAND,
                    idempotency_key=f"task-{kill}",
                    kill_on_cancel=kill,
                    spill=SpillDirectory(tmp_path),
                    on_output=lambda stream, data, text: ready.set(),
                )
            )
            await asyncio.wait_for(ready.wait(), 30)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            status = await status_after(computer, f"task-{kill}", kill)
        finally:
            await client.aclose()
    assert status == ("exited" if kill else "running")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kill", [True, False], ids=["kill_on_cancel", "keep_running"])
async def test_a_cancel_scope_cancels_it_and_the_kill_is_shielded(
    tmp_path: Path, kill: bool
) -> None:
    with refserver() as server:
        client = AsyncClient(server.url)
        try:
            computer = client.computers.get("cancel")
            returned = []
            with anyio.CancelScope() as scope:
                returned.append(
                    await computer.run(
                        COMMAND,
                        idempotency_key=f"scope-{kill}",
                        kill_on_cancel=kill,
                        spill=SpillDirectory(tmp_path),
                        on_output=lambda stream, data, text: scope.cancel(),
                    )
                )
            assert scope.cancelled_caught
            assert returned == []  # no result, partial or not
            status = await status_after(computer, f"scope-{kill}", kill)
        finally:
            await client.aclose()
    assert status == ("exited" if kill else "running")
    assert list(tmp_path.iterdir()) == []
