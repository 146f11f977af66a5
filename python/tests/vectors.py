"""Shared conformance vectors (tests/vectors/**/*.json): loading, the
conversion of dory_wire values to the vectors' JSON shapes (VECTORS.md), and
the players of decode, conversation and run-conversation vectors."""

from __future__ import annotations

import base64
import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dory_wire as dw

REPO = Path(__file__).resolve().parents[2]
VECTOR_DIR = Path(os.environ.get("DORY_WIRE_VECTORS", REPO / "tests" / "vectors"))


def load_vectors() -> list[tuple[str, dict[str, Any]]]:
    """Every vector of every `.json` file below the vector directory, as
    (id, vector); ids are `relative/path.json::name`."""
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(VECTOR_DIR.rglob("*.json")):
        with path.open(encoding="utf-8") as f:
            doc = json.load(f)
        for vector in doc["vectors"]:
            out.append((f"{path.relative_to(VECTOR_DIR)}::{vector['name']}", vector))
    return out


# ---- the token limit of preview and run vectors (VECTORS.md, "A token limit")


def token_options(vector: dict[str, Any]) -> dict[str, Any]:
    """The vector's top-level `max_tokens` and `tokenizer`, those present,
    as the bounders' keyword arguments (absent: no token limit)."""
    return {k: vector[k] for k in ("max_tokens", "tokenizer") if vector.get(k) is not None}


def tokenizer_refused(options: dict[str, Any]) -> bool:
    """Whether this build lacks the tokenizer `options` name (a vector, or
    a run's options): a name outside `TOKENIZERS` that the core refuses,
    as `InvalidArgument` with argument `tokenizer` (asserted here). A
    runner then checks that every bounder refuses it, instead of the
    vector's expectation (VECTORS.md). `max_tokens` alone means
    `"o200k_base"`, which the wheel has."""
    name = options.get("tokenizer")
    if name is None or name in dw.TOKENIZERS:
        return False
    try:
        dw.count_tokens("", name)
    except dw.InvalidArgument as err:
        refused = err
    else:
        return False  # another spelling of a tokenizer this build has
    assert refused.argument == "tokenizer", refused
    return True


def check_tokens(options: dict[str, Any], preview: dw.Preview) -> str | None:
    """What is wrong with `preview.tokens` under the token limit of
    `options` (None: nothing): with a tokenizer or `max_tokens`, the
    preview's text counted again with `count_tokens` is `tokens`, at most
    `max_tokens`; without either, `tokens` is None."""
    limit = token_options(options)
    if not limit:
        return None if preview.tokens is None else f"tokens {preview.tokens}, no token limit"
    counted = dw.count_tokens(preview.text, limit.get("tokenizer"))
    if preview.tokens != counted:
        return f"tokens {preview.tokens}, the text counts {counted}"
    if counted > limit.get("max_tokens", counted):
        return f"{counted} tokens > max_tokens {limit['max_tokens']}"
    return None


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def event_json(event: dw.Event) -> dict[str, Any]:
    """An event in the vectors' shape."""
    if isinstance(event, dw.Started):
        return {"type": "started", "proc_id": event.proc_id}
    if isinstance(event, dw.Output):
        return {
            "type": event.stream,
            "data_b64": b64(event.data),
            "start": event.start,
            "end": event.end,
        }
    if isinstance(event, dw.Skipped):
        return {"type": "skipped", "stream": event.stream, "from": event.start, "to": event.end}
    if isinstance(event, dw.Heartbeat):
        return {"type": "heartbeat"}
    if isinstance(event, (dw.Exit, dw.Unknown, dw.Identity)):
        # Named as the core's record table names them (their __match_args__).
        return {"type": _RECORD_NAMES[type(event)], **_fields(event)}
    if isinstance(event, dw.ExecResult):
        return {
            "type": "result",
            "proc_id": event.proc_id,
            "stdout_b64": b64(event.stdout),
            "stderr_b64": b64(event.stderr),
            "stdout_truncated": event.stdout_truncated,
            "stderr_truncated": event.stderr_truncated,
            "exit_code": event.exit_code,
            "timed_out": event.timed_out,
        }
    raise AssertionError(f"not an event: {event!r}")


_RECORD_NAMES: dict[type, str] = {
    dw.Exit: "exit",
    dw.Unknown: "unknown",
    dw.Identity: "identity",
}


def _fields(value: Any) -> dict[str, Any]:
    """A value class's fields under their names (the core's record table)."""
    return {name: getattr(value, name) for name in value.__match_args__}


def cursor_json(cursor: dw.Cursor) -> dict[str, int]:
    return {"stdout": cursor.stdout, "stderr": cursor.stderr}


def end_json(end: dw.End) -> dict[str, Any]:
    """An end in the vectors' shape."""
    if isinstance(end, dw.Exited):
        return {"type": "exited", **_fields(end)}
    if isinstance(end, dw.Disconnected):
        return {"type": "disconnected", "reason": end.reason}
    if isinstance(end, dw.Document):
        return {"type": "document"}
    raise AssertionError(f"not an end: {end!r}")


