"""Every shared vector (tests/vectors/**/*.json, found by globbing) through
the WebAssembly component from Python, on wasmtime-py.

Decode vectors are fed whole, byte by byte (bodies over 8 KiB: their first
and last 4 KiB) and at the seeded random splits of the Python package's
runner, and must give the expected events, end and
cursor, the same every time; an error must be sticky. Conversation vectors
drive the exported `follower` through their exchanges (docs/VECTORS.md,
"kind conversation"): each request it asks for is compared, each response is
played (its body whole, byte by byte and at seeded random splits, the same
decisions every time; no response; a stall on the vector's clock) and each
decision compared, then the output of every event delivered. Preview vectors are
checked against their expectation and the invariants of docs/VECTORS.md
(the Python package's own checks); a vector's `max_tokens` and `tokenizer`
go to every bounder (whole, streaming, run), and each preview's `tokens` is
`count-tokens` of its text, within `max_tokens`; a tokenizer the component
lacks (not in `tokenizers()`) must be refused by every bounder as
`invalid_argument` (argument `tokenizer`);
bounding the preview again must give it back, and the streaming bounder fed
in random chunks must give the same preview. Run vectors are played through
the exported `run-bounder` whole, byte by byte, at the seeded splits of the
Rust runner and as the events `feed` takes, the same result every time; each
view's expected fields are compared, both limits checked, and a view without
losses or a stderr section must be `bound` of its bytes. Run-conversation
vectors drive the exported `run` resource (docs/VECTORS.md, "kind
run-conversation"): requests and steps compared, responses played with their
bodies whole, byte by byte and at seeded random splits (the same play every
time), the actions done by a recording spill writer and output hook, and the
result compared. Search vectors go through the exported `searcher` whole,
byte by byte (inputs up to 8 KiB) and at the Rust runner's seeded splits,
the same result every time, equal to their expectation. Last, wrong expectations of each kind must be reported (the
runner can fail).

    python tests/component/run_vectors.py      (prints "N passed, N failed")
"""

from __future__ import annotations

import base64
import json
import random
import sys
import time
import types
from types import SimpleNamespace
from typing import Any

from dory_component import (
    ROOT,
    DoryWire,
    Variant,
    field,
    follow_options,
    is_error,
    keep_variant,
    preview_options,
    record,
    result,
    run_options,
)

sys.path.insert(0, str(ROOT / "python" / "tests"))
# The Python package's own test helpers: its split generator, and the preview
# invariants of docs/VECTORS.md. preview_checks imports the package for its
# other helpers; check_invariants only reads a preview's attributes, so a
# stand-in module lets the very same checks run on the component's previews.
sys.modules.setdefault("dory_wire", types.ModuleType("dory_wire"))
from preview_checks import check_invariants  # noqa: E402
from splitmix import SplitMix64  # noqa: E402

VECTOR_DIR = ROOT / "tests" / "vectors"
FIXED_SPILL_ID = "0123456789abcdef0123456789abcdef"
# The tokenizer of a `max_tokens` without one (the core's DEFAULT_TOKENIZER,
# tests/api/surface.json): not in the component, which refuses it by name.
DEFAULT_TOKENIZER = "o200k_base"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def snake(name: str) -> str:
    return name.replace("-", "_")


def cursor_json(c: Any) -> dict[str, int]:
    return {"stdout": c.stdout, "stderr": c.stderr}


def record_fields(rec: Any) -> dict[str, Any]:
    """A lifted record's fields under their snake_case names (the core's
    record table names them; WIT spells them in kebab-case)."""
    return {name.replace("-", "_"): value for name, value in vars(rec).items()}


def event_json(e: Variant) -> dict[str, Any]:
    """A component event in the vectors' shape."""
    v = e.payload
    if e.tag == "started":
        return {"type": "started", "proc_id": field(v, "proc_id")}
    if e.tag == "output":
        return {"type": v.stream, "data_b64": b64(v.data), "start": v.start, "end": v.end}
    if e.tag == "skipped":
        return {"type": "skipped", "stream": v.stream, "from": v.start, "to": v.end}
    if e.tag == "heartbeat":
        return {"type": "heartbeat"}
    if e.tag in ("exit", "unknown", "identity"):
        return {"type": e.tag, **record_fields(v)}
    if e.tag == "exec-result":
        return {
            "type": "result",
            "proc_id": field(v, "proc_id"),
            "stdout_b64": b64(v.stdout),
            "stderr_b64": b64(v.stderr),
            "stdout_truncated": field(v, "stdout_truncated"),
            "stderr_truncated": field(v, "stderr_truncated"),
            "exit_code": field(v, "exit_code"),
            "timed_out": field(v, "timed_out"),
        }
    raise AssertionError(f"unknown event {e!r}")


def field_json(value: Any) -> Any:
    """The value of an error field (a tagged Variant) in the vectors' shape."""
    if value.tag == "cursor":
        return cursor_json(value.payload)
    return value.payload  # str, opt-str (None), u64, stream, boolean


def error_argument(err: Any) -> Any:
    """The `argument` field of an error record (None without one)."""
    for f in err.fields:
        if f.name == "argument":
            return f.value.payload if isinstance(f.value, Variant) else f.value
    return None


def error_json(err: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "code": err.code}
    for f in err.fields:
        out[f.name] = field_json(f.value)
    return out


def end_json(end: Variant) -> dict[str, Any]:
    v = end.payload
    if end.tag == "exited":
        return {"type": "exited", **record_fields(v)}
    if end.tag == "disconnected":
        return {"type": "disconnected", "reason": snake(v.reason), "cursor": cursor_json(v.cursor)}
    if end.tag == "document":
        return {"type": "document"}
    raise AssertionError(f"unknown end {end!r}")


def body_of(vector: dict[str, Any]) -> bytes:
    if "body_b64" in vector:
        return base64.b64decode(vector["body_b64"], validate=True)
    return str(vector.get("body", "")).encode("utf-8")


def decode(dw: DoryWire, v: dict[str, Any], chunks: list[bytes]) -> dict[str, Any]:
    cursor = v.get("cursor")
    reader = dw.reader(
        v["endpoint"].replace("_", "-"),
        cursor=(cursor.get("stdout", 0), cursor.get("stderr", 0)) if cursor else None,
        gap_policy=v.get("gap_policy"),
        max_frame_bytes=v.get("max_frame_bytes"),
        strict=v.get("strict"),
    )
    events: list[dict[str, Any]] = []
    failed = dw.method("reader", "open", reader, v["status"], v.get("content_type") or "", v.get("process_id_header"))
    if failed is None:
        for chunk in chunks:
            fed = dw.method("reader", "feed", reader, chunk)
            events.extend(event_json(e) for e in fed.events)
            if fed.error is not None:
                failed = fed.error
                break
    if failed is None:
        finished = dw.method("reader", "finish", reader)
        events.extend(event_json(e) for e in finished.events)
        if isinstance(finished.end, Variant):
            end = end_json(finished.end)
        else:
            failed = finished.end
    if failed is not None:
        assert is_error(failed), failed
        end = error_json(failed)
        again = dw.method("reader", "feed", reader, b"\n")
        assert not again.events and again.error.code == failed.code, "the error is not sticky"
        assert dw.method("reader", "state", reader) == "failed"
    got = {"events": events, "end": end, "cursor": cursor_json(dw.method("reader", "cursor", reader))}
    reader.drop(dw.store)
    return got


# wasmtime-py converts every value field by field in Python (about 0.1 ms a
# call): a body longer than this is fed byte by byte over its first and last
# BYTEWISE_EDGE bytes and whole in between (the Node runner feeds every body
# byte by byte through the same component).
BYTEWISE_EDGE = 4096


def bytewise(body: bytes) -> list[bytes]:
    if len(body) <= 2 * BYTEWISE_EDGE:
        return [body[i : i + 1] for i in range(len(body))]
    head = [body[i : i + 1] for i in range(BYTEWISE_EDGE)]
    tail = [body[i : i + 1] for i in range(len(body) - BYTEWISE_EDGE, len(body))]
    return [*head, body[BYTEWISE_EDGE : len(body) - BYTEWISE_EDGE], *tail]


def splits(body: bytes) -> list[tuple[str, list[bytes]]]:
    out = [("whole", [body]), ("bytewise", bytewise(body))]
    rng = SplitMix64(0xD0E7 ^ len(body))
    for _ in range(8):
        cuts = rng.cuts(len(body), 6)
        bounds = [0, *cuts, len(body)]
        out.append((f"cuts {cuts}", [body[a:b] for a, b in zip(bounds, bounds[1:])]))
    return out


