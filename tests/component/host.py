"""A Python host of the dory-wire component on wasmtime-py (`pip install
wasmtime`): follows a process's output across a dropped connection with the
exported follower, shows a loss as an error value, bounds a long output
with the spill handshake, bounds a run's stdout and stderr combined in
arrival order with a lost range said, and runs an agent call with the
exported `run` against the reference server (DORY_URL, else it starts
target/debug/dory-refserver, or DORY_REFSERVER_BIN, on a free port).
scripts/test-component.sh checks that it prints host.expected.txt.

    python host.py [path/to/dory-wire.wasm]
"""

from __future__ import annotations

import http.client
import itertools
import os
import random
import secrets
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from wasmtime import Engine, Store
from wasmtime.component import Component, Linker, Record, Variant

DEFAULT = Path(__file__).resolve().parents[2] / "target" / "component" / "dory-wire.wasm"

engine = Engine()
store = Store(engine)
component = Component.from_file(engine, str(sys.argv[1] if len(sys.argv) > 1 else DEFAULT))
instance = Linker(engine).instantiate(store, component)


def export(interface: str, name: str):
    """The function `name` of the interface `dory:wire/<interface>`."""
    iface = instance.get_export_index(store, f"dory:wire/{interface}@0.1.0")
    func = instance.get_func(store, instance.get_export_index(store, name, iface))
    return lambda *args: func(store, *args)


new_reader = export("decode", "[constructor]reader")
open_ = export("decode", "[method]reader.open")
feed = export("decode", "[method]reader.feed")
follow_output = export("follow", "[static]follower.process-output")
follower_request = export("follow", "[method]follower.request")
follower_open = export("follow", "[method]follower.open")
follower_feed = export("follow", "[method]follower.feed")
follower_finish = export("follow", "[method]follower.finish")
follower_no_response = export("follow", "[method]follower.no-response")
follower_wait_limit = export("follow", "[method]follower.wait-limit-ns")
follower_waited = export("follow", "[method]follower.waited-ns")
follower_resume_state_json = export("follow", "[method]follower.resume-state-json")
bound = export("preview", "bound")
render = export("preview", "[method]pending-spill.render")
spill_id = export("preview", "[method]pending-spill.spill-id")
check_limits = export("run", "check-limits")
run_spill_id = export("run", "run-spill-id")
new_run = export("run", "[constructor]run-bounder")
run_push = export("run", "[method]run-bounder.push")
run_lose = export("run", "[method]run-bounder.lose")
run_finish = export("run", "[static]run-bounder.finish")
run_lost = export("run", "[method]run-pending.lost")
run_spill = export("run", "[method]run-pending.spill-id")
run_render = export("run", "[method]run-pending.render")
new_agent = export("run-machine", "[constructor]run")
agent_request = export("run-machine", "[method]run.request")
agent_open = export("run-machine", "[method]run.open")
agent_feed = export("run-machine", "[method]run.feed")
agent_finish = export("run-machine", "[method]run.finish")
agent_no_response = export("run-machine", "[method]run.no-response")
agent_wait_limit = export("run-machine", "[method]run.wait-limit-ns")
agent_waited = export("run-machine", "[method]run.waited-ns")
agent_spill_committed = export("run-machine", "[method]run.spill-committed")
agent_result = export("run-machine", "[method]run.result")
agent_state = export("run-machine", "[method]run.state")
agent_proc_id = export("run-machine", "[method]run.proc-id")


def options(**fields) -> Record:
    """A `reader-options` record; absent fields take the defaults."""
    out = Record()
    for name in ("cursor", "gap-policy", "max-frame-bytes", "liveness-timeout-ns", "strict"):
        setattr(out, name, fields.get(name.replace("-", "_")))
    return out


def follow_options(**fields) -> Record:
    """A `follow-options` record; absent fields take the core's defaults."""
    out = Record()
    for name in (
        "follow",
        "gap-policy",
        "retries",
        "backoff-ns",
        "max-backoff-ns",
        "jitter",
        "liveness-timeout-ns",
        "max-frame-bytes",
        "strict",
    ):
        setattr(out, name, fields.get(name.replace("-", "_")))
    return out