def error_json(err: dw.DoryWireError) -> dict[str, Any]:
    """An error end in the vectors' shape (fields where they apply)."""
    out: dict[str, Any] = {"type": "error", "code": err.code}
    if isinstance(err, dw.OutputGap):
        assert err.consumed is not None
        assert err.earliest is not None
        out["stream"] = err.stream
        out["consumed"] = cursor_json(err.consumed)
        out["earliest"] = cursor_json(err.earliest)
    if isinstance(err, dw.ApiError):
        out["status"] = err.status
        out["api_code"] = err.api_code
    return out


def body_of(vector: dict[str, Any]) -> bytes:
    if "body_b64" in vector:
        return base64.b64decode(vector["body_b64"], validate=True)
    body: str = vector["body"]
    return body.encode("utf-8")


def decode(vector: dict[str, Any], chunks: list[bytes]) -> dict[str, Any]:
    """Runs a decode vector over the given split of its body; returns the
    observed `events`, `end` and `cursor` in the vectors' shapes."""
    kwargs: dict[str, Any] = {}
    if "cursor" in vector:
        kwargs["cursor"] = vector["cursor"]
    if "gap_policy" in vector:
        kwargs["gap_policy"] = vector["gap_policy"]
    if "max_frame_bytes" in vector:
        kwargs["max_frame_bytes"] = vector["max_frame_bytes"]
    if vector.get("strict"):
        kwargs["strict"] = True
    reader = dw.Reader(vector["endpoint"], **kwargs)
    events: list[dw.Event] = []
    end: dict[str, Any]
    try:
        reader.open(vector["status"], vector.get("content_type"), vector.get("process_id_header"))
        for chunk in chunks:
            events.extend(reader.feed(chunk))
        last, finished = reader.finish()
        events.extend(last)
        end = end_json(finished)
    except dw.DoryWireError as err:
        events.extend(err.events)
        end = error_json(err)
    return {
        "events": [event_json(e) for e in events],
        "end": end,
        "cursor": cursor_json(reader.cursor),
    }


# ---- kind "conversation" (VECTORS.md): a whole read driven through a Follower

FOLLOW_OPTION_KEYS = {
    "follow": "follow",
    "gap_policy": "gap_policy",
    "retries": "retries",
    "jitter": "jitter",
    "max_frame_bytes": "max_frame_bytes",
    "strict": "strict",
}
FOLLOW_MS_KEYS = {
    "backoff_ms": "backoff_seconds",
    "max_backoff_ms": "max_backoff_seconds",
    "liveness_timeout_ms": "liveness_timeout_seconds",
}


def stall_wait(follower: dw.Follower) -> tuple[float | None, bool, bool]:
    """A `stall` (VECTORS.md): the wait for the service runs out. Returns
    the wait limit the follower offers (a whole liveness timeout), whether
    a wait of nothing is over (it must not be) and whether a wait of the
    whole liveness timeout is (it must be)."""
    liveness = follower.options["liveness_timeout_seconds"]
    limit = follower.wait_limit_seconds()
    return (limit, follower.waited_seconds(0.0), follower.waited_seconds(liveness))


def follow_options(vector: dict[str, Any]) -> dict[str, Any]:
    """The vector's `options` as Follower keyword arguments (absent ones
    are left to the core's defaults)."""
    out: dict[str, Any] = {}
    for key, value in vector.get("options", {}).items():
        if key in FOLLOW_OPTION_KEYS:
            out[FOLLOW_OPTION_KEYS[key]] = value
        elif key in FOLLOW_MS_KEYS:
            out[FOLLOW_MS_KEYS[key]] = value / 1000
        else:
            raise AssertionError(f"unknown option {key!r}")
    return out


def follower_of(vector: dict[str, Any]) -> dw.Follower:
    """The follower of the vector's `read`, with its options."""
    read = vector["read"]
    options = follow_options(vector)
    kind = read["type"]
    if kind == "process_output":
        return dw.Follower.process_output(
            read["computer_id"], read["proc_id"], cursor=read.get("cursor"), **options
        )
    if kind == "resume":
        state = dw.ResumeState.from_json(json.dumps(read["state"]))
        return dw.Follower.resume(read["computer_id"], state, **options)
    if kind == "setup_logs":
        return dw.Follower.setup_logs(read["computer_id"], read.get("offset", 0), **options)
    # The one-answer calls (PROTOCOL.md, "One-answer calls").
    if kind in ("start", "exec"):
        build = dw.Request.start if kind == "start" else dw.Request.exec
        request = build(
            read["computer_id"],
            read["command"],
            timeout_seconds=read.get("timeout_seconds"),
            idempotency_key=read.get("idempotency_key"),
        )
        return dw.Follower.call(request, **options)
    if kind == "get_process":
        return dw.Follower.call(
            dw.Request.get_process(read["computer_id"], read["proc_id"]), **options
        )
    if kind == "kill":
        return dw.Follower.call(dw.Request.kill(read["computer_id"], read["proc_id"]), **options)
    if kind == "exec_stream":
        return dw.Follower.exec_stream(
            read["computer_id"],
            read["command"],
            timeout_seconds=read.get("timeout_seconds"),
            idempotency_key=read.get("idempotency_key"),
            **options,
        )
    raise AssertionError(f"unknown read type {kind!r}")


def request_json(request: dw.Request) -> dict[str, Any]:
    """A request in the vectors' shape (the body as the JSON value it holds)."""
    return {
        "method": request.method,
        "target": request.target,
        "headers": dict(request.headers),
        "body": None if request.body is None else json.loads(request.body),
    }