def check_decode(dw: DoryWire, v: dict[str, Any]) -> None:
    expect = v["expect"]
    reference = None
    for how, chunks in splits(body_of(v)):
        got = decode(dw, v, chunks)
        assert got["events"] == expect["events"], f"{how}: events {got['events']}"
        subset = {k: got["end"].get(k, "<missing>") for k in expect["end"]}
        assert subset == expect["end"], f"{how}: end {got['end']}"
        if "cursor" in expect:
            assert got["cursor"] == {"stdout": 0, "stderr": 0, **expect["cursor"]}, f"{how}: cursor {got['cursor']}"
        reference = reference or got
        assert got == reference, f"{how}: differs from the whole body"


# -- conversations ----------------------------------------------------------

MS = 1_000_000  # nanoseconds in a millisecond


def stall_wait(dw: DoryWire, f: Any, liveness: int, what: str) -> None:
    """A `stall`: the wait for the service runs out. The follower offers a
    whole liveness timeout; waits of nothing and of all but a nanosecond of
    it are not over; one more nanosecond of waiting is."""
    limit = dw.method("follower", "wait-limit-ns", f)
    assert limit == liveness, f"{what}: the wait limit is {limit}, not {liveness}"
    assert not dw.method("follower", "waited-ns", f, 0), f"{what}: over as it began"
    assert not dw.method("follower", "waited-ns", f, liveness - 1), f"{what}: over too soon"
    assert dw.method("follower", "waited-ns", f, 1), f"{what}: not over at the liveness timeout"


def read_follower(dw: DoryWire, v: dict[str, Any]) -> Any:
    """The follower of the vector's `read` (a handle), or the error record."""
    read, opts = v["read"], dict(v.get("options") or {})
    for name in ("backoff", "max_backoff", "liveness_timeout"):
        if f"{name}_ms" in opts:
            opts[f"{name}_ns"] = round(opts.pop(f"{name}_ms") * MS)
    options = follow_options(**opts)
    kind, computer = read["type"], read["computer_id"]
    if kind == "process_output":
        c = read.get("cursor")
        cursor = record(stdout=c.get("stdout", 0), stderr=c.get("stderr", 0)) if c else None
        return dw.static("follower", "process-output", computer, read["proc_id"], cursor, options)
    if kind == "resume":
        return dw.static("follower", "resume-json", computer, json.dumps(read["state"]), options)
    if kind == "setup_logs":
        return dw.static("follower", "setup-logs", computer, read.get("offset"), options)
    # The one-answer calls (PROTOCOL.md, "One-answer calls").
    if kind in ("start", "exec"):
        timeout = read.get("timeout_seconds")
        return dw.static(
            "follower",
            "call-start" if kind == "start" else "call-exec",
            computer,
            read["command"],
            None if timeout is None else float(timeout),
            read.get("idempotency_key"),
            options,
        )
    if kind in ("get_process", "kill"):
        name = "call-get-process" if kind == "get_process" else "call-kill"
        return dw.static("follower", name, computer, read["proc_id"], options)
    if kind == "exec_stream":
        # `command` is shell(string) or argv(list<string>): cases of different
        # Python types, so wasmtime-py takes the bare str or list.
        command = read["command"]
        timeout = read.get("timeout_seconds")
        return dw.static(
            "follower",
            "exec-stream",
            computer,
            command,
            None if timeout is None else float(timeout),
            read.get("idempotency_key"),
            options,
        )
    raise AssertionError(f"unknown read type {kind!r}")


def request_json(r: Any) -> dict[str, Any]:
    """A component `request` in the vectors' shape (the body parsed as JSON)."""
    return {
        "method": r.method.upper(),
        "target": r.target,
        "headers": dict(r.headers),
        "body": None if r.body is None else json.loads(r.body),
    }


def decision_json(d: Any) -> dict[str, Any]:
    """A component `decision` (or error record) in the vectors' shape."""
    if is_error(d):
        return error_json(d)
    if d.tag == "continue":
        return {"type": "continue"}
    v = d.payload
    if d.tag == "done":
        return {
            "type": "done",
            "exited": v.exited,
            "exit_code": field(v, "exit_code"),
            "timed_out": field(v, "timed_out"),
            "cursor": cursor_json(v.cursor),
            "proc_id": field(v, "proc_id"),
        }
    if d.tag == "reconnect":
        return {
            "type": "reconnect",
            "attempt": v.attempt,
            "failures": v.failures,
            "reason": snake(v.reason),
            "cursor": cursor_json(v.cursor),
            "delay_ms": field(v, "delay_ns") / MS,
            "proc_id": field(v, "proc_id"),
            "detail": v.detail,
        }
    raise AssertionError(f"unknown decision {d!r}")