def show(prefix: str, event: Variant) -> None:
    e = event.payload
    if event.tag == "output":
        print(f"{prefix}: output {e.stream} [{e.start}, {e.end}) {e.data.hex()}")
    elif event.tag == "exit":
        print(f"{prefix}: exit {getattr(e, 'exit-code')}")
    else:
        print(f"{prefix}: {event.tag}")


def show_error(prefix: str, err: Record) -> None:
    print(f"{prefix}: {err.code} ({err.kind}, {getattr(err, 'class-name')}): {err.message}")
    for f in err.fields:
        value = f.value.payload
        if f.value.tag == "cursor":
            value = f"stdout={value.stdout} stderr={value.stderr}"
        print(f"{prefix}:   {f.name} = {value}")


class Dropped(Exception):
    """The connection broke mid-body (what the HTTP client raises)."""


def send(method: str, target: str):
    """Stands in for the HTTP client and the service: returns the status, the
    headers and the body as the client yields it. The first connection drops
    in the middle of a frame; the second re-sends from an earlier chunk
    boundary (the follower trims the overlap) through exit."""
    frames = [
        b'{"type":"stdout","data":"hello\\u0000","offset":6}\n',
        b'{"type":"stdout","data":"/w==","encoding":"base64","offset":7}\n',
        b'{"type":"stderr","data":"notice","offset":6}\n',
        b'{"type":"exit","exit_code":0,"timed_out":false}\n',
    ]
    assert method == "GET" and target.startswith("/computers/c1/processes/p1/output?"), target
    if "stdout_offset=0&" in target:
        body, broken = frames[0] + b'{"type":"stdo', True
    else:
        body, broken = b"".join(frames), False
    headers = {"content-type": "application/x-ndjson", "ce-process-id": "p1"}

    def chunks():
        yield from (body[i : i + 7] for i in range(0, len(body), 7))
        if broken:
            raise Dropped("connection reset by peer")

    return 200, headers, chunks()


# 1. Follow a process's output across a dropped connection with the exported
#    follower: it says which request to send, what each answer means, when to
#    reconnect and after how long. This loop only does the IO, the sleeping
#    and the clock (and draws the jitter).
follower = follow_output("c1", "p1", None, follow_options())  # result<follower, error>
for attempt in itertools.count(1):
    prefix = f"attempt {attempt}"
    request = follower_request(follower).payload  # result<request, error>: Variant('ok', ...)
    method = request.method.upper()
    print(f"{prefix}: {method} {request.target}")
    try:
        status, headers, body = send(method, request.target)
    except OSError as exc:  # refused, reset before the headers
        decision = follower_no_response(follower, str(exc), random.random())
    else:
        opened = follower_open(
            follower, status, headers.get("content-type", ""), headers.get("ce-process-id"), headers.get("retry-after")
        )
        assert opened is None, opened.message  # result<_, error>: None or the `error` Record
        broken = None
        try:
            pieces = iter(body)
            while True:
                # A socket read would wait at most this long (none: no limit),
                # as the run below does; the wait is then reported.
                follower_wait_limit(follower)
                started = time.monotonic_ns()
                piece = next(pieces, None)
                if follower_waited(follower, time.monotonic_ns() - started):
                    break  # stalled: close the connection, then finish (what the wait brought is not fed)
                if piece is None:
                    break
                fed = follower_feed(follower, piece)
                for event in fed.events:
                    show(prefix, event)
                assert fed.error is None, fed.error.message
        except Dropped as exc:
            broken = str(exc)
        followed = follower_finish(follower, broken, random.random())
        for event in followed.events:
            show(prefix, event)
        decision = followed.decision  # the `decision` Variant, or the `error` Record
    assert isinstance(decision, Variant), decision.message
    if decision.tag == "reconnect":
        r, c = decision.payload, decision.payload.cursor
        delay_ms = getattr(r, "delay-ns") // 1_000_000
        where = f"from stdout={c.stdout} stderr={c.stderr} in {delay_ms} ms"
        print(f"{prefix}: reconnect {r.attempt} ({r.reason}: {r.detail}), {where}")
        time.sleep(getattr(r, "delay-ns") / 1e9)
    elif decision.tag == "done":
        print(f"{prefix}: done (exit code {getattr(decision.payload, 'exit-code')})")
        break
print(f"saved: {follower_resume_state_json(follower)}")
follower.drop(store)