def decision_json(decision: dw.Decision) -> dict[str, Any]:
    """A decision in the vectors' shape."""
    if isinstance(decision, dw.Done):
        return {
            "type": "done",
            "exited": decision.exited,
            "exit_code": decision.exit_code,
            "timed_out": decision.timed_out,
            "cursor": cursor_json(decision.cursor),
            "proc_id": decision.proc_id,
        }
    if isinstance(decision, dw.Reconnect):
        return {
            "type": "reconnect",
            "attempt": decision.attempt,
            "failures": decision.failures,
            "reason": decision.reason,
            "cursor": cursor_json(decision.cursor),
            "delay_ms": decision.delay_seconds * 1000,
            "proc_id": decision.proc_id,
            "detail": decision.detail,
        }
    if isinstance(decision, dw.Continue):
        return {"type": "continue"}
    raise AssertionError(f"not a decision: {decision!r}")


def field_json(value: Any) -> Any:
    return cursor_json(value) if isinstance(value, dw.Cursor) else value


def error_decision_json(err: dw.DoryWireError) -> dict[str, Any]:
    """An error decision: its code and every field of its code (the vectors
    name them as the core's table does)."""
    out: dict[str, Any] = {"type": "error", "code": err.code}
    for name in err.fields:
        out[name] = field_json(getattr(err, name))
    return out


def response_body(response: dict[str, Any]) -> bytes:
    if "body_b64" in response:
        return base64.b64decode(response["body_b64"], validate=True)
    body: str = response.get("body", "")
    return body.encode("utf-8")


Split = Callable[[int], list[int]]
"""The cut points of a body of the given length."""

CHUNK_TYPES: tuple[Callable[[bytes], Any], ...] = (bytes, bytearray, memoryview)


def converse(vector: dict[str, Any], split: Split, *, into: bool = False) -> dict[str, Any]:
    """Plays a conversation vector, each body cut at `split(len(body))`
    (pieces fed as bytes, bytearray and memoryview in turn); with `into`,
    through `feed_into` and a Transcript. Returns what was observed: the
    `requests` and `decisions` (vector shapes), the `events` (vector shapes;
    with `into`, the events other than output, and the transcript's bytes
    as `stdout`/`stderr`), the follower's `cursor` and `proc_id`."""
    run: dict[str, Any] = {"requests": [], "decisions": [], "events": [], "stalls": []}
    events: list[dw.Event] = []
    transcript = dw.Transcript()
    try:
        follower = follower_of(vector)
    except dw.DoryWireError as err:
        run["decisions"].append(error_decision_json(err))
        if into:
            run["stdout"] = run["stderr"] = b""
        run["cursor"] = run["proc_id"] = run["state"] = None
        return run
    liveness = follower.options["liveness_timeout_seconds"]
    for exchange in vector["exchanges"]:
        try:
            request = follower.request()
        except dw.DoryWireError as err:
            run["decisions"].append(error_decision_json(err))
            break
        run["requests"].append(request_json(request))
        response = exchange["response"]
        jitter = exchange.get("jitter", 0)
        stall = bool(response.get("stall"))
        decision: dw.Decision
        try:
            if "not_connected" in response:
                decision = follower.not_connected(response["not_connected"], jitter)
            elif "no_response" in response or (stall and "status" not in response):
                if stall:
                    # The wait for the headers runs out.
                    run["stalls"].append((liveness, *stall_wait(follower)))
                decision = follower.no_response(response.get("no_response", ""), jitter)
            else:
                follower.open(
                    response["status"],
                    response.get("content_type"),
                    response.get("proc_id"),
                    response.get("retry_after"),
                )
                body = response_body(response)
                bounds = [0, *split(len(body)), len(body)]
                for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
                    chunk = CHUNK_TYPES[i % 3](body[a:b])
                    if into:
                        events.extend(follower.feed_into(chunk, transcript))
                    else:
                        events.extend(follower.feed(chunk))
                    if follower.state == "failed":
                        # The deferred-error rule: the events came back; the
                        # error is the next call's. The rest is not played.
                        break
                if stall and follower.state != "failed":
                    # The wait for more of the body runs out.
                    run["stalls"].append((liveness, *stall_wait(follower)))
                last, decision = follower.finish(response.get("broken"), jitter)
                events.extend(last)
                for event in last if into else ():
                    transcript.push(event)
        except dw.DoryWireError as err:
            events.extend(err.events)
            for event in err.events if into else ():
                transcript.push(event)
            run["decisions"].append(error_decision_json(err))
            break
        run["decisions"].append(decision_json(decision))
    run["events"] = [event_json(e) for e in events]
    if into:
        run["stdout"] = transcript.bytes("stdout")
        run["stderr"] = transcript.bytes("stderr")
    run["cursor"] = cursor_json(follower.cursor)
    run["proc_id"] = follower.proc_id
    run["state"] = follower.state
    return run


def subset_matches(expected: Any, actual: Any) -> bool:
    """Whether `actual` holds every key of `expected` with an equal value
    (recursively into objects; anything else compared whole)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and subset_matches(v, actual[k]) for k, v in expected.items())
    return bool(expected == actual)


def output_bytes(events: list[dict[str, Any]], stream: str) -> bytes:
    """The concatenated output of `stream` among events in the vectors' shape."""
    return b"".join(base64.b64decode(e["data_b64"]) for e in events if e["type"] == stream)