def compare_decision(expected: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """The keys of `expected` that `got` does not match (`delay_ms` to 1 µs)."""
    if got.get("type") != expected["type"]:
        return [f"expected {expected}, got {got}"]
    problems = []
    for key, want in expected.items():
        have = got.get(key, "<missing>")
        if key == "cursor" and isinstance(want, dict):
            want = {"stdout": 0, "stderr": 0, **want}
        ok = abs(have - want) <= 0.001 if key == "delay_ms" and have != "<missing>" else have == want
        if not ok:
            problems.append(f"{key}: expected {want!r}, got {have!r} in {got}")
    return problems


def play(dw: DoryWire, f: Any, x: dict[str, Any], split: int, events: list[Variant]) -> Any:
    """Plays one exchange's response on follower `f` (its body cut by the
    `split`-th chunking); returns the decision Variant or the error record."""
    response = x["response"]
    jitter = float(x.get("jitter", response.get("jitter", 0)))
    liveness = field(dw.method("follower", "options", f), "liveness_timeout_ns")
    if "not_connected" in response:
        return dw.method("follower", "not-connected", f, response["not_connected"], jitter)
    if "status" not in response:
        if response.get("stall"):
            stall_wait(dw, f, liveness, "the headers' wait")
            return dw.method("follower", "no-response", f, "", jitter)
        return dw.method("follower", "no-response", f, response["no_response"], jitter)
    retry_after = response.get("retry_after")
    opened = dw.method(
        "follower",
        "open",
        f,
        response["status"],
        response.get("content_type") or "",
        response.get("proc_id"),
        None if retry_after is None else str(retry_after),
    )
    if opened is not None:
        return opened
    for chunk in splits(body_of(response))[split][1]:
        fed = dw.method("follower", "feed", f, chunk)
        events.extend(fed.events)
        if fed.error is not None:
            return fed.error
    if response.get("stall"):
        stall_wait(dw, f, liveness, "the body's wait")
    followed = dw.method("follower", "finish", f, response.get("broken"), jitter)
    events.extend(followed.events)
    return followed.decision


def converse(dw: DoryWire, v: dict[str, Any], split: int) -> tuple[list[str], dict[str, Any]]:
    """Runs the conversation with every body cut by the `split`-th chunking;
    returns the problems and what was observed (to compare across splits)."""
    problems: list[str] = []
    seen: dict[str, Any] = {"requests": [], "decisions": []}
    exchanges = v["exchanges"]
    f = read_follower(dw, v)
    events: list[Variant] = []
    got: dict[str, Any] = {"type": None}
    for i, x in enumerate(exchanges):
        at = f"exchange {i + 1}"
        if is_error(f):
            decision: Any = f
        else:
            ok, req = result(dw.method("follower", "request", f))
            if not ok:
                decision = req
            else:
                got_req = request_json(req)
                seen["requests"].append(got_req)
                if "request" in x:
                    want = {"body": None, **x["request"]}
                    if got_req != want:
                        problems.append(f"{at}: request: expected {want}, got {got_req}")
                decision = play(dw, f, x, split, events)
        got = decision_json(decision)
        seen["decisions"].append(got)
        problems += [f"{at}: decision {p}" for p in compare_decision(x["decision"], got)]
        if got["type"] in ("done", "error"):
            if i != len(exchanges) - 1:
                problems.append(f"{at}: the read ended ({got['type']}) with {len(exchanges) - i - 1} exchanges left")
            break
    else:
        problems.append("the last exchange's decision is neither done nor error")
    if is_error(f):
        seen["events"] = []
    else:
        if got["type"] == "error":
            ok, again = result(dw.method("follower", "request", f))
            if ok or again.code != got["code"] or dw.method("follower", "state", f) != "failed":
                problems.append(f"the error {got['code']} is not sticky")
        elif got["type"] == "done" and dw.method("follower", "state", f) != "done":
            problems.append("done, but the follower's state is not done")
        seen["events"] = [event_json(e) for e in events]
        seen["cursor"] = cursor_json(dw.method("follower", "cursor", f))
        seen["proc_id"] = dw.method("follower", "proc-id", f)
        f.drop(dw.store)
    problems += compare_conversation_output(v["expect"], seen)
    return problems, seen


def compare_conversation_output(expect: dict[str, Any], seen: dict[str, Any]) -> list[str]:
    """`expect` against every event delivered, and the follower's cursor and process."""
    events = seen["events"]
    got: dict[str, Any] = {
        "skipped": [e for e in events if e["type"] == "skipped"],
        "exit": None,
        "cursor": seen.get("cursor"),
        "proc_id": seen.get("proc_id"),
    }
    for name in ("stdout", "stderr"):
        data = b"".join(base64.b64decode(e["data_b64"]) for e in events if e["type"] == name)
        got[f"{name}_b64"] = b64(data)
        got[name] = data  # compared with the expected text's UTF-8 bytes
    for e in events:
        if e["type"] == "exit":
            got["exit"] = {"exit_code": e["exit_code"], "timed_out": e["timed_out"]}
    problems = []
    for key in ("stdout", "stderr", "stdout_b64", "stderr_b64", "exit", "cursor", "proc_id", "skipped"):
        if key not in expect and key != "skipped":
            continue
        want = expect.get(key, [])
        if key == "cursor":
            want = {"stdout": 0, "stderr": 0, **want}
        elif key in ("stdout", "stderr"):
            want = want.encode("utf-8")
        if got[key] != want:
            problems.append(f"expect.{key}: expected {want!r}, got {got[key]!r}")
    if "events" in expect:
        others = [e for e in events if e["type"] not in ("stdout", "stderr")]
        if others != expect["events"]:
            problems.append(f"expect.events: expected {expect['events']!r}, got {others!r}")
    return problems


def check_conversation(dw: DoryWire, v: dict[str, Any]) -> None:
    reference = None
    for split in range(len(splits(b""))):
        problems, seen = converse(dw, v, split)
        how = "whole" if split == 0 else "bytewise" if split == 1 else f"random splits #{split - 1}"
        assert not problems, f"{how}: " + "; ".join(problems)
        reference = reference or seen
        assert seen == reference, f"{how}: differs from the whole bodies: {seen}"


# -- previews ---------------------------------------------------------------


def preview_json(p: Any) -> dict[str, Any]:
    out = {snake(k): v for k, v in vars(p).items()}
    rng = out["omitted_range"]
    out["omitted_range"] = None if rng is None else (rng.first, rng.last)
    return out


def settle(dw: DoryWire, bounded: Any, spill: dict[str, Any] | None, hint: str | None) -> dict[str, Any]:
    """A preview from `bounded` (the bare preview record or a pending-spill
    handle), running the spill handshake with the vector's writer."""
    if not hasattr(bounded, "drop"):
        return preview_json(bounded)
    if spill is None:
        outcome = Variant("not-saved")
    elif spill.get("fails"):
        outcome = Variant("failed", "disk full (vector writer)")
    else:
        outcome = Variant("saved", spill["path"])
    preview = dw.method("pending-spill", "render", bounded, outcome, hint)
    bounded.drop(dw.store)
    return preview_json(preview)


# -- token limits (a vector's top-level max_tokens and tokenizer) -------------


def token_options(v: dict[str, Any]) -> dict[str, Any]:
    """The vector's `max_tokens` and `tokenizer` as keyword arguments of
    `bound`, `streamed` and `preview_options` (absent: None)."""
    return {"max_tokens": v.get("max_tokens"), "tokenizer": v.get("tokenizer")}


def missing_tokenizer(dw: DoryWire, v: dict[str, Any]) -> str | None:
    """The tokenizer the vector asks for (the default when it sets only
    `max_tokens`) when the component does not have it, else None."""
    name = v.get("tokenizer")
    if name is None and v.get("max_tokens") is not None:
        name = DEFAULT_TOKENIZER
    return None if name is None or name in dw.call("preview", "tokenizers") else name


def check_tokenizer_refused(dw: DoryWire, v: dict[str, Any], name: str) -> None:
    """Every bounder refuses a tokenizer the component lacks:
    `invalid_argument`, argument `tokenizer`."""
    options = preview_options(v.get("keep"), v.get("terminal", False), **token_options(v))
    lines, size = v.get("max_lines", 400), v.get("max_bytes", 16384)
    for what, got in (
        ("bound", dw.call("preview", "bound", b"x\n" * 10, lines, size, None, options)),
        ("streaming-bounder", dw.call("preview", "[constructor]streaming-bounder", lines, size, None, options)),
        ("run-bounder", dw.call("run", "[constructor]run-bounder", lines, size, None, options)),
        ("count-tokens", dw.call("preview", "count-tokens", "x", name)),
    ):
        ok, err = result(got)
        assert not ok and is_error(err), f"{what}: tokenizer {name!r} accepted: {got}"
        assert (err.code, error_argument(err)) == ("invalid_argument", "tokenizer"), f"{what}: {error_json(err)}"


def check_tokens(dw: DoryWire, v: dict[str, Any], text: str, tokens: Any, where: str) -> None:
    """A preview's `tokens`: none without a token option, else `count-tokens`
    of its text under the vector's tokenizer, within `max_tokens`."""
    name, limit = v.get("tokenizer"), v.get("max_tokens")
    if name is None and limit is None:
        assert tokens is None, f"{where}: tokens {tokens} without a token limit"
        return
    ok, counted = result(dw.call("preview", "count-tokens", text, name))
    assert ok, f"{where}: count-tokens failed: {counted}"
    assert tokens == counted, f"{where}: tokens {tokens}, count-tokens {counted}"
    assert limit is None or tokens <= limit, f"{where}: {tokens} tokens over max_tokens {limit}"


def bound(dw: DoryWire, data: bytes, max_lines: int, max_bytes: int, **kw: Any) -> Any:
    """Whole-input bound; returns the preview dict or the error record."""
    options = preview_options(
        kw.get("keep"), kw.get("terminal", False), kw.get("split", "even"), kw.get("max_tokens"), kw.get("tokenizer")
    )
    ok, out = result(dw.call("preview", "bound", data, max_lines, max_bytes, kw.get("spill_id"), options))
    return settle(dw, out, kw.get("spill"), kw.get("hint")) if ok else out


def streamed(dw: DoryWire, chunks: list[bytes], max_lines: int, max_bytes: int, **kw: Any) -> Any:
    options = preview_options(
        kw.get("keep"), kw.get("terminal", False), max_tokens=kw.get("max_tokens"), tokenizer=kw.get("tokenizer")
    )
    ok, sb = result(
        dw.call("preview", "[constructor]streaming-bounder", max_lines, max_bytes, kw.get("spill_id"), options)
    )
    if not ok:
        return sb
    for chunk in chunks:
        dw.method("streaming-bounder", "push", sb, chunk)
    ok, out = result(dw.static("streaming-bounder", "finish", sb))
    return settle(dw, out, kw.get("spill"), kw.get("hint")) if ok else out


def random_chunks(data: bytes, rng: random.Random, max_chunk: int) -> list[bytes]:
    out, i = [], 0
    while i < len(data):
        n = rng.randint(0, max_chunk)
        out.append(data[i : i + n])
        i += n
    return out


def check_preview(dw: DoryWire, v: dict[str, Any]) -> None:
    data = base64.b64decode(v["input_b64"], validate=True) if "input_b64" in v else v["input"].encode("utf-8")
    max_lines, max_bytes, expect = v["max_lines"], v["max_bytes"], v["expect"]
    kw = {"spill": v.get("spill"), "hint": v.get("hint"), "spill_id": v.get("spill_id") or FIXED_SPILL_ID}
    # docs/VECTORS.md: the options keep and terminal (absent: off), and the
    # token limit (absent: none).
    options = {"keep": v.get("keep"), "terminal": v.get("terminal", False), **token_options(v)}
    kw.update(options)
    missing = missing_tokenizer(dw, v)
    if missing is not None:
        check_tokenizer_refused(dw, v, missing)
        return
    if "error" in expect:
        for got in (
            bound(dw, data, max_lines, max_bytes, **options),
            streamed(dw, [data], max_lines, max_bytes, **options),
        ):
            assert is_error(got) and got.code == expect["error"]["code"], f"expected {expect['error']}, got {got}"
        return
    p = bound(dw, data, max_lines, max_bytes, **kw)
    assert not is_error(p), f"unexpected error {error_json(p)}"
    text = p["text"]
    if "preview" in expect:
        assert text == expect["preview"], f"preview\n  expected {expect['preview']!r}\n  got      {text!r}"
    for key in ("truncated", "omitted_lines", "omitted_bytes", "tokens"):
        if key in expect:
            assert p[key] == expect[key], f"{key}: {p[key]}, expected {expect[key]}"
    check_tokens(dw, v, text, p["tokens"], "bound")
    if "omitted_range" in expect:
        wanted = expect["omitted_range"]
        assert p["omitted_range"] == (tuple(wanted) if wanted else None)
    for key, check in (("starts_with", text.startswith), ("ends_with", text.endswith)):
        wanted = expect.get(key, [])
        for affix in [wanted] if isinstance(wanted, str) else wanted:
            assert check(affix), f"{key} {affix!r}"
    for needle in expect.get("contains", []):
        assert needle in text, f"does not contain {needle!r}"
    for needle in expect.get("not_contains", []):
        assert needle not in text, f"contains {needle!r}"
    spill = v.get("spill")
    if options["keep"] is None and not options["terminal"]:
        check_invariants(data, SimpleNamespace(**p), max_lines, max_bytes, spill.get("path") if spill else None)
    else:
        # Kept lines and rendering change the shape of head + notice + tail:
        # the limits and the counts still hold.
        assert len(text.encode("utf-8")) <= max_bytes and lines_of(text) <= max_lines, "over the limits"
        assert p["head_bytes"] + p["omitted_bytes"] + p["tail_bytes"] == p["total_bytes"], "bytes do not add up"
    again = bound(dw, text.encode("utf-8"), max_lines, max_bytes, **token_options(v))
    assert not again["truncated"] and again["text"] == text, "bounding the preview again changed it"
    if spill and spill.get("fails") and p["truncated"]:
        assert p["spill_path"] is None and p["spill_error"]
    for seed in range(5):
        chunks = random_chunks(data, random.Random(seed), max_chunk=max(1, len(data) // 3))
        got = streamed(dw, chunks, max_lines, max_bytes, **kw)
        assert got == p, f"seed {seed}: streaming differs:\n  {got}\n  {p}"


# -- runs (docs/VECTORS.md, "kind run") ---------------------------------------

VIEWS = ("stdout", "stderr", "combined")


def run_items(v: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """A run vector's input as ``("output", stream, bytes)`` and
    ``("lost", stream, (from, to))`` items, in arrival order."""
    items: list[tuple[str, Any, Any]] = []
    for item in v["input"]:
        if "lost" in item:
            items.append(("lost", item["lost"], (item["from"], item["to"])))
            continue
        ((key, value),) = item.items()
        if key.endswith("_b64"):
            items.append(("output", key[: -len("_b64")], base64.b64decode(value, validate=True)))
        else:
            items.append(("output", key, value.encode("utf-8")))
    return items


def run_outcome(v: dict[str, Any], view: str) -> Variant:
    """The spill outcome of `view` as the Rust runner reads the vector."""
    spill = (v.get("spill") or {}).get(view)
    if spill is None:
        return Variant("not-saved")
    if spill.get("fails"):
        return Variant("failed", "the writer failed")
    return Variant("saved", spill.get("path", ""))


def resplit(items: list[tuple[str, Any, Any]], rng: SplitMix64 | None) -> list[tuple[str, Any, Any]]:
    """The items with each output cut in pieces: one byte each without a
    generator (outputs over 8 KiB: their first and last 4 KiB), else at the
    points the Rust runner draws (``1 + below(rest)`` bytes a piece)."""
    out: list[tuple[str, Any, Any]] = []
    for kind, stream, data in items:
        if kind != "output":
            out.append((kind, stream, data))
        elif rng is None:
            out.extend(("output", stream, piece) for piece in bytewise(data))
        else:
            while data:
                n = 1 + rng.below(len(data))
                out.append(("output", stream, data[:n]))
                data = data[n:]
    return out


def view_bytes(items: list[tuple[str, Any, Any]], view: str) -> bytes:
    return b"".join(d for kind, stream, d in items if kind == "output" and view in ("combined", stream))


def play_run(dw: DoryWire, v: dict[str, Any], items: list[tuple[str, Any, Any]], as_events: bool = False) -> Any:
    """Plays `items` through a `run-bounder` (with `push` and `lose`, or as
    the events `feed` takes) and renders every view; returns the views in the
    vectors' shape, or the error's code."""
    max_lines, max_bytes, spill_id = v["max_lines"], v["max_bytes"], v["spill_id"]
    options = preview_options(v.get("keep"), v.get("terminal", False), **token_options(v))
    ok, rb = result(dw.call("run", "[constructor]run-bounder", max_lines, max_bytes, spill_id, options))
    if not ok:
        return rb.code
    if as_events:
        events, at = [], {"stdout": 0, "stderr": 0}
        for kind, stream, data in items:
            if kind == "lost":
                events.append(Variant("skipped", record(stream=stream, start=data[0], end=data[1])))
            else:
                events.append(
                    Variant("output", record(stream=stream, data=data, start=at[stream], end=at[stream] + len(data)))
                )
                at[stream] += len(data)
        events.append(Variant("heartbeat"))
        dw.method("run-bounder", "feed", rb, events)
    else:
        for kind, stream, data in items:
            if kind == "lost":
                dw.method("run-bounder", "lose", rb, stream, data[0], data[1])
            else:
                dw.method("run-bounder", "push", rb, stream, data)
    for view in VIEWS:
        assert dw.method("run-bounder", "spill-id", rb, view) == f"{spill_id}-{view}", f"{view}: the bounder's spill id"
        total = dw.method("run-bounder", "total-bytes", rb, view)
        assert total == len(view_bytes(items, view)), f"{view}: total-bytes {total} while pushing"
    retained = dw.method("run-bounder", "retained-bytes", rb)
    # docs/preview.md: each view's terminal window adds 8 * max(2 * max_bytes + 8, 4096) + 16 KiB.
    windows = 3 * (8 * max(2 * max_bytes + 8, 4096) + 16384) if v.get("terminal") else 0
    assert retained <= 6 * (2 * max_bytes + 8) + max_bytes // 4 + 4 + 32 * (max_bytes // 4 + 5) + windows, (
        f"retained-bytes {retained} over the limits' bound"
    )
    lost_live = {view: dw.method("run-bounder", "lost-bytes", rb, view) for view in VIEWS}
    ok, pending = result(dw.static("run-bounder", "finish", rb))
    if not ok:
        assert is_error(pending) and pending.kind == "limits", f"finish failed with {pending}"
        return pending.code
    out: dict[str, Any] = {}
    for view in VIEWS:
        p = dw.method("run-pending", "render", pending, view, run_outcome(v, view), v.get("hint"))
        lost_bytes, lost_ranges = dw.method("run-pending", "lost", pending, view)
        assert lost_bytes == lost_live[view], f"{view}: lost-bytes {lost_live[view]} before finish, {lost_bytes} after"
        out[view] = {
            "preview": p.text,
            "truncated": p.truncated,
            "total_bytes": dw.method("run-pending", "total-bytes", pending, view),
            "lost_bytes": lost_bytes,
            "lost_ranges": lost_ranges,
            "needs_spill": dw.method("run-pending", "needs-spill", pending, view),
            "spill_id": dw.method("run-pending", "spill-id", pending, view),
            "spill_path": field(p, "spill_path"),
            "spill_error": field(p, "spill_error") is not None,
            "tokens": p.tokens,
        }
    pending.drop(dw.store)
    return out


def lines_of(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def check_run(dw: DoryWire, v: dict[str, Any]) -> None:
    """A run vector: its expectation, both limits, each plain view equal to
    `bound` of its bytes, and the same result by byte, at the Rust runner's
    seeded splits and through `feed`."""
    expect, items = v["expect"], run_items(v)
    max_lines, max_bytes = v["max_lines"], v["max_bytes"]
    missing = missing_tokenizer(dw, v)
    if missing is not None:
        check_tokenizer_refused(dw, v, missing)
        return
    got = play_run(dw, v, items)
    checked = dw.call("run", "check-limits", max_lines, max_bytes)
    if "error" in expect:
        assert got == expect["error"]["code"], f"expected error {expect['error']}, got {got}"
        # check-limits judges lines and bytes; a token limit below the
        # least a run needs (the core's RunBounder::check_tokens: as many
        # tokens as min-run-max-bytes) fails the run instead.
        tokens_short = v.get("max_tokens") is not None and v["max_tokens"] < dw.call("run", "min-run-max-bytes")
        if expect["error"]["code"] == "invalid_limits" and not tokens_short:
            assert checked is not None, "check-limits accepts limits a run fails with"
    else:
        assert not isinstance(got, str), f"unexpected error {got}"
        for view in VIEWS:
            assert view in expect, f"expect.{view} missing"
            for key, want in expect[view].items():
                assert got[view][key] == want, f"{view}.{key}: got {got[view][key]!r}, expected {want!r}"
            text = got[view]["preview"]
            size, lines = len(text.encode("utf-8")), lines_of(text)
            assert size <= max_bytes and lines <= max_lines, (
                f"{view}: {size} bytes, {lines} lines over {max_lines}/{max_bytes}"
            )
            check_tokens(dw, v, text, got[view]["tokens"], view)
            if got[view]["lost_bytes"] == 0 and "[... the last " not in text:
                whole = bound(
                    dw,
                    view_bytes(items, view),
                    max_lines,
                    max_bytes,
                    spill_id=f"{v['spill_id']}-{view}",
                    spill=(v.get("spill") or {}).get(view),
                    hint=v.get("hint"),
                    keep=v.get("keep"),
                    terminal=v.get("terminal", False),
                    **token_options(v),
                )
                assert not is_error(whole), f"{view}: bound() failed: {whole}"
                assert whole["text"] == text, (
                    f"{view}: differs from bound() of its bytes:\n{whole['text']}\n---\n{text}"
                )
    rng = SplitMix64(0x5EED_0000 + len(items))
    for how, chunks in [("byte by byte", resplit(items, None))] + [
        (f"split round {r}", resplit(items, rng)) for r in range(1, 7)
    ]:
        assert play_run(dw, v, chunks) == got, f"{how} gives another result"
    assert play_run(dw, v, items, as_events=True) == got, "feed (events) gives another result"


def check_preview_options(dw: DoryWire) -> None:
    """`default-keep-patterns`, and a refused keep pattern in every bounder:
    the core's `invalid_argument` naming `keep`."""
    defaults = dw.call("preview", "default-keep-patterns")
    assert defaults and all(isinstance(p, str) for p in defaults), defaults
    assert defaults[0] == "^(FAILED|ERROR) [^ ]+(::| - )", defaults[0]
    log = b"".join(b"error: boom\n" if i == 150 else b"ok %d\n" % i for i in range(1, 301))
    kept = bound(dw, log, 12, 400, keep="defaults")
    assert "\n150:error: boom\n" in kept["text"], kept["text"]
    assert bound(dw, log, 12, 400, keep=list(defaults)) == kept, "defaults are default-keep-patterns()"
    preset = dw.call("preview", "run-preset")
    assert (preset.keep.tag, preset.terminal, preset.split) == ("defaults", True, "tail"), preset
    lines = b"".join(b"line %d\n" % i for i in range(1, 101))
    tail = bound(dw, lines, 9, 4096, split="tail")["text"]
    assert tail.startswith("line 1\n[... "), tail
    assert tail.endswith(b"".join(b"line %d\n" % i for i in range(94, 101)).decode()), tail
    bad = preview_options(["("])
    for what, got in (
        ("bound", dw.call("preview", "bound", b"x", 1, 40, None, bad)),
        ("streaming-bounder", dw.call("preview", "[constructor]streaming-bounder", 1, 40, None, bad)),
        ("run-bounder", dw.call("run", "[constructor]run-bounder", 2, 80, None, bad)),
    ):
        ok, err = result(got)
        assert not ok and is_error(err) and err.code == "invalid_argument", f"{what}: {got}"
        assert "keep" in err.message, f"{what}: {err.message}"


def check_token_limits(dw: DoryWire) -> None:
    """With tokenizer "approx": the previews of `bound`, the streaming
    bounder and every view of the run bounder have `tokens` equal to
    `count-tokens` of their text, within `max-tokens`; 31 on input that must
    be cut is `invalid_limits`; an unknown tokenizer `invalid_argument`."""
    assert dw.call("preview", "tokenizers") == ["approx"], "the component is built without the exact tokenizers"
    log = b"".join(b"step %d: compiled module_%d\n" % (i, i) for i in range(1, 401))

    def count(text: str) -> int:
        ok, n = result(dw.call("preview", "count-tokens", text, "approx"))
        assert ok, n
        return int(n)

    for limit in (200, 80):
        kw = {"max_tokens": limit, "tokenizer": "approx", "spill_id": "tok"}
        views = {
            "bound": bound(dw, log, 400, 16384, **kw),
            "streaming": streamed(dw, [log[:5000], log[5000:]], 400, 16384, **kw),
        }
        assert views["bound"] == views["streaming"], "streaming differs from whole"
        options = preview_options(max_tokens=limit, tokenizer="approx")
        _, rb = result(dw.call("run", "[constructor]run-bounder", 400, 16384, "run-tok", options))
        for i, line in enumerate(log.splitlines(keepends=True)):
            dw.method("run-bounder", "push", rb, "stdout", line)
            if i % 50 == 0:
                dw.method("run-bounder", "push", rb, "stderr", b"warning: slow step %d\n" % i)
        ok, pending = result(dw.static("run-bounder", "finish", rb))
        assert ok, pending
        for view in VIEWS:
            views[f"run {view}"] = preview_json(
                dw.method("run-pending", "render", pending, view, Variant("not-saved"), None)
            )
        pending.drop(dw.store)
        for where, p in views.items():
            assert p["tokens"] == count(p["text"]) and p["tokens"] <= limit, (
                f"{where}, max-tokens {limit}: {p['tokens']}"
            )
    err = bound(dw, log, 400, 16384, max_tokens=31, tokenizer="approx")
    assert is_error(err) and err.code == "invalid_limits", f"max-tokens 31: {err}"
    err = streamed(dw, [log], 400, 16384, max_tokens=31, tokenizer="approx")
    assert is_error(err) and err.code == "invalid_limits", f"max-tokens 31, streaming: {err}"
    check_tokenizer_refused(dw, {"max_tokens": 100, "tokenizer": "gpt-9"}, "gpt-9")


def check_run_functions(dw: DoryWire) -> None:
    """`check-limits` at its edges, `run-spill-id` and the run's defaults."""
    least = dw.call("run", "min-run-max-bytes")
    lines, size = dw.call("run", "default-run-max-lines"), dw.call("run", "default-run-max-bytes")
    assert dw.call("run", "check-limits", lines, size) is None, "the defaults are refused"
    assert dw.call("run", "check-limits", 2, least) is None, f"check-limits refuses 2 lines and {least} bytes"
    for bad in ((1, size), (0, 0), (2, least - 1), (lines, least - 1)):
        err = dw.call("run", "check-limits", *bad)
        assert is_error(err) and err.code == "invalid_limits" and err.kind == "limits", f"check-limits{bad}: {err}"
    key = dw.call("run", "run-spill-id", "key-1")
    assert key == dw.call("run", "run-spill-id", "key-1") != dw.call("run", "run-spill-id", "key-2")
    assert key.startswith("run-") and len(key) == 36 and all(c in "0123456789abcdef" for c in key[4:]), key
    _, rb = result(dw.call("run", "[constructor]run-bounder", lines, size, None, preview_options()))
    assert dw.method("run-bounder", "spill-id", rb, "combined") is None, "an unnamed spill id before finish"
    dw.method("run-bounder", "push", rb, "stdout", b"x")
    pending = dw.static("run-bounder", "finish", rb)
    assert len(dw.method("run-pending", "spill-id", pending, "stdout")) == 32, "a content-derived spill id"
    pending.drop(dw.store)


def check_json(dw: DoryWire) -> None:
    """`preview-to-json` gives the core's bytes for the shared cases of
    tests/api/canonical-json.json (the token count last), and
    `run-result-to-json` embeds them."""
    cases = json.loads((ROOT / "tests" / "api" / "canonical-json.json").read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 5, "the shared JSON cases"
    previews = []
    for case in cases:
        data = "".join(text * times for text, times in case["input"]).encode()
        options = preview_options(case["keep"], case["terminal"], **token_options(case))
        ok, out = result(
            dw.call("preview", "bound", data, case["max_lines"], case["max_bytes"], case["spill_id"], options)
        )
        assert ok, f"{case['name']}: {out}"
        if hasattr(out, "drop"):
            path = case["spill_path"]
            outcome = Variant("not-saved") if path is None else Variant("saved", path)
            preview = dw.method("pending-spill", "render", out, outcome, case["hint"])
            out.drop(dw.store)
        else:
            preview = out
        ok, text = result(dw.call("preview", "preview-to-json", preview))
        assert ok and text == case["json"], f"{case['name']}: {text!r}"
        previews.append(preview)
    counted = record(**{k.replace("-", "_"): v for k, v in vars(previews[0]).items()})
    counted.tokens = 2**64 - 1
    ok, text = result(dw.call("preview", "preview-to-json", counted))
    assert ok and text.endswith(',"tokens":18446744073709551615}'), text[-60:]
    run = record(
        proc_id="p_1",
        idempotency_key="k",
        exit_code=None,
        timed_out=False,
        stdout=previews[1],
        stderr=previews[0],
        combined=previews[3],
        stdout_lost_bytes=2**64 - 1,
        stderr_lost_bytes=0,
    )
    ok, text = result(dw.call("run-machine", "run-result-to-json", run))
    assert ok, text
    assert text.startswith('{"proc_id":"p_1","idempotency_key":"k","exit_code":null,"timed_out":false,'), text[:80]
    assert f'"combined":{cases[3]["json"]},"stdout_lost_bytes":18446744073709551615,' in text, text[-200:]


# -- run conversations (docs/VECTORS.md, "kind run-conversation") -------------


def vector_follow_options(v: dict[str, Any]) -> Any:
    """The `follow-options` record of a vector's `options` (milliseconds as
    nanoseconds)."""
    opts = dict(v.get("options") or {})
    for name in ("backoff", "max_backoff", "liveness_timeout"):
        if f"{name}_ms" in opts:
            opts[f"{name}_ns"] = round(opts.pop(f"{name}_ms") * MS)
    return follow_options(**opts)


def run_of(dw: DoryWire, v: dict[str, Any]) -> Any:
    """The `run` handle of the vector's `run`, or the error record."""
    r = v["run"]
    timeout = r.get("timeout_seconds")
    answer = r.get("answer_timeout_ms")
    options = run_options(
        vector_follow_options(v),
        max_lines=r.get("max_lines"),
        max_bytes=r.get("max_bytes"),
        idempotency_key=r.get("idempotency_key"),
        timeout_seconds=None if timeout is None else float(timeout),
        hint=r.get("hint"),
        kill_on_cancel=bool(r.get("kill_on_cancel", False)),
        spill=bool(r.get("spill", False)),
        on_output=bool(r.get("on_output", False)),
        answer_timeout_ns=None if answer is None else round(answer * MS),
        # Absent: none, the run's defaults; a null keep is keep::none.
        keep=keep_variant(r["keep"]) if "keep" in r else None,
        terminal=r.get("terminal"),
        max_tokens=r.get("max_tokens"),
        tokenizer=r.get("tokenizer"),
    )
    random_bytes = bytes.fromhex(r["random_hex"]) if "random_hex" in r else bytes(16)
    _, built = result(dw.call("run-machine", "[constructor]run", r["computer_id"], r["command"], options, random_bytes))
    return built


def run_step_json(step: Any) -> dict[str, Any]:
    """A component `run-step` (or error record) in the vectors' shape."""
    if is_error(step):
        return error_json(step)
    if step.tag == "wait":
        record_ = field(step.payload, "reconnect")
        reconnect = None
        if record_ is not None:
            reconnect = decision_json(Variant("reconnect", record_))
            del reconnect["type"]
        return {"type": "wait", "delay_ms": field(step.payload, "delay_ns") / MS, "reconnect": reconnect}
    return {"type": step.tag}


def run_preview_json(p: Any) -> dict[str, Any]:
    return {
        key: field(p, key)
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


def run_result_json(r: Any) -> dict[str, Any]:
    """A component `run-result` in the vectors' shape."""
    out = {
        key: field(r, key)
        for key in (
            "proc_id",
            "idempotency_key",
            "exit_code",
            "timed_out",
            "stdout_lost_bytes",
            "stderr_lost_bytes",
        )
    }
    for view in VIEWS:
        out[view] = run_preview_json(field(r, view))
    return out


class RunClient:
    """The runner's client: a spill writer that records each view's bytes
    (or fails as the vector's `spill_writer` says) and an output hook that
    records; order problems (a write before the open, anything after the
    end) are noted. Failures are reported to the run after the call that
    gave the action returned; each commit's outcome after `done`."""

    def __init__(self, dw: DoryWire, v: dict[str, Any]) -> None:
        self.dw = dw
        self.files: dict[str, dict[str, Any]] = {}
        self.output: dict[str, list[Any]] = {}
        self.fail: dict[str, Any] | None = v.get("spill_writer")
        self.failed: list[str] = []
        self.commits: list[str] = []

    def _fails(self, view: str, at: str) -> bool:
        return self.fail is not None and self.fail["view"] == view and self.fail["at"] == at

    def _file(self, view: str) -> dict[str, Any]:
        return self.files.setdefault(view, {"spill_id": "", "data": b"", "end": None, "problems": []})

    def act(self, actions: list[Variant]) -> None:
        for action in actions:
            a = action.payload
            if action.tag == "open-spill":
                file = self._file(a.view)
                if file["spill_id"]:
                    file["problems"].append("opened twice")
                file["spill_id"] = field(a, "spill_id")
                if self._fails(a.view, "open"):
                    file["end"] = "failed"
                    self.failed.append(a.view)
            elif action.tag == "write-spill":
                file = self._file(a.view)
                if not file["spill_id"]:
                    file["problems"].append("a write before the open")
                if file["end"] == "failed":
                    pass  # the writer failed: nothing more
                elif file["end"] is not None:
                    file["problems"].append(f"a write after {file['end']}")
                elif self._fails(a.view, "write"):
                    file["end"] = "failed"
                    self.failed.append(a.view)
                else:
                    file["data"] += a.data
            elif action.tag == "commit-spill":
                file = self._file(a)
                if file["end"] is not None:
                    file["problems"].append("a commit after its end")
                file["end"] = "failed" if self._fails(a, "commit") else "commit"
                self.commits.append(a)
            elif action.tag == "discard-spill":
                file = self._file(a)
                if file["end"] not in (None, "failed"):
                    file["problems"].append("a discard after its end")
                if file["end"] is None:
                    file["end"] = "discard"
            elif action.tag == "output":
                out = self.output.setdefault(a.stream, [b"", ""])
                out[0] += a.data
                out[1] += a.text
            else:
                raise AssertionError(f"unknown action {action!r}")

    def _error(self) -> str:
        return (self.fail or {}).get("error", "")

    def report(self, run: Any) -> None:
        failed, self.failed = self.failed, []
        for view in failed:
            self.dw.method("run", "spill-failed", run, view, self._error())

    def commit(self, run: Any) -> None:
        commits, self.commits = self.commits, []
        for view in commits:
            if self.files[view]["end"] == "failed":
                outcome = Variant("failed", self._error())
            else:
                outcome = Variant("saved", f"/spill/{self.dw.method('run', 'spill-id', run, view)}")
            self.dw.method("run", "spill-committed", run, view, outcome)


def play_run_exchange(
    dw: DoryWire, run: Any, x: dict[str, Any], split: int, client: RunClient, requests: list[Any]
) -> Any:
    """One exchange: the run's request, then its answer played as the vector
    says (each body cut by the `split`-th chunking); the step Variant or the
    error record."""
    ok, req = result(dw.method("run", "request", run))
    if not ok:
        return req
    requests.append(request_json(req))

    def cancelled() -> Any:
        c = dw.method("run", "cancel", run)
        client.act(c.actions)
        return c.step

    response = x.get("response")
    if response is None:
        assert x.get("cancel"), "an exchange without a response cancels"
        return cancelled()
    jitter = float(x.get("jitter", 0))
    stall = bool(response.get("stall"))
    if "not_connected" in response:
        return dw.method("run", "not-connected", run, response["not_connected"], jitter)
    if "no_response" in response or (stall and "status" not in response):
        if stall:
            limit = dw.method("run", "wait-limit-ns", run)
            assert limit is not None, "a bounded wait for the headers"
            assert dw.method("run", "waited-ns", run, limit), "the headers wait is over"
        return dw.method("run", "no-response", run, response.get("no_response", ""), jitter)
    retry_after = response.get("retry_after")
    opened = dw.method(
        "run",
        "open",
        run,
        response["status"],
        response.get("content_type") or "",
        response.get("proc_id"),
        None if retry_after is None else str(retry_after),
    )
    if opened is not None:
        return opened
    trickled = False
    if "pieces" in response:
        pieces = []
        for piece in response["pieces"]:
            pieces.append((round(piece["wait_ms"] * MS), piece["body"].encode("utf-8")))
    else:
        pieces = [(None, chunk) for chunk in splits(body_of(response))[split][1]]
    for wait, chunk in pieces:
        if wait is not None and dw.method("run", "waited-ns", run, wait):
            trickled = True
            break
        fed = dw.method("run", "feed", run, chunk)
        client.act(fed.actions)
        client.report(run)
        if fed.error is not None:
            return fed.error
    if x.get("cancel"):
        return cancelled()
    if stall and not trickled:
        limit = dw.method("run", "wait-limit-ns", run)
        assert limit is not None, "a bounded wait for the body"
        assert dw.method("run", "waited-ns", run, limit), "the stream stalls"
    broken = None if trickled else response.get("broken")
    finished = dw.method("run", "finish", run, broken, jitter)
    client.act(finished.actions)
    client.report(run)
    ok, step = result(finished.step)
    return step


def play_run_conversation(dw: DoryWire, v: dict[str, Any], split: int) -> dict[str, Any]:
    """Plays a run-conversation vector with every body cut by the `split`-th
    chunking; returns what was observed: the requests, the steps, the
    client's files and hook output, the result and the run's state."""
    client = RunClient(dw, v)
    played: dict[str, Any] = {"requests": [], "steps": [], "result": None, "state": "failed"}

    def observed() -> dict[str, Any]:
        played["files"] = client.files
        played["output"] = {k: tuple(o) for k, o in client.output.items()}
        return played

    run = run_of(dw, v)
    if is_error(run):
        played["steps"].append(error_json(run))
        return observed()
    for x in v["exchanges"]:
        if "request" not in x:
            c = dw.method("run", "cancel", run)
            client.act(c.actions)
            step = c.step
        else:
            step = play_run_exchange(dw, run, x, split, client, played["requests"])
        played["steps"].append(run_step_json(step))
        if is_error(step):
            break
        if step.tag == "done":
            client.commit(run)
            ok, r = result(dw.method("run", "result", run))
            played["result"] = run_result_json(r) if ok else error_json(r)
    played["state"] = dw.method("run", "state", run)
    run.drop(dw.store)
    return observed()


def subset_matches(expected: Any, actual: Any) -> bool:
    """Whether `actual` holds every key of `expected` with an equal value
    (recursively into objects; anything else compared whole)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and subset_matches(w, actual[k]) for k, w in expected.items())
    return bool(expected == actual)


def run_step_matches(expected: dict[str, Any], got: dict[str, Any]) -> bool:
    """A step against the vector's: delays within 1e-3 ms, a `null`
    reconnect only null, the rest a subset."""
    e, g = json.loads(json.dumps(expected)), json.loads(json.dumps(got))

    def delays(x: dict[str, Any]) -> list[float]:
        out = []
        if "delay_ms" in x:
            out.append(x.pop("delay_ms"))
        if isinstance(x.get("reconnect"), dict) and "delay_ms" in x["reconnect"]:
            out.append(x["reconnect"].pop("delay_ms"))
        return out

    ed, gd = delays(e), delays(g)
    delays_ok = len(ed) <= len(gd) and all(abs(a - b) < 1e-3 for a, b in zip(ed, gd))
    reconnect_ok = not ("reconnect" in e and e["reconnect"] is None) or g.get("reconnect") is None
    return delays_ok and reconnect_ok and subset_matches(e, g)


def expected_bytes_of(x: dict[str, Any], key: str) -> bytes | None:
    if key in x:
        return str(x[key]).encode("utf-8")
    if f"{key}_b64" in x:
        return base64.b64decode(x[f"{key}_b64"], validate=True)
    return None


def run_conversation_problems(v: dict[str, Any], played: dict[str, Any]) -> list[str]:
    """How a play differs from the vector (empty: it agrees)."""
    problems: list[str] = []
    exchanges = v["exchanges"]
    if len(played["steps"]) != len(exchanges):
        problems.append(f"{len(exchanges)} exchanges scripted, the run had {len(played['steps'])}: {played['steps']}")
    expected_requests = [x["request"] for x in exchanges if "request" in x]
    for i, (want, got) in enumerate(zip(expected_requests, played["requests"])):
        want = {"body": None, **want}
        if want != got:
            problems.append(f"request {i}: expected {want}, got {got}")
    for i, (x, got) in enumerate(zip(exchanges, played["steps"])):
        if "step" not in x:
            problems.append(f"exchange {i} has no step")
        elif not run_step_matches(x["step"], got):
            problems.append(f"step {i}: expected {x['step']}, got {got}")
    expect = v["expect"]
    if "state" in expect and expect["state"] != played["state"]:
        problems.append(f"state: expected {expect['state']}, got {played['state']}")
    spills = expect.get("spills") or {}
    for view, file in played["files"].items():
        problems.extend(f"spill {view}: {p}" for p in file["problems"])
        if view not in spills:
            problems.append(f"spill {view} was opened, the vector has none")
            continue
        want = spills[view]
        if "spill_id" in want and want["spill_id"] != file["spill_id"]:
            problems.append(f"spill {view} id {file['spill_id']} not {want['spill_id']}")
        data = expected_bytes_of(want, "data")
        if data is not None and data != file["data"]:
            problems.append(f"spill {view} data: expected {data!r}, got {file['data']!r}")
        end = file["end"] or "open"
        if want.get("end") != end:
            problems.append(f"spill {view} ended {end}, expected {want.get('end')}")
    problems.extend(f"spill {view} was never opened" for view in spills if view not in played["files"])
    output = expect.get("output") or {}
    for stream, (data, text) in played["output"].items():
        if stream not in output:
            problems.append(f"the hook got {stream}, the vector has none")
            continue
        want_data = expected_bytes_of(output[stream], "data")
        if want_data is not None and want_data != data:
            problems.append(f"output {stream} data: expected {want_data!r}, got {data!r}")
        if output[stream].get("text") != text:
            problems.append(f"output {stream} text: expected {output[stream].get('text')!r}, got {text!r}")
    problems.extend(f"the hook never got {stream}" for stream in output if stream not in played["output"])
    want_result, got_result = expect.get("result"), played["result"]
    if (want_result is None) != (got_result is None) or (
        want_result is not None and not subset_matches(want_result, got_result)
    ):
        problems.append(f"result: expected {want_result}, got {got_result}")
    return problems


def check_run_conversation(dw: DoryWire, v: dict[str, Any]) -> None:
    """A run-conversation vector whole, byte by byte and at seeded random
    splits: its expectation, and the same play every time. A tokenizer the
    component lacks must be refused by the `run` constructor."""
    missing = missing_tokenizer(dw, v["run"])
    if missing is not None:
        built = run_of(dw, v)
        assert is_error(built), f"tokenizer {missing!r} accepted by run"
        assert (built.code, error_argument(built)) == ("invalid_argument", "tokenizer"), error_json(built)
        return
    reference = None
    for split in range(len(splits(b""))):
        played = play_run_conversation(dw, v, split)
        how = "whole" if split == 0 else "bytewise" if split == 1 else f"random splits #{split - 1}"
        problems = run_conversation_problems(v, played)
        assert not problems, f"{how}: " + "; ".join(problems)
        reference = reference or played
        assert played == reference, f"{how}: differs from the whole bodies: {played}"


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
# Inputs longer than this are not fed byte by byte (one call per byte).
SEARCH_BYTEWISE_LIMIT = 8192


def search(dw: DoryWire, v: dict[str, Any], chunks: list[bytes]) -> dict[str, Any]:
    """A search vector's result over `chunks`, in the vectors' shape."""
    options = record(
        context=v.get("context", 0),
        max_lines=v.get("max_lines", 400),
        max_bytes=v.get("max_bytes", 16384),
        ignore_case=v.get("ignore_case", False),
    )
    ok, searcher = result(dw.static("searcher", "create", v["pattern"], options))
    if not ok:
        error: dict[str, Any] = {"code": searcher.code}
        for f in searcher.fields:
            if f.name == "argument":
                error["argument"] = f.value.payload if isinstance(f.value, Variant) else f.value
        return {"error": error}
    for chunk in chunks:
        dw.method("searcher", "push", searcher, chunk)
    got = dw.static("searcher", "finish", searcher, v.get("path"))
    return {name: field(got, name) for name in SEARCH_FIELDS}


def check_search(dw: DoryWire, v: dict[str, Any]) -> None:
    """Whole, byte by byte (small inputs) and at the Rust runner's seeded
    splits: the same result, equal to the keys of `expect`, within both limits."""
    data = base64.b64decode(v["input_b64"], validate=True) if "input_b64" in v else v["input"].encode("utf-8")
    whole = search(dw, v, [data])
    splits = []
    if len(data) <= SEARCH_BYTEWISE_LIMIT:
        splits.append(("bytewise", [data[i : i + 1] for i in range(len(data))]))
    rng = SplitMix64(0x5EA4 ^ len(data))
    for _ in range(8):
        cuts = rng.cuts(len(data), 6)
        bounds = [0, *cuts, len(data)]
        splits.append((f"cuts {cuts}", [data[a:b] for a, b in zip(bounds, bounds[1:])]))
    for how, chunks in splits:
        assert search(dw, v, chunks) == whole, f"{how}: differs from the whole input"
    assert v["expect"], "expect is empty"
    for key, want in v["expect"].items():
        assert whole.get(key, "<missing>") == want, f"{key}: got {whole.get(key, '<missing>')!r} expected {want!r}"
    text = whole.get("text")
    if isinstance(text, str):
        assert len(text.encode()) <= v.get("max_bytes", 16384), "over max_bytes"
        assert text.count("\n") <= v.get("max_lines", 400), "over max_lines"


def the_runner_can_fail(dw: DoryWire, vectors: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Wrong expectations of each kind are reported: the problems of a runner
    that passed one (an empty list when every wrong expectation failed)."""

    def first(kind: str, has: Any) -> dict[str, Any]:
        return next(v for _, v in vectors if v["kind"] == kind and has(v))

    run = first("run", lambda v: "combined" in v["expect"] and v["expect"]["combined"]["truncated"])
    dec = first("decode", lambda v: v["expect"].get("events"))
    pre = first("preview", lambda v: "preview" in v["expect"])
    conv = first("conversation", lambda v: v["exchanges"][-1]["decision"]["type"] == "done")
    rc = first("run-conversation", lambda v: v["name"] == "run-output-cut-mid-frame-resumes-from-the-cursor")
    sea = first("search", lambda v: "text" in v["expect"] and v["expect"]["truncated"])
    bad = first("search", lambda v: "error" in v["expect"])
    cases: list[tuple[str, Any, dict[str, Any], Any]] = [
        ("a wrong combined preview", check_run, run, lambda w: w["expect"]["combined"].update(preview="not this")),
        ("wrong stdout lost bytes", check_run, run, lambda w: w["expect"]["stdout"].update(lost_bytes=12345)),
        ("a wrong stderr spill id", check_run, run, lambda w: w["expect"]["stderr"].update(spill_id="x")),
        (
            "a wrong spill error",
            check_run,
            run,
            lambda w: w["expect"]["combined"].update(spill_error=not w["expect"]["combined"]["spill_error"]),
        ),
        ("an error for a result", check_run, run, lambda w: w.update(expect={"error": {"code": "invalid_limits"}})),
        ("a decode event too many", check_decode, dec, lambda w: w["expect"]["events"].append({"type": "heartbeat"})),
        ("a wrong preview", check_preview, pre, lambda w: w["expect"].update(preview="not this")),
        (
            "a wrong decision",
            check_conversation,
            conv,
            lambda w: w["exchanges"][-1]["decision"].update(type="continue"),
        ),
        ("a wrong run request", check_run_conversation, rc, lambda w: w["exchanges"][1]["request"].update(target="/x")),
        ("a wrong run step", check_run_conversation, rc, lambda w: w["exchanges"][0].update(step={"type": "done"})),
        (
            "a wrong reconnect delay",
            check_run_conversation,
            rc,
            lambda w: w["exchanges"][1]["step"]["reconnect"].update(delay_ms=7.0),
        ),
        ("wrong spill bytes", check_run_conversation, rc, lambda w: w["expect"]["spills"]["stdout"].update(data="x")),
        (
            "a wrong spill end",
            check_run_conversation,
            rc,
            lambda w: w["expect"]["spills"]["combined"].update(end="commit"),
        ),
        (
            "a wrong hook text",
            check_run_conversation,
            rc,
            lambda w: w["expect"]["output"]["stdout"].update(text="abc\n"),
        ),
        (
            "a wrong run result",
            check_run_conversation,
            rc,
            lambda w: w["expect"]["result"]["combined"].update(text="ab\n"),
        ),
        ("a wrong run state", check_run_conversation, rc, lambda w: w["expect"].update(state="cancelled")),
        ("a spill too few", check_run_conversation, rc, lambda w: w["expect"]["spills"].pop("stdout")),
        ("a wrong search text", check_search, sea, lambda w: w["expect"].update(text="not this")),
        ("a wrong match count", check_search, sea, lambda w: w["expect"].update(matched_lines=12345)),
        ("an error for a search result", check_search, sea, lambda w: w.update(expect={"error": {"code": "x"}})),
        ("a result for a search error", check_search, bad, lambda w: w.update(expect={"text": ""})),
    ]
    counted = [
        v for _, v in vectors if v["kind"] == "preview" and "tokens" in v["expect"] and missing_tokenizer(dw, v) is None
    ]
    if counted:
        cases.append(
            ("wrong tokens", check_preview, counted[0], lambda w: w["expect"].update(tokens=w["expect"]["tokens"] + 1))
        )
    problems = []
    for what, check, vector, edit in cases:
        copy = json.loads(json.dumps(vector))
        check(dw, copy)  # as it is, the copy passes: the failure below is the edit's
        edit(copy)
        try:
            check(dw, copy)
        except AssertionError:
            continue
        problems.append(f"the runner passed {what} ({vector['name']})")
    return problems


def main() -> int:
    started = time.perf_counter()
    dw = DoryWire()
    vectors = []
    for path in sorted(VECTOR_DIR.rglob("*.json")):
        for v in json.loads(path.read_text(encoding="utf-8"))["vectors"]:
            vectors.append((f"{path.relative_to(VECTOR_DIR)}::{v['name']}", v))
    kinds = {v.get("kind") for _, v in vectors}
    assert {"decode", "preview", "conversation", "run", "run-conversation", "search"} <= kinds, (
        f"vectors missing: found kinds {kinds}"
    )
    count = sum(v["kind"] == "run-conversation" for _, v in vectors)
    assert count >= 25, f"at least 25 run-conversation vectors, found {count}"
    count = sum(v["kind"] == "search" for _, v in vectors)
    assert count >= 20, f"at least 20 search vectors, found {count}"
    passed = failed = 0
    for vid, v in vectors:
        try:
            if v["kind"] == "decode":
                check_decode(dw, v)
            elif v["kind"] == "preview":
                check_preview(dw, v)
            elif v["kind"] == "conversation":
                check_conversation(dw, v)
            elif v["kind"] == "run":
                check_run(dw, v)
            elif v["kind"] == "run-conversation":
                check_run_conversation(dw, v)
            elif v["kind"] == "search":
                check_search(dw, v)
            else:
                raise AssertionError(f"unknown kind {v['kind']!r}")
            passed += 1
        except AssertionError as exc:
            failed += 1
            print(f"FAIL {vid}: {exc}", file=sys.stderr)
    try:
        check_run_functions(dw)
        check_preview_options(dw)
        check_token_limits(dw)
        check_json(dw)
        problems = the_runner_can_fail(dw, vectors)
    except AssertionError as exc:
        problems = [f"the run functions, or an unchanged vector: {exc}"]
    for problem in problems:
        failed += 1
        print(f"FAIL the runner can fail: {problem}", file=sys.stderr)
    passed += not problems
    seconds = time.perf_counter() - started
    print(f"component vectors (wasmtime-py, {seconds:.1f} s): {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