# 2. Lost output is an error value, never joined over silently.
cursor = Record()
cursor.stdout, cursor.stderr = 4096, 0
reader = new_reader("process-output", options(cursor=cursor))
open_(reader, 200, "application/x-ndjson", None)
fed = feed(reader, b'{"type":"gap","earliest_stdout_offset":1048576,"earliest_stderr_offset":0}\n')
show_error("gap", fed.error)
reader.drop(store)

# 3. A long output bounded to 6 lines and 300 bytes. The component asks for a
#    spill; the host saves the output (here it only names the file) and renders.
output = b"".join(b"step %d\n" % i for i in range(1, 1001))
no_options = Record()  # keep: Variant("defaults") / Variant("patterns", [...]), terminal: True to turn them on
no_options.keep, no_options.terminal, no_options.split = Variant("none"), False, "even"
# max-tokens: a token budget beside the lines and bytes; tokenizer: "approx", the component's
setattr(no_options, "max-tokens", None)
no_options.tokenizer = None
outcome = bound(output, 6, 300, None, no_options)  # result<bounded, error>: Variant('ok', ...)
pending = outcome.payload
path = f"/tmp/spill/{spill_id(pending)}.txt"
preview = render(pending, Variant("saved", path), "read it with sed")
pending.drop(store)
print(f"preview: {getattr(preview, 'omitted-lines')} lines omitted, {len(preview.text.encode())} bytes")
print(preview.text, end="")

# 4. A run: stdout and stderr combined in the order they arrived, bounded to
#    16 lines and 600 bytes as they stream (a host pushes each chunk as the
#    follower delivers it, or passes the events to `feed`), with a range
#    skipped under gap policy `skip` said at the end, and stderr's end kept.
assert check_limits(16, 600) is None  # the error record for limits a run cannot honour
bounder = new_run(16, 600, run_spill_id("build-42"), no_options)  # result<run-bounder, error>: the handle
offset = 0
for i in range(1, 301):
    line = b"compiling unit %d\n" % i
    run_push(bounder, "stdout", line)
    offset += len(line)
    if i == 150:
        run_push(bounder, "stderr", b"error: unit 150 failed\n")
run_lose(bounder, "stdout", offset, offset + 4096)
finished = run_finish(bounder)  # result<run-pending, error>: the handle
lost_bytes, lost_ranges = run_lost(finished, "combined")
run_id = run_spill(finished, "combined")
combined = run_render(finished, "combined", Variant("saved", f"/tmp/spill/{run_id}.txt"), None)
finished.drop(store)
print(f"run: {run_id}, {lost_bytes} bytes lost in {lost_ranges} range, {len(combined.text.encode())} bytes")
print(combined.text, end="")