def expected_bytes(expect: dict[str, Any], stream: str) -> bytes | None:
    if stream in expect:
        text: str = expect[stream]
        return text.encode("utf-8")
    if f"{stream}_b64" in expect:
        return base64.b64decode(expect[f"{stream}_b64"], validate=True)
    return None


def conversation_problems(vector: dict[str, Any], run: dict[str, Any]) -> list[str]:
    """How a run differs from the vector (empty: it agrees)."""
    problems: list[str] = []
    exchanges = vector["exchanges"]
    if len(run["decisions"]) != len(exchanges):
        problems.append(
            f"{len(exchanges)} exchanges scripted, the conversation had "
            f"{len(run['decisions'])}: {run['decisions']}"
        )
    for i, exchange in enumerate(exchanges):
        if "request" in exchange and i < len(run["requests"]):
            expected = {"body": None, **exchange["request"]}
            if expected != run["requests"][i]:
                problems.append(f"request {i}: expected {expected}, got {run['requests'][i]}")
        if "decision" in exchange and i < len(run["decisions"]):
            expected = dict(exchange["decision"])
            got = dict(run["decisions"][i])
            want_delay = expected.pop("delay_ms", None)
            got_delay = got.pop("delay_ms", None)
            delay_ok = want_delay is None or (
                got_delay is not None and abs(want_delay - got_delay) < 1e-3
            )
            if not (delay_ok and subset_matches(expected, got)):
                problems.append(
                    f"decision {i}: expected {exchange['decision']}, got {run['decisions'][i]}"
                )
    last = exchanges[-1].get("decision", {}).get("type")
    if last not in ("done", "error"):
        problems.append(f"the last decision must be done or error, not {last}")
    for liveness, limit, over_at_once, over in run["stalls"]:
        if limit != liveness or over_at_once or not over:
            problems.append(
                "the wait did not run out as the stall protocol says: "
                f"liveness {liveness}, wait limit {limit}, "
                f"over after 0 s {over_at_once}, over after the liveness timeout {over}"
            )
    expect = vector["expect"]
    for stream in ("stdout", "stderr"):
        want = expected_bytes(expect, stream)
        got = run[stream] if stream in run else output_bytes(run["events"], stream)
        if want is not None and got != want:
            problems.append(f"{stream}: expected {want!r}, got {got!r}")
    skipped = [e for e in run["events"] if e["type"] == "skipped"]
    if skipped != expect.get("skipped", []):
        problems.append(f"skipped: expected {expect.get('skipped', [])}, got {skipped}")
    if "exit" in expect:
        exits = [e for e in run["events"] if e["type"] == "exit"]
        got_exit = (
            {"exit_code": exits[0]["exit_code"], "timed_out": exits[0]["timed_out"]}
            if exits
            else None
        )
        if got_exit != expect["exit"]:
            problems.append(f"exit: expected {expect['exit']}, got {got_exit}")
    for key in ("cursor", "proc_id"):
        if key in expect and expect[key] != run[key]:
            problems.append(f"{key}: expected {expect[key]}, got {run[key]}")
    if "events" in expect:
        events = [e for e in run["events"] if e["type"] not in ("stdout", "stderr")]
        if expect["events"] != events:
            problems.append(f"events: expected {expect['events']}, got {events}")
    return problems


# ---- kind "run" (VECTORS.md): a run's three views through a RunBounder

RUN_VIEWS = ("stdout", "stderr", "combined")
# What a failing writer's outcome says in the run vectors (only its presence
# is compared: `spill_error` is a bool there).
RUN_WRITER_FAILED = "the writer failed"

RunItem = tuple[str, str, Any]
"""("output", stream, bytes) or ("lost", stream, (from, to))."""


def run_items(vector: dict[str, Any]) -> list[RunItem]:
    """The input of a run vector: outputs (`stdout`, `stderr`, or `…_b64`)
    and lost ranges (`{"lost": stream, "from": A, "to": B}`), in order."""
    items: list[RunItem] = []
    for item in vector["input"]:
        if "lost" in item:
            items.append(("lost", item["lost"], (item["from"], item["to"])))
            continue
        ((key, value),) = item.items()
        if key.endswith("_b64"):
            items.append(("output", key[: -len("_b64")], base64.b64decode(value, validate=True)))
        else:
            items.append(("output", key, value.encode("utf-8")))
    return items


def run_outcome(vector: dict[str, Any], view: str) -> dict[str, str]:
    """The keywords of `RunPending.render` for `view`'s spill in `vector`."""
    spec = (vector.get("spill") or {}).get(view)
    if not spec:
        return {}
    if spec.get("fails"):
        return {"spill_error": RUN_WRITER_FAILED}
    return {"spill_path": spec.get("path", "")}


def run_options(vector: dict[str, Any]) -> dict[str, Any]:
    """The vector's `keep` and `terminal` (absent: off) and its token limit
    (`max_tokens`, `tokenizer`, when present) as keyword arguments."""
    return {
        "keep": vector.get("keep"),
        "terminal": vector.get("terminal", False),
        **token_options(vector),
    }


