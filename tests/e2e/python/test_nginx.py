"""The clients through a real nginx, with nginx's default ``proxy_buffering on``.

A buffering proxy holds a followed stream's frames until the process exits:
output arrives all at once at the end, heartbeats never pass, and a client
with a liveness timeout reconnects again and again (``no_response`` or
``stalled``). The reference server sends ``X-Accel-Buffering: no`` on every
NDJSON response, which turns nginx's buffering off for that response; these
tests show, with the times at which the client received each frame, that
through nginx

- lines printed a second apart arrive live, a second apart, before the exit;
- heartbeats of a silent command arrive live and keep a short liveness
  timeout satisfied;
- the documentation's retained-output programs (Python and Node) print their
  verified line, also through a reference server that cuts every response;

and, as the negative control, that the same checks through an nginx told to
ignore that header (``proxy_ignore_headers X-Accel-Buffering``; hiding it
would not do: nginx acts on it before hiding it) get everything at the exit,
and a silent command stalls. So the header is what makes the stream live.

The nginx config is nginx's defaults but for the paths: ``proxy_buffering
on``, and ``proxy_http_version 1.0`` to the upstream. (Measured with nginx
1.22: with ``proxy_http_version 1.1`` it passed the reference server's
chunked responses on as they came, header or not, so there the negative
control would fail: it could not show what the header does.)

nginx is ``$DORY_NGINX_BIN``, else ``nginx`` on the PATH or ``/usr/sbin/nginx``
(``scripts/setup-nginx.sh`` installs Debian's; ``scripts/test-e2e.sh`` runs
it). Without one, every test here is skipped and, under ``make test``, the
summary says why (``SKIP e2e nginx: ...``). Each nginx runs unprivileged
paths only: ``-p``/``-c`` in a temporary directory holding its config, pid
file, error log and temp paths, ``daemon off``, stopped in teardown.

Everything is started at once by one module fixture: the followed commands
take 2 s, the programs less, and the module about 4 s in all.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dory_wire.client import Client, StreamDisconnected
from refserver import ROOT, RefServer

SUMMARY_NAME = "e2e nginx"
START_TIMEOUT = 30.0  # hang guard: seconds for nginx to listen
STOP_TIMEOUT = 15.0  # hang guard: seconds for nginx to exit after SIGTERM
PROGRAM_TIMEOUT = 120.0  # hang guard per documented program

HEARTBEAT_MS = 250  # the reference server's heartbeat interval here
LIVENESS = 1.5  # the heartbeat checks' liveness timeout (6 heartbeat intervals)
# Three lines a second apart, then the exit: live, they arrive about 0, 1 and
# 2 s after the start; buffered, all at once with the exit at about 2 s.
LINES_COMMAND = "echo line 1; sleep 1; echo line 2; sleep 1; echo line 3"
LINES = [b"line 1\n", b"line 2\n", b"line 3\n"]
SILENT_COMMAND = "sleep 2"  # heartbeats only (8 intervals)
# Live: the first line (heartbeat) at least this long before the exit, and the
# lines (heartbeats) at least this far apart from first to last: about 1.9 s
# (1.5 s) when nothing is late, so a frame a second late still passes.
# Buffered: everything within BUFFERED of the exit (measured: the same read).
LIVE_MARGIN = 0.75
BUFFERED = 0.3

PROGRAMS = {
    "python": [sys.executable, str(ROOT / "python" / "examples" / "retained_output.py")],
    "node": ["node", str(ROOT / "npm" / "examples" / "retained-output.mjs")],
}
VERIFIED = "Retained bytes and replay identity verified\n"


# -- nginx ----------------------------------------------------------------------


def nginx_binary() -> str | None:
    explicit = os.environ.get("DORY_NGINX_BIN")
    if explicit:
        return explicit
    on_path = shutil.which("nginx")
    if on_path:
        return on_path
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


_skipped: list[str] = []


def skip_nginx(reason: str) -> None:
    """Skips the test, and records the reason once in the ``make test`` summary."""
    if not _skipped:
        _skipped.append(reason)
        summary = os.environ.get("DORY_TEST_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as out:
                out.write(f"SKIP {SUMMARY_NAME}: {reason}\n")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Site:
    """One nginx server block: ``proxy_pass`` to ``upstream``, plus ``extra`` directives."""

    upstream: str
    extra: str = ""
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class Nginx:
    """An nginx in a temporary directory serving ``sites`` on free loopback ports."""

    def __init__(self, binary: str, sites: list[Site]) -> None:
        self.binary = binary
        self.sites = sites
        self.proc: subprocess.Popen[bytes] | None = None
        self.dir = Path(tempfile.mkdtemp(prefix="dory-e2e-nginx."))

    def config(self) -> str:
        d = self.dir
        # Every compiled-in module with a temp path gets one here (never /var/lib/nginx).
        built = subprocess.run([self.binary, "-V"], capture_output=True, text=True, check=False).stderr
        temp = [f"client_body_temp_path {d}/client_body;", f"proxy_temp_path {d}/proxy;"]
        temp += [
            f"{m}_temp_path {d}/{m};" for m in ("fastcgi", "uwsgi", "scgi") if f"--without-http_{m}_module" not in built
        ]
        servers = "".join(
            f"""
    server {{
        listen 127.0.0.1:{site.port};
        location / {{
            proxy_pass {site.upstream};
            {site.extra}
        }}
    }}"""
            for site in self.sites
        )
        return f"""# dory-wire e2e (tests/e2e/python/test_nginx.py); proxy_buffering is nginx's default: on