# 5. An agent call against the reference server with the exported `run`: the
#    keyed start, the output from offset 0, the spills and the live output
#    hook, and the result. The run decides every request, what each answer
#    means and how long to wait; this loop only does the HTTP (http.client),
#    the sleeping, the clock and the spill "files" (kept in memory here; a
#    commit only names the file, as in 3).
server = None
url = os.environ.get("DORY_URL")
if not url:
    default_bin = Path(__file__).resolve().parents[2] / "target" / "debug" / "dory-refserver"
    server = subprocess.Popen(
        [os.environ.get("DORY_REFSERVER_BIN", str(default_bin)), "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    url = server.stdout.readline().strip().removeprefix("listening on ")
where = urlsplit(url)


def run_options(**fields) -> Record:
    """A `run-options` record; absent fields take the defaults of every client's `run`."""
    out = Record()
    for name in (
        "max-lines",
        "max-bytes",
        "max-tokens",
        "tokenizer",
        "idempotency-key",
        "timeout-seconds",
        "hint",
        "kill-on-cancel",
        "spill",
        "on-output",
        "answer-timeout-ns",
        "keep",
        "terminal",
    ):
        setattr(out, name, fields.get(name.replace("-", "_")))
    out.follow = follow_options()
    return out


shell = (
    'i=1; while [ $i -le 40 ]; do echo "test $i ok"; i=$((i+1)); done; '
    'sleep 0.3; echo "warning: 1 test was slow" >&2; exit 3'
)
options_ = run_options(
    max_lines=8, max_bytes=300, idempotency_key="host-run-1", hint="read it with sed", spill=True, on_output=True
)
agent = new_agent("host", shell, options_, secrets.token_bytes(16))  # result<run, error>: the handle
spills: dict[str, dict] = {}  # view -> {"id", "bytes", "end"}
hook = {"stdout": 0, "stderr": 0}


def act(actions) -> None:
    for action in actions:
        a = action.payload
        if action.tag == "open-spill":
            spills[a.view] = {"id": getattr(a, "spill-id"), "bytes": 0, "end": "open"}
        elif action.tag == "write-spill":
            spills[a.view]["bytes"] += len(a.data)
        elif action.tag == "output":
            hook[a.stream] += len(a.data)  # a live hook would show a.text
        elif action.tag == "commit-spill":
            spills[a]["end"] = "committed"
            agent_spill_committed(agent, a, Variant("saved", f"/tmp/spill/{spills[a]['id']}.txt"))
        elif action.tag == "discard-spill":
            spills[a]["end"] = "discarded"


def seconds(ns):
    return None if ns is None else ns / 1e9


try:
    while True:
        request = agent_request(agent).payload  # result<request, error>: Variant('ok', ...)
        method, proc = request.method.upper(), agent_proc_id(agent)
        print(f"run: {method} {request.target.replace(proc, '<proc>') if proc else request.target}")
        conn = http.client.HTTPConnection(where.hostname, where.port, timeout=seconds(agent_wait_limit(agent)))
        started = time.monotonic_ns()
        try:
            conn.request(method, request.target, body=request.body, headers=dict(request.headers))
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:  # refused, reset, or no headers in time
            agent_waited(agent, time.monotonic_ns() - started)
            step = agent_no_response(agent, str(exc), random.random())
        else:
            agent_waited(agent, time.monotonic_ns() - started)
            headers = {k.lower(): v for k, v in response.getheaders()}
            opened = agent_open(
                agent,
                response.status,
                headers.get("content-type", ""),
                headers.get("ce-process-id"),
                headers.get("retry-after"),
            )
            assert opened is None, opened.message  # result<_, error>: None or the `error` Record
            broken = None
            try:
                while True:
                    if conn.sock is not None:
                        conn.sock.settimeout(seconds(agent_wait_limit(agent)))
                    started = time.monotonic_ns()
                    try:
                        piece = response.read1(65536)
                    except TimeoutError:
                        piece = None
                    if agent_waited(agent, time.monotonic_ns() - started) or piece is None:
                        break  # stalled: close the connection, then finish (what the wait brought is not fed)
                    if not piece:
                        break
                    fed = agent_feed(agent, piece)
                    act(fed.actions)
                    assert fed.error is None, fed.error.message
            except (OSError, http.client.HTTPException) as exc:
                broken = str(exc) or type(exc).__name__
            finished = agent_finish(agent, broken, random.random())
            act(finished.actions)
            step = finished.step  # the `run-step` Variant, or the `error` Record
        finally:
            conn.close()
        assert isinstance(step, Variant), step.message
        print(f"run: {step.tag}")
        if step.tag == "wait":
            time.sleep(getattr(step.payload, "delay-ns") / 1e9)
        if step.tag in ("done", "cancelled"):
            break
    r = agent_result(agent).payload  # result<run-result, error>: Variant('ok', ...)
    state = agent_state(agent)
    print(
        f"run: exit code {getattr(r, 'exit-code')}, timed out {getattr(r, 'timed-out')}, state {state}, "
        f"key {getattr(r, 'idempotency-key')}"
    )
    print(f"run: the hook got {hook['stdout']} bytes of stdout and {hook['stderr']} of stderr")
    for view in ("stdout", "stderr", "combined"):
        print(f"run: spill {view}: {spills[view]['bytes']} bytes, {spills[view]['end']}")
    # The combined view's order is the order the two pipes were read in:
    # its counts, and the text of each stream's own view.
    for view in ("combined", "stdout", "stderr"):
        p = getattr(r, view)
        cut = "cut" if p.truncated else "whole"
        lines, size = getattr(p, "total-lines"), getattr(p, "total-bytes")
        if view == "combined":
            print(f"run: combined, {lines} lines, {size} bytes, {cut}")
        else:
            print(f"run: {view}, {lines} lines, {size} bytes, {cut}:")
            print(p.text, end="")
finally:
    agent.drop(store)
    if server is not None:
        server.terminate()
        server.wait()