def play_run(vector: dict[str, Any], items: list[RunItem]) -> dict[str, Any]:
    """The run's result in the vectors' shape (`{view: {...}}`), or
    `{"error": {"code": ...}}` when the core raised one of its errors."""
    try:
        run = dw.RunBounder(
            vector["max_lines"],
            vector["max_bytes"],
            spill_id=vector["spill_id"],
            **run_options(vector),
        )
    except dw.InvalidArgument as err:
        # A refused keep pattern (docs/VECTORS.md), when the bounder is built.
        return {"error": {"code": err.code}}
    for kind, stream, value in items:
        if kind == "output":
            run.push(stream, value)
        else:
            run.lose(stream, *value)
    try:
        pending = run.finish()
    except dw.DoryWireError as err:
        return {"error": {"code": err.code}}
    out: dict[str, Any] = {}
    for view in RUN_VIEWS:
        preview = pending.render(view, hint=vector.get("hint"), **run_outcome(vector, view))
        lost_bytes, lost_ranges = pending.lost(view)
        out[view] = {
            "preview": preview.text,
            "truncated": preview.truncated,
            "total_bytes": pending.total_bytes(view),
            "lost_bytes": lost_bytes,
            "lost_ranges": lost_ranges,
            "needs_spill": pending.needs_spill(view),
            "spill_id": pending.spill_id(view),
            "spill_path": preview.spill_path,
            "spill_error": preview.spill_error is not None,
            "tokens": preview.tokens,
        }
        problem = check_tokens(vector, preview)
        if problem is not None:
            out[view]["token_problem"] = problem
    return out


def resplit_run(items: list[RunItem], rng: Any, byte_by_byte: bool) -> list[RunItem]:
    """The same items with every output split at seeded points (the Rust
    runner's `resplit`: the same generator calls, so the same splits)."""
    out: list[RunItem] = []
    for kind, stream, value in items:
        if kind != "output":
            out.append((kind, stream, value))
            continue
        rest: bytes = value
        while rest:
            n = 1 if byte_by_byte else 1 + rng.below(len(rest))
            out.append(("output", stream, rest[:n]))
            rest = rest[n:]
    return out


def lines_of(text: str) -> int:
    """Lines of a preview (a final run without `\\n` counts as one)."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def view_bytes(items: list[RunItem], view: str) -> bytes:
    """The bytes of `view` among `items` (lost ranges absent)."""
    return b"".join(
        value for kind, stream, value in items if kind == "output" and view in ("combined", stream)
    )


def run_problems(vector: dict[str, Any], expect: dict[str, Any]) -> list[str]:
    """How playing `vector` differs from `expect` and the run invariants:
    each expected field of each view, both limits, each view without loss or
    stderr section equal to `bound()` of its bytes (spill id
    `<spill_id>-<view>`), and the same result byte by byte and at the Rust
    runner's seeded splits. Empty: it agrees."""
    from splitmix import SplitMix64

    items = run_items(vector)
    if tokenizer_refused(vector):
        # A tokenizer this build lacks (VECTORS.md): the bounders refuse it.
        try:
            dw.RunBounder(vector["max_lines"], vector["max_bytes"], **run_options(vector))
        except dw.InvalidArgument as err:
            if err.argument == "tokenizer":
                return []
            return [f"the tokenizer was refused as argument {err.argument!r}"]
        return [f"the tokenizer {vector['tokenizer']!r} is not refused"]
    got = play_run(vector, items)
    if "error" in expect or "error" in got:
        if got != {"error": expect.get("error")}:
            return [f"expected {expect}, got {got}"]
        return []
    problems: list[str] = []
    max_lines, max_bytes = vector["max_lines"], vector["max_bytes"]
    for view in RUN_VIEWS:
        want = expect.get(view)
        if not isinstance(want, dict):
            problems.append(f"expect.{view} missing")
            continue
        have = got[view]
        for key, value in want.items():
            if have.get(key, "<missing>") != value:
                problems.append(
                    f"{view}.{key}: got {have.get(key, '<missing>')!r} expected {value!r}"
                )
        if "token_problem" in have:
            problems.append(f"{view}: {have['token_problem']}")
        text = have["preview"]
        if len(text.encode("utf-8")) > max_bytes or lines_of(text) > max_lines:
            problems.append(
                f"{view}: {len(text.encode())} bytes, {lines_of(text)} lines over the limits"
            )
        if have["lost_bytes"] == 0 and "[... the last " not in text:
            outcome = run_outcome(vector, view)
            whole = dw.Bounder(max_lines, max_bytes, **run_options(vector)).bound(
                view_bytes(items, view), spill_id=f"{vector['spill_id']}-{view}"
            )
            if isinstance(whole, dw.PendingSpill):
                whole = whole.render(hint=vector.get("hint"), **outcome)
            if whole.text != text:
                problems.append(
                    f"{view}: differs from bound() of its bytes:\n{whole.text}\n---\n{text}"
                )
    rng = SplitMix64(0x5EED_0000 + len(items))
    for round_ in range(7):
        again = play_run(vector, resplit_run(items, rng, round_ == 0))
        if again != got:
            problems.append(f"split round {round_} gives another result")
    return problems


# ---- kind "run-conversation" (VECTORS.md): the agent call through a Run

RUN_VIEW_NAMES = ("stdout", "stderr", "combined")


