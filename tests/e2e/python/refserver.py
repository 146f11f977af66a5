"""Start and stop the reference server (`dory-refserver`) for end-to-end tests,
and talk HTTP to it with the standard library only; the seeded trials' shared
part (:func:`run_trials`).

The binary is ``$DORY_REFSERVER_BIN`` when set, else ``target/debug/dory-refserver``
(``scripts/test-e2e.sh`` builds it first). Each :class:`RefServer` listens on a
free loopback port (``--port 0``; the URL is read from the one line the server
prints) and is always stopped with SIGTERM, then SIGKILL if it does not exit.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import random
import selectors
import shlex
import signal
import subprocess
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
START_TIMEOUT = 30.0  # hang guard: seconds to wait for the "listening on" line
STOP_TIMEOUT = 15.0  # hang guard: seconds to wait for a clean exit after SIGTERM


def server_binary() -> Path:
    explicit = os.environ.get("DORY_REFSERVER_BIN")
    path = Path(explicit) if explicit else ROOT / "target" / "debug" / "dory-refserver"
    if not path.is_file() or not os.access(path, os.X_OK):
        raise RuntimeError(
            f"dory-refserver binary not found at {path}: run `cargo build -p dory-refserver` "
            "(scripts/test-e2e.sh does) or set DORY_REFSERVER_BIN"
        )
    return path


class RefServer:
    """A running ``dory-refserver``: ``with RefServer("--retention-bytes", "1000") as srv:``."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.args = ["--port", "0", *args]
        self.env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.computer = os.environ.get("CE_COMPUTER_ID", "e2e")

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> RefServer:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DORY_")}
        env.update(self.env)
        self.proc = subprocess.Popen(
            [str(server_binary()), *self.args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        try:
            self.url = self._read_url()
        except BaseException:
            self.stop()
            raise
        return self

    def _read_url(self) -> str:
        assert self.proc is not None and self.proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + START_TIMEOUT
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                raise RuntimeError(f"dory-refserver {self.args} printed no URL within {START_TIMEOUT}s")
            byte = os.read(self.proc.stdout.fileno(), 1)  # unbuffered: select() stays truthful
            if not byte:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise RuntimeError(f"dory-refserver {self.args} exited ({self.proc.wait()}) before listening: {err}")
            line += byte
        sel.close()
        text = line.decode().strip()
        prefix = "listening on "
        if not text.startswith(prefix):
            raise RuntimeError(f"unexpected first line from dory-refserver: {text!r}")
        return text[len(prefix) :]

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()

    def __enter__(self) -> RefServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- HTTP ----------------------------------------------------------------

    @property
    def base(self) -> str:
        return f"{self.url}/computers/{self.computer}"

    def connection(self, timeout: float = 60.0) -> http.client.HTTPConnection:
        parts = urllib.parse.urlsplit(self.url)
        return http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)

    def path(self, suffix: str) -> str:
        return f"/computers/{self.computer}{suffix}"

    def request(
        self,
        method: str,
        suffix: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        timeout: float = 60.0,
    ) -> tuple[int, str, bytes]:
        """One request, whole body read: (status, content type, body)."""
        conn = self.connection(timeout)
        try:
            payload = None if body is None else json.dumps(body).encode()
            conn.request(method, self.path(suffix), body=payload, headers=headers or {})
            resp = conn.getresponse()
            return resp.status, resp.getheader("content-type", ""), resp.read()
        finally:
            conn.close()

    def json(self, method: str, suffix: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        status, ctype, data = self.request(method, suffix, body, headers)
        if status != 200 or not ctype.startswith("application/json"):
            raise AssertionError(f"{method} {suffix}: {status} {ctype} {data[:500]!r}")
        return json.loads(data)

    def start_process(self, command: list[str] | str, key: str | None = None, timeout: float | None = None) -> str:
        body: dict[str, Any] = {"command": command}
        if timeout is not None:
            body["timeout_seconds"] = timeout
        headers = {"Idempotency-Key": key} if key else {}
        identity = self.json("POST", "/processes", body, headers)
        return str(identity["proc_id"])

    def kill(self, proc_id: str) -> Any:
        return self.json("POST", f"/processes/{proc_id}/kill")

    def wait_exited(self, proc_id: str, timeout: float = 60.0) -> None:
        """Polls the identity until the process has exited (hang guard: ``timeout``)."""
        deadline = time.monotonic() + timeout
        while self.json("GET", f"/processes/{proc_id}")["status"] != "exited":
            if time.monotonic() > deadline:
                raise AssertionError(f"process {proc_id} still running after {timeout}s")
            time.sleep(0.02)


def body_chunks(resp: http.client.HTTPResponse, size: int = 1 << 16) -> Iterator[bytes]:
    """The body of a streamed response, chunk by chunk as it arrives.

    A connection cut by the server (fault injection: no chunked terminator)
    simply ends the iteration: the reader then sees an end of body without
    ``exit`` and reports ``Disconnected``, which is exactly what happened.
    """
    while True:
        try:
            data = resp.read1(size)
        except (http.client.IncompleteRead, ConnectionError) as exc:
            partial = getattr(exc, "partial", b"")
            if partial:
                yield partial
            return
        if not data:
            return
        yield data


class Followed:
    """What :func:`follow_output` collected over one or more connections."""

    def __init__(self) -> None:
        self.data = {"stdout": bytearray(), "stderr": bytearray()}
        self.events: list[Any] = []
        self.ends: list[Any] = []
        self.connections = 0

    @property
    def end(self) -> Any:
        return self.ends[-1]

    @property
    def reconnects(self) -> int:
        return self.connections - 1


def follow_output(
    server: RefServer,
    proc_id: str,
    *,
    cursor: Any = None,
    gap_policy: str = "fail",
    follow: bool = True,
    max_connections: int = 100,
) -> Followed:
    """Reads a process's retained output with ``Reader``, reconnecting
    from the reader's consumed offsets after each ``Disconnected`` end, until
    ``Exited`` (or, with ``follow=False``, after one connection). Errors of the
    reader (``OutputGap`` …) propagate; ``max_connections`` is a hang guard.
    """
    from dory_wire import Disconnected, Output, Reader, iter_events

    got = Followed()
    while True:
        if got.connections >= max_connections:
            raise AssertionError(
                f"{proc_id}: no exit after {max_connections} connections (at {cursor}, ends {got.ends[-3:]})"
            )
        got.connections += 1
        reader = Reader("process_output", cursor=cursor, gap_policy=gap_policy)  # type: ignore[arg-type]
        query = urllib.parse.urlencode(
            {
                "stdout_offset": reader.cursor.stdout,
                "stderr_offset": reader.cursor.stderr,
                "follow": "true" if follow else "false",
            }
        )
        conn = server.connection()
        try:
            conn.request("GET", server.path(f"/processes/{proc_id}/output?{query}"))
            resp = conn.getresponse()
            reader.open(resp.status, resp.getheader("content-type"), resp.getheader("ce-process-id"))
            events = iter_events(reader, body_chunks(resp))
            for event in events:
                got.events.append(event)
                if isinstance(event, Output):
                    got.data[event.stream].extend(event.data)
        finally:
            conn.close()
        got.ends.append(events.end)
        if not isinstance(events.end, Disconnected) or not follow:
            return got
        cursor = events.end.cursor


def wire_bytes(frame: Any) -> bytes:
    """What a client of the wire format would decode from a ``dory_wire.client``
    output frame's ``data`` and ``encoding``."""
    if frame.encoding == "base64":
        return base64.b64decode(frame.data, validate=True)
    return str(frame.data).encode()


# -- seeded trials -------------------------------------------------------------

TRIALS = int(os.environ.get("DORY_E2E_TRIALS", "200"))
SEED = int(os.environ.get("DORY_E2E_SEED", "6"))
TRIAL_PARALLEL = 4
STREAMS = ("stdout", "stderr")


def trial_script(rng: random.Random, directory: Path, bytes_per_stream: int) -> str:
    """A shell script writing ``bytes_per_stream`` random bytes (NUL and
    invalid UTF-8 included) to stdout and as many to stderr, interleaved in
    blocks of seeded random sizes, and appending each block to the file of its
    stream in ``directory`` too (``tee``)."""
    files = {name: shlex.quote(str(directory / name)) for name in STREAMS}
    blocks = []
    for name in STREAMS:
        left = bytes_per_stream
        while left > 0:
            size = min(left, rng.randint(1, max(1, bytes_per_stream // 4)))
            blocks.append((name, size))
            left -= size
    rng.shuffle(blocks)
    lines = ["set -e", *(f": > {f}" for f in files.values())]
    for name, size in blocks:
        redirect = " >&2" if name == "stderr" else ""
        lines.append(f"head -c {size} /dev/urandom | tee -a {files[name]}{redirect}")
    return "\n".join(lines)


def check_trial_output(directory: Path, got: Mapping[str, bytes], bytes_per_stream: int, context: str) -> None:
    """Each stream read equals the file the process wrote, byte for byte;
    then the files and ``directory`` are removed."""
    for name in STREAMS:
        written = (directory / name).read_bytes()
        assert len(written) == bytes_per_stream, f"{context}: the process wrote {len(written)} {name} bytes"
        data = got[name]
        if data != written:
            first = next((i for i, (a, b) in enumerate(zip(data, written)) if a != b), min(len(data), len(written)))
            raise AssertionError(
                f"{context}: {name} differs: got {len(data)} bytes, wrote {len(written)}, first difference at {first}"
            )
        (directory / name).unlink()
    directory.rmdir()


def run_trials(prefix: str, drop_max: int, trial: Callable[[RefServer, int, Path], int]) -> list[int]:
    """Runs ``trial(server, n, directory)`` for n in ``range(TRIALS)``,
    ``TRIAL_PARALLEL`` at a time, against one server that cuts every response
    after a seeded random 1..=``drop_max`` body bytes (seed ``SEED``). Each
    trial gets a fresh empty directory (in a temporary one named ``prefix``…);
    the results, in trial order."""
    drop = ["--drop-seed", str(SEED), "--drop-probability", "1.0", "--drop-max-bytes", str(drop_max)]
    with RefServer(*drop) as server, tempfile.TemporaryDirectory(prefix=prefix) as tmp:

        def one(n: int) -> int:
            directory = Path(tmp) / f"trial-{n}"
            directory.mkdir()
            return trial(server, n, directory)

        with ThreadPoolExecutor(TRIAL_PARALLEL) as pool:
            results = list(pool.map(one, range(TRIALS)))
    assert len(results) == TRIALS
    return results
