"""``run``'s preview options against the reference server: by default the
combined preview keeps a failing line from the cut middle, with its line
number in the raw output, and renders a ``\\r`` redraw as a terminal shows
it; with ``keep=None, terminal=False`` it is the raw text, and the failing
line is not kept.

A run that times out says so in its combined text's last line.

The same cases, against the same reference server, are in
``tests/e2e/node/client-run-previews.test.mjs`` (Node) and
``crates/dory-refserver/tests/run_previews.rs`` (Rust); here for the
synchronous and the asyncio client.
"""

from __future__ import annotations

import anyio

from dory_wire.client import AsyncClient, Client
from refserver import RefServer

# A redrawn progress line (raw line 1), 100 passing tests, one failure (raw
# line 102), 100 more passing tests: cut at 20 lines, the failure is in the
# omitted middle.
COMMAND = (
    "printf 'building 0%%\\rbuilding 100%%\\n'; "
    'i=1; while [ $i -le 100 ]; do echo "test case_$i ... ok"; i=$((i+1)); done; '
    'echo "test case_x ... FAILED"; '
    'while [ $i -le 200 ]; do echo "test case_$i ... ok"; i=$((i+1)); done; exit 101'
)
LIMITS = {"max_lines": 20, "max_bytes": 2000}
KEPT = (
    "[... kept 1 omitted line matching the keep patterns ...]\n"
    "101-test case_100 ... ok\n102:test case_x ... FAILED\n103-test case_101 ... ok\n"
)


def test_run_keeps_a_failing_line_with_its_raw_line_number_by_default(server: RefServer) -> None:
    with Client(server.url) as client:
        result = client.computers.get(server.computer).run(COMMAND, **LIMITS)
    combined = result.combined
    assert result.exit_code == 101
    assert combined.truncated and combined.total_lines == 202
    assert KEPT in combined.text, combined.text
    # Rendered: the redraw's last state, and the terminal line says so.
    # run's tail split: the head is the first line, the tail the rest.
    assert combined.text.startswith("building 100%\n[... "), combined.text
    assert "\r" not in combined.text and "[... terminal: " in combined.text
    # The last line says how the process ended; stdout's own view has none.
    assert combined.text.endswith("\n[... exit code 101 ...]\n"), combined.text
    assert (combined.notices[-1].kind, combined.notices[-1].text) == (
        "end",
        "[... exit code 101 ...]",
    )
    assert "exit code" not in result.stdout.text


def test_a_timed_out_runs_combined_text_says_it_timed_out(server: RefServer) -> None:
    with Client(server.url) as client:
        result = client.computers.get(server.computer).run("echo started; sleep 30", timeout_seconds=1)
    assert (result.exit_code, result.timed_out) == (None, True)
    expected = "started\n[... timed out after 1 s: killed, no exit code ...]\n"
    assert result.combined.text == expected, result.combined.text
    assert result.stdout.text == "started\n"


def test_run_with_keep_none_and_terminal_false_gives_the_raw_text(server: RefServer) -> None:
    async def raw() -> tuple[str, str]:
        async with AsyncClient(server.url) as client:
            computer = client.computers.get(server.computer)
            off = await computer.run(COMMAND, keep=None, terminal=False, **LIMITS)
            explicit = await computer.run(COMMAND, keep="defaults", terminal=True, **LIMITS)
            return off.combined.text, explicit.combined.text

    off, explicit = anyio.run(raw)
    assert "FAILED" not in off and "kept" not in off, off
    assert off.startswith("building 0%\rbuilding 100%\ntest case_1 ... ok\n"), off
    assert "[... terminal: " not in off
    # The explicit defaults are the defaults.
    assert KEPT in explicit and explicit.startswith("building 100%\n")