def run_machine_of(vector: dict[str, Any]) -> dw.Run:
    """The Run of the vector's `run`, with its follow options."""
    r = vector["run"]
    kwargs: dict[str, Any] = follow_options(vector)
    # keep and terminal: absent, the run's defaults (the default patterns, on).
    for key in (
        "idempotency_key",
        "timeout_seconds",
        "hint",
        "max_lines",
        "max_bytes",
        "max_tokens",
        "tokenizer",
        "keep",
        "terminal",
    ):
        if key in r:
            kwargs[key] = r[key]
    for key in ("kill_on_cancel", "spill", "on_output"):
        kwargs[key] = bool(r.get(key, False))
    if "answer_timeout_ms" in r:
        kwargs["answer_timeout_seconds"] = r["answer_timeout_ms"] / 1000
    random_bytes = bytes.fromhex(r["random_hex"]) if "random_hex" in r else bytes(16)
    return dw.Run(r["computer_id"], r["command"], random=random_bytes, **kwargs)


def run_step_json(step: tuple[Any, ...]) -> dict[str, Any]:
    """A run's step in the vectors' shape."""
    if step[0] == "wait":
        record = step[2]
        reconnect = None
        if record is not None:
            reconnect = decision_json(record)
            del reconnect["type"]
        return {"type": "wait", "delay_ms": step[1] * 1000, "reconnect": reconnect}
    return {"type": step[0]}


def preview_json(preview: dw.Preview) -> dict[str, Any]:
    return {
        key: getattr(preview, key)
        for key in (
            "text",
            "truncated",
            "total_bytes",
            "total_lines",
            "spill_id",
            "spill_path",
            "spill_error",
            "tokens",
        )
    }


def run_result_json(result: dict[str, Any]) -> dict[str, Any]:
    """`Run.result()` in the vectors' shape."""
    return {
        key: preview_json(value) if key in RUN_VIEW_NAMES else value
        for key, value in result.items()
    }