daemon off;
master_process off;
pid {d}/nginx.pid;
error_log {d}/error.log info;
events {{
    worker_connections 512;
}}
http {{
    access_log off;
    {" ".join(temp)}
{servers}
}}
"""

    def error_log(self) -> str:
        path = self.dir / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def start(self) -> Nginx:
        for attempt in range(3):  # a free port may be taken before nginx binds it
            for site in self.sites:
                site.port = free_port()
            conf = self.dir / "nginx.conf"
            conf.write_text(self.config())
            self.proc = subprocess.Popen(
                [self.binary, "-p", f"{self.dir}/", "-c", str(conf), "-e", str(self.dir / "error.log")],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            if self._wait_listening():
                return self
            assert self.proc.stderr is not None
            err = self.proc.stderr.read().decode(errors="replace") + self.error_log()
            self.proc.wait()
            self.proc = None
            if "Address already in use" not in err or attempt == 2:
                raise RuntimeError(f"nginx did not start: {err.strip()}")
        raise AssertionError("unreachable")

    def _wait_listening(self) -> bool:
        assert self.proc is not None
        deadline = time.monotonic() + START_TIMEOUT
        waiting = list(self.sites)
        while waiting:
            if self.proc.poll() is not None:
                return False
            try:
                socket.create_connection(("127.0.0.1", waiting[0].port), timeout=1).close()
                waiting.pop(0)
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        f"nginx listened on no port within {START_TIMEOUT}s: {self.error_log()}"
                    ) from None
                time.sleep(0.02)
        return True

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if proc.stderr is not None:
                proc.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)


# -- a followed stream, timed by the client ---------------------------------------


@dataclass
class Arrivals:
    """The frames of one followed stream, each with the time the client got it
    (seconds since the process was started), and how the stream ended."""

    frames: list[tuple[str, bytes, float]] = field(default_factory=list)
    disconnected: str | None = None  # StreamDisconnected's reason, if any
    ended_at: float = 0.0

    def at(self, kind: str) -> list[float]:
        return [t for k, _, t in self.frames if k == kind]

    def data(self, kind: str) -> list[bytes]:
        return [d for k, d, _ in self.frames if k == kind]

    @property
    def exit_at(self) -> float:
        (at,) = self.at("exit")
        return at

    def describe(self) -> str:
        shown = ", ".join(f"{k} {t:.3f}" for k, _, t in self.frames if k != "heartbeat")
        beats = " ".join(f"{t:.2f}" for t in self.at("heartbeat"))
        end = f"; disconnected ({self.disconnected}) at {self.ended_at:.3f}" if self.disconnected else ""
        return f"[{shown}] heartbeats [{beats}]{end}"


def timed_follow(url: str, command: str, liveness: float | None = None) -> Arrivals:
    """Starts ``command`` through ``url`` and follows its output on one
    connection, timing each frame as it arrives; a ``StreamDisconnected`` ends it."""
    got = Arrivals()
    with Client(url, liveness_timeout_seconds=liveness) as client:
        computer = client.computers.get("nginx")
        started = computer.processes.start(command, timeout_seconds=30)
        t0 = time.monotonic()
        try:
            with computer.processes.get(started.proc_id).iter_output() as stream:
                try:
                    for frame in stream:
                        got.frames.append((frame.type, frame.bytes, time.monotonic() - t0))
                except StreamDisconnected as gone:
                    got.disconnected = gone.reason
            got.ended_at = time.monotonic() - t0
        finally:
            computer.processes.kill(started.proc_id)  # a no-op once it exited
    return got


# -- everything at once -------------------------------------------------------------


@dataclass
class Run:
    live: dict[str, Future[Arrivals]]  # "lines" / "silent", through nginx honouring the header
    ignored: dict[str, Future[Arrivals]]  # the same through nginx ignoring it
    programs: dict[str, subprocess.Popen[bytes]]  # "python-clean", "node-drop-after-80-bytes", ...


@pytest.fixture(scope="module")
def run() -> Iterator[Run]:
    binary = nginx_binary()
    if binary is None:
        reason = os.environ.get("DORY_NGINX_UNAVAILABLE") or "no nginx binary (scripts/setup-nginx.sh installs it)"
        skip_nginx(reason)
    assert binary is not None
    try:
        version = subprocess.run([binary, "-v"], capture_output=True, text=True, check=False)
    except OSError as exc:
        skip_nginx(f"{binary} does not run: {exc}")
    if version.returncode != 0:
        skip_nginx(f"{binary} -v failed: {version.stderr.strip()}")
    print(f"\n   {version.stderr.strip()} ({binary}), proxy_buffering on (the default)")

    with (
        RefServer("--heartbeat-ms", str(HEARTBEAT_MS)) as server,
        RefServer("--drop-after-bytes", "80") as cutting,
        ThreadPoolExecutor(4) as pool,
    ):
        honoured = Site(server.url)
        ignored = Site(server.url, "proxy_ignore_headers X-Accel-Buffering;")
        cut = Site(cutting.url)
        nginx = Nginx(binary, [honoured, ignored, cut]).start()
        procs: dict[str, subprocess.Popen[bytes]] = {}
        try:
            runs = Run(
                live={
                    "lines": pool.submit(timed_follow, honoured.url, LINES_COMMAND),
                    "silent": pool.submit(timed_follow, honoured.url, SILENT_COMMAND, LIVENESS),
                },
                ignored={
                    "lines": pool.submit(timed_follow, ignored.url, LINES_COMMAND),
                    "silent": pool.submit(timed_follow, ignored.url, SILENT_COMMAND, LIVENESS),
                },
                programs=procs,
            )
            for language, argv in PROGRAMS.items():
                for drop, site in (("clean", honoured), ("drop-after-80-bytes", cut)):
                    env = {**os.environ, "DORY_URL": site.url, "CE_COMPUTER_ID": f"nginx-{drop}"}
                    procs[f"{language}-{drop}"] = subprocess.Popen(
                        argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
                    )
            yield runs
            for future in (*runs.live.values(), *runs.ignored.values()):
                future.result()  # let every stream end before the servers stop
        finally:
            for proc in procs.values():
                if proc.poll() is None:
                    proc.kill()
                proc.communicate()
            nginx.stop()


def report(title: str, got: Arrivals) -> None:
    print(f"   {title}: {got.describe()}")


# -- through nginx, honouring X-Accel-Buffering: no ------------------------------------


def test_lines_arrive_live_through_nginx(run: Run) -> None:
    got = run.live["lines"].result()
    report("through nginx, lines", got)
    assert got.disconnected is None, got.describe()
    assert got.data("stdout") == LINES, got.describe()
    lines, exit_at = got.at("stdout"), got.exit_at
    # Live: the first line long before the exit, the lines spread over seconds.
    assert exit_at - lines[0] >= LIVE_MARGIN, f"the first line came with the exit: {got.describe()}"
    assert lines[-1] - lines[0] >= LIVE_MARGIN, f"the lines came together: {got.describe()}"


def test_heartbeats_arrive_live_through_nginx(run: Run) -> None:
    got = run.live["silent"].result()
    report(f"through nginx, a silent command (heartbeat {HEARTBEAT_MS} ms, liveness {LIVENESS} s)", got)
    # A liveness timeout of 1.5 s on a command silent for 2 s: only heartbeats keep it.
    assert got.disconnected is None, f"stalled through nginx: {got.describe()}"
    beats, exit_at = got.at("heartbeat"), got.exit_at
    assert len(beats) >= 3, got.describe()
    assert exit_at - beats[0] >= LIVE_MARGIN, f"the heartbeats came with the exit: {got.describe()}"
    assert beats[-1] - beats[0] >= LIVE_MARGIN, f"the heartbeats came together: {got.describe()}"


@pytest.mark.parametrize("language", list(PROGRAMS))
@pytest.mark.parametrize("drop", ["clean", "drop-after-80-bytes"])
def test_documented_program_through_nginx(run: Run, language: str, drop: str) -> None:
    proc = run.programs[f"{language}-{drop}"]
    stdout, stderr = proc.communicate(timeout=PROGRAM_TIMEOUT)
    err = stderr.decode(errors="replace")
    assert proc.returncode == 0, err
    assert stdout.decode() == VERIFIED, err
    connections = int(re.search(r"over (\d+) connection", err).group(1))  # type: ignore[union-attr]
    print(f"   {language} program through nginx, {drop}: {connections} connection(s)")
    if drop == "clean":
        assert connections == 1, err
    else:
        assert connections >= 2, f"the cuts did not pass through nginx: {err}"


# -- the negative control: nginx ignoring X-Accel-Buffering ---------------------------


def test_without_the_header_nginx_holds_the_lines_until_exit(run: Run) -> None:
    got = run.ignored["lines"].result()
    report("nginx ignoring the header, lines", got)
    assert got.disconnected is None, got.describe()
    assert got.data("stdout") == LINES, got.describe()
    lines, exit_at = got.at("stdout"), got.exit_at
    # Held: the first line, printed at once, came seconds later, with the exit.
    assert lines[0] >= LIVE_MARGIN, f"the first line came early: {got.describe()}"
    assert exit_at - lines[0] <= BUFFERED, f"a line came before the exit: {got.describe()}"


def test_without_the_header_a_silent_command_stalls(run: Run) -> None:
    got = run.ignored["silent"].result()
    report(f"nginx ignoring the header, a silent command (liveness {LIVENESS} s)", got)
    assert got.at("heartbeat") == [], f"a heartbeat passed: {got.describe()}"
    # Not even the response head passes (nginx 1.22 holds it with the body):
    # no_response; a proxy that sends the head first would make it stalled.
    assert got.disconnected in ("no_response", "stalled"), got.describe()
    assert got.ended_at >= LIVENESS - 0.1, got.describe()
