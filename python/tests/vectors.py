"""Shared conformance vectors (tests/vectors/**/*.json): loading and the
conversion of dory_wire values to the vectors' JSON shapes (VECTORS.md)."""

from __future__ import annotations

import base64
import json
import os
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
    if isinstance(event, dw.Exit):
        return {"type": "exit", "exit_code": event.exit_code, "timed_out": event.timed_out}
    if isinstance(event, dw.Unknown):
        return {"type": "unknown", "frame_type": event.frame_type}
    if isinstance(event, dw.Identity):
        return {"type": "identity", "proc_id": event.proc_id, "status": event.status}
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


def cursor_json(cursor: dw.Cursor) -> dict[str, int]:
    return {"stdout": cursor.stdout, "stderr": cursor.stderr}


def end_json(end: dw.End) -> dict[str, Any]:
    """An end in the vectors' shape."""
    if isinstance(end, dw.Exited):
        return {"type": "exited", "exit_code": end.exit_code, "timed_out": end.timed_out}
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