def writer_exception(text: str) -> BaseException:
    """The exception whose description is `text` ("OSError: disk full"):
    a builtin class of that name, with that message."""
    import builtins

    name, _, message = text.partition(": ")
    cls = getattr(builtins, name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        raise AssertionError(f"no builtin exception {name!r}")
    return cls(message)


class RunClient:
    """The runner's client: a spill writer that records each view's bytes
    (or fails as the vector's `spill_writer` says) and an output hook that
    records; order problems (a write before the open, anything after the
    end) are noted."""

    def __init__(self, vector: dict[str, Any]) -> None:
        self.files: dict[str, dict[str, Any]] = {}
        self.output: dict[str, list[Any]] = {}
        self.fail: dict[str, Any] | None = vector.get("spill_writer")
        self.failed: list[str] = []
        self.commits: list[str] = []

    def _fails(self, view: str, at: str) -> bool:
        return self.fail is not None and self.fail["view"] == view and self.fail["at"] == at

    def _file(self, view: str) -> dict[str, Any]:
        return self.files.setdefault(
            view, {"spill_id": "", "data": b"", "end": None, "problems": []}
        )

    def act(self, actions: list[tuple[Any, ...]]) -> None:
        for action in actions:
            kind, view = action[0], action[1]
            if kind == "open_spill":
                file = self._file(view)
                if file["spill_id"]:
                    file["problems"].append("opened twice")
                file["spill_id"] = action[2]
                if self._fails(view, "open"):
                    file["end"] = "failed"
                    self.failed.append(view)
            elif kind == "write_spill":
                file = self._file(view)
                if not file["spill_id"]:
                    file["problems"].append("a write before the open")
                if not isinstance(action[2], bytes):
                    file["problems"].append(f"data is {type(action[2]).__name__}, not bytes")
                if file["end"] == "failed":
                    pass  # the writer failed: nothing more
                elif file["end"] is not None:
                    file["problems"].append(f"a write after {file['end']}")
                elif self._fails(view, "write"):
                    file["end"] = "failed"
                    self.failed.append(view)
                else:
                    file["data"] += action[2]
            elif kind == "commit_spill":
                file = self._file(view)
                if file["end"] is not None:
                    file["problems"].append("a commit after its end")
                file["end"] = "failed" if self._fails(view, "commit") else "commit"
                self.commits.append(view)
            elif kind == "discard_spill":
                file = self._file(view)
                if file["end"] not in (None, "failed"):
                    file["problems"].append("a discard after its end")
                if file["end"] is None:
                    file["end"] = "discard"
            elif kind == "output":
                out = self.output.setdefault(view, [b"", ""])
                out[0] += action[2]
                out[1] += action[3]
            else:
                raise AssertionError(f"unknown action {action!r}")

    def _error(self) -> BaseException:
        assert self.fail is not None
        return writer_exception(self.fail.get("error", "OSError: "))

    def report(self, run: dw.Run) -> None:
        """The writer's failures, reported after the call that gave them."""
        failed, self.failed = self.failed, []
        for view in failed:
            run.spill_failed(view, self._error())

    def commit(self, run: dw.Run) -> None:
        """Each commit's outcome."""
        commits, self.commits = self.commits, []
        for view in commits:
            if self.files[view]["end"] == "failed":
                run.spill_committed(view, raised=self._error())
            else:
                run.spill_committed(view, returned=f"/spill/{run.spill_id(view)}")


def play_run_conversation(vector: dict[str, Any], split: Split) -> dict[str, Any]:
    """Plays a run-conversation vector, each body cut at `split(len(body))`
    (pieces as bytes, bytearray and memoryview in turn). Returns what was
    observed: `requests`, `steps`, the client's `files` and `output`, the
    `result` and the run's `state`."""
    client = RunClient(vector)
    played: dict[str, Any] = {"requests": [], "steps": [], "result": None, "state": "failed"}

    def observed() -> dict[str, Any]:
        played["files"] = client.files
        played["output"] = client.output
        return played

    try:
        run = run_machine_of(vector)
    except dw.DoryWireError as err:
        played["steps"].append(error_decision_json(err))
        return observed()
    for exchange in vector["exchanges"]:
        try:
            if "request" not in exchange:
                actions, step = run.cancel()
                client.act(actions)
            else:
                step = play_run_exchange(run, exchange, client, played["requests"], split)
        except dw.DoryWireError as err:
            client.act(list(getattr(err, "events", ())))
            played["steps"].append(error_decision_json(err))
            break
        played["steps"].append(run_step_json(step))
        if step[0] == "done":
            client.commit(run)
            try:
                played["result"] = run_result_json(run.result())
            except dw.DoryWireError as err:
                played["result"] = error_decision_json(err)
    played["state"] = run.state
    return observed()


def play_run_exchange(
    run: dw.Run,
    exchange: dict[str, Any],
    client: RunClient,
    requests: list[dict[str, Any]],
    split: Split,
) -> tuple[Any, ...]:
    """One exchange: the run's request, then its answer played as the
    vector says; the step it gave (its errors are raised)."""
    requests.append(request_json(run.request()))
    cancel = bool(exchange.get("cancel"))
    response = exchange.get("response")

    def cancelled() -> tuple[Any, ...]:
        actions, step = run.cancel()
        client.act(actions)
        return step

    if response is None:
        assert cancel, "an exchange without a response cancels"
        return cancelled()
    jitter = exchange.get("jitter", 0)
    stall = bool(response.get("stall"))
    if "not_connected" in response:
        return run.not_connected(response["not_connected"], jitter)
    if "no_response" in response or (stall and "status" not in response):
        if stall:
            limit = run.wait_limit_seconds()
            assert limit is not None, "a bounded wait for the headers"
            assert run.waited_seconds(limit), "the headers wait is over"
        return run.no_response(response.get("no_response", ""), jitter)
    run.open(
        response["status"],
        response.get("content_type"),
        response.get("proc_id"),
        response.get("retry_after"),
    )
    trickled = False
    failed = False
    if "pieces" in response:
        for piece in response["pieces"]:
            if run.waited_seconds(piece["wait_ms"] / 1000):
                trickled = True
                break
            client.act(run.feed(piece["body"].encode("utf-8")))
            client.report(run)
            if run.state == "failed":
                failed = True
                break
    else:
        body = response_body(response)
        bounds = [0, *split(len(body)), len(body)]
        for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
            client.act(run.feed(CHUNK_TYPES[i % 3](body[a:b])))
            client.report(run)
            if run.state == "failed":
                # The deferred-error rule: the actions came back; the error
                # is the next call's.
                failed = True
                break
    if cancel and not failed:
        return cancelled()
    if stall and not trickled and not failed:
        limit = run.wait_limit_seconds()
        assert limit is not None, "a bounded wait for the body"
        assert run.waited_seconds(limit), "the stream stalls"
    broken = None if trickled else response.get("broken")
    actions, step = run.finish(broken, jitter)
    client.act(actions)
    client.report(run)
    return step


def step_matches(expected: dict[str, Any], got: dict[str, Any]) -> bool:
    """A step against the vector's: delays within 1e-3 ms, a `null`
    reconnect only null, the rest a subset."""
    e = copy.deepcopy(expected)
    g = copy.deepcopy(got)

    def delays(v: dict[str, Any]) -> list[float]:
        out = []
        if "delay_ms" in v:
            out.append(v.pop("delay_ms"))
        if isinstance(v.get("reconnect"), dict) and "delay_ms" in v["reconnect"]:
            out.append(v["reconnect"].pop("delay_ms"))
        return out

    ed, gd = delays(e), delays(g)
    delays_ok = len(ed) <= len(gd) and all(abs(a - b) < 1e-3 for a, b in zip(ed, gd))
    reconnect_ok = not ("reconnect" in e and e["reconnect"] is None) or g.get("reconnect") is None
    return delays_ok and reconnect_ok and subset_matches(e, g)


def bytes_of(value: dict[str, Any], key: str) -> bytes | None:
    if key in value:
        text: str = value[key]
        return text.encode("utf-8")
    if f"{key}_b64" in value:
        return base64.b64decode(value[f"{key}_b64"], validate=True)
    return None


def run_conversation_problems(vector: dict[str, Any], played: dict[str, Any]) -> list[str]:
    """How a play differs from the vector (empty: it agrees)."""
    problems: list[str] = []
    exchanges = vector["exchanges"]
    if len(played["steps"]) != len(exchanges):
        problems.append(
            f"{len(exchanges)} exchanges scripted, the run had {len(played['steps'])}: "
            f"{played['steps']}"
        )
    expected_requests = [e["request"] for e in exchanges if "request" in e]
    for i, (want, got) in enumerate(zip(expected_requests, played["requests"])):
        want = {"body": None, **want}
        if want != got:
            problems.append(f"request {i}: expected {want}, got {got}")
    for i, (exchange, got) in enumerate(zip(exchanges, played["steps"])):
        if "step" not in exchange:
            problems.append(f"exchange {i} has no step")
        elif not step_matches(exchange["step"], got):
            problems.append(f"step {i}: expected {exchange['step']}, got {got}")
    expect = vector["expect"]
    if "state" in expect and expect["state"] != played["state"]:
        problems.append(f"state: expected {expect['state']}, got {played['state']}")
    spills = expect.get("spills", {})
    for view, file in played["files"].items():
        problems.extend(f"spill {view}: {p}" for p in file["problems"])
        if view not in spills:
            problems.append(f"spill {view} was opened, the vector has none")
            continue
        want = spills[view]
        if "spill_id" in want and want["spill_id"] != file["spill_id"]:
            problems.append(f"spill {view} id {file['spill_id']} not {want['spill_id']}")
        data = bytes_of(want, "data")
        if data is not None and data != file["data"]:
            problems.append(f"spill {view} data: expected {data!r}, got {file['data']!r}")
        end = file["end"] or "open"
        if want.get("end") != end:
            problems.append(f"spill {view} ended {end}, expected {want.get('end')}")
    problems.extend(
        f"spill {view} was never opened" for view in spills if view not in played["files"]
    )
    output = expect.get("output", {})
    for stream, (data, text) in played["output"].items():
        if stream not in output:
            problems.append(f"the hook got {stream}, the vector has none")
            continue
        want_data = bytes_of(output[stream], "data")
        if want_data is not None and want_data != data:
            problems.append(f"output {stream} data: expected {want_data!r}, got {data!r}")
        if output[stream].get("text") != text:
            problems.append(
                f"output {stream} text: expected {output[stream].get('text')!r}, got {text!r}"
            )
    problems.extend(
        f"the hook never got {stream}" for stream in output if stream not in played["output"]
    )
    want_result = expect.get("result")
    got_result = played["result"]
    if (want_result is None) != (got_result is None) or (
        want_result is not None and not subset_matches(want_result, got_result)
    ):
        problems.append(f"result: expected {want_result}, got {got_result}")
    return problems


# ---- kind "search" (VECTORS.md): a saved output searched through a Searcher

SEARCH_FIELDS = (
    "text",
    "truncated",
    "total_lines",
    "total_bytes",
    "matched_lines",
    "shown_lines",
    "omitted_lines",
    "partial_line",
    "long_lines",
    "first_long_line",
    "spill_path",
    "command",
)


def search_input(vector: dict[str, Any]) -> bytes:
    if "input_b64" in vector:
        return base64.b64decode(vector["input_b64"], validate=True)
    return str(vector["input"]).encode("utf-8")


def search(vector: dict[str, Any], chunks: list[Any]) -> dict[str, Any]:
    """The result of the vector's search over `chunks`, as VECTORS.md's JSON."""
    options = {
        k: vector[k] for k in ("context", "max_lines", "max_bytes", "ignore_case") if k in vector
    }
    try:
        searcher = dw.Searcher(vector["pattern"], **options)
    except dw.DoryWireError as err:
        error: dict[str, Any] = {"code": err.code}
        if isinstance(err, dw.InvalidArgument):
            error["argument"] = err.argument
        return {"error": error}
    for chunk in chunks:
        searcher.push(chunk)
    result = searcher.finish(vector.get("path"))
    return {field: getattr(result, field) for field in SEARCH_FIELDS}


def search_problems(vector: dict[str, Any], expect: dict[str, Any]) -> list[str]:
    """What is wrong with the search of `vector` against `expect`: fed whole,
    byte by byte and at seeded splits (the same result each time), the keys
    of `expect`, both limits."""
    from splitmix import SplitMix64

    data = search_input(vector)
    splits: list[tuple[str, list[Any]]] = [
        ("bytewise", [data[i : i + 1] for i in range(len(data))])
    ]
    rng = SplitMix64(0x5EA4 ^ len(data))  # the seed of the Rust search runner
    kinds = (bytes, bytearray, memoryview)
    for _ in range(8):
        cuts = rng.cuts(len(data), 6)
        bounds = [0, *cuts, len(data)]
        chunks = [kinds[i % 3](data[a:b]) for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]
        splits.append((f"cuts {cuts}", chunks))
    whole = search(vector, [data])
    problems = [
        f"{name}: differs from the whole input"
        for name, chunks in splits
        if search(vector, chunks) != whole
    ]
    if not expect:
        problems.append("expect is empty")
    for key, want in expect.items():
        got = whole.get(key, "<missing>")
        if got != want:
            problems.append(f"{key}: got {got!r} expected {want!r}")
    text = whole.get("text")
    if isinstance(text, str) and (
        len(text.encode()) > vector.get("max_bytes", dw.DEFAULT_RUN_MAX_BYTES)
        or text.count("\n") > vector.get("max_lines", dw.DEFAULT_RUN_MAX_LINES)
    ):
        problems.append("the text is over the limits")
    return problems
