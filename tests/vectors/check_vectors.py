#!/usr/bin/env python3
"""Check the format of the shared conformance vectors (stdlib only).

Usage: python3 tests/vectors/check_vectors.py [FILE_OR_DIR ...]

Without arguments every `*.json` file below this script's directory is checked,
the same set the Rust, Python and Node runners glob. The checks are about the
format of VECTORS.md, not about decoding (the runners do that):

- each file is `{"vectors": [...]}`; names are unique across all files, kebab-case;
- `decode` vectors have the required keys and no unknown ones, `body` xor
  `body_b64` (`body_b64` only for bodies that are not UTF-8), valid endpoint,
  status, Content-Type, cursor, gap policy and frame limit;
- every expected event and end has a known type and exactly its keys, error
  codes are the stable ones, `data_b64` is strict base64 whose length matches
  `end - start`;
- the expectation is self-consistent: output and `skipped` events continue
  exactly from the stream's cursor (overlap already trimmed), the expected
  cursor is where the events leave it, an `exited` end matches the last `exit`
  event, setup logs never show stderr;
- `search` vectors have a pattern, an input, known options and an
  expectation with known keys whose counts add up (at least 20, showing a
  whole result, a cut, context, no match, a long line and an error);
- `preview` vectors have an input and an expectation (their own checks live with
  the preview runners); an expected error has a code of the core.

Run on the whole set (no arguments), it also checks coverage: at least one
vector for every event type, every end type and disconnect reason, and every
error code of the core's table (`ERROR_CODES` in
`crates/dory-wire/src/error.rs`, read from there), except what a vector cannot
express: the `stalled` reason needs a clock (only conversation vectors, whose
runners tick one, have it), and `invalid_state` needs the API called out of
order, which runners never do. `conversation` vectors must together show
every decision, every reconnect reason and every kind of read; there are at
least 25 `run-conversation` vectors, showing every step and a cancel both
before a request and during one.

Exits 1 and lists the problems if any check fails.
"""

import base64
import binascii
import json
import re
import sys
from pathlib import Path

U64_MAX = 2**64 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
B64_RE = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")

ENDPOINTS = {"exec", "process_output", "setup_logs", "document"}
GAP_POLICIES = {"fail", "skip"}
STREAMS = ("stdout", "stderr")
DISCONNECT_REASONS = {"end_of_body", "gap", "stalled"}
# What a decode vector cannot express, and why (the coverage check skips these).
UNCOVERABLE_REASONS = {"stalled": "liveness needs a clock; decode vectors have none (conversation vectors do)"}
# The reasons a follower reports: every one must appear in a conversation vector.
FOLLOW_REASONS = {"end_of_body", "gap", "stalled", "no_response", "not_connected", "unavailable"}
DECISIONS = {"done", "reconnect", "continue", "error"}
READS = {"process_output", "resume", "setup_logs", "exec_stream", "start", "exec", "get_process", "kill"}
OPTION_KEYS = {
    "follow",
    "gap_policy",
    "retries",
    "backoff_ms",
    "max_backoff_ms",
    "jitter",
    "liveness_timeout_ms",
    "max_frame_bytes",
    "strict",
}
RESPONSE_KEYS = {
    "status",
    "content_type",
    "proc_id",
    "retry_after",
    "body",
    "body_b64",
    "broken",
    "stall",
    "no_response",
    "not_connected",
}
# The transport failures a response may be instead of an answer (at most one).
NO_ANSWER_KEYS = {"no_response", "not_connected"}
# Error kinds of the core, by the vectors that can expect them.
DECODE_KINDS = {"Answer", "Loss", "Protocol"}
PREVIEW_KINDS = {"Limits"}
CONVERSATION_KINDS = {"Answer", "Loss", "Protocol", "Transport"}
UNCOVERABLE_KINDS = {"Misuse": "the runners never call the API out of order"}
# Misuse codes a conversation vector can still expect (bad arguments).
COVERABLE_MISUSE = {"invalid_argument"}

ERROR_RS = Path(__file__).resolve().parents[2] / "crates" / "dory-wire" / "src" / "error.rs"
ERROR_ROW = re.compile(r'code:\s*"([a-z_]+)",\s*class:\s*"\w+",\s*kind:\s*ErrorKind::(\w+)')


def core_error_codes():
    """{code: kind} from the core's error table, the one list of codes."""
    try:
        text = ERROR_RS.read_text(encoding="utf-8")
    except OSError as e:
        raise SystemExit(f"cannot read the error codes: {e}") from e
    codes = dict(ERROR_ROW.findall(text))
    if not codes:
        raise SystemExit(f"no error codes found in {ERROR_RS} (has the table's layout changed?)")
    return codes


ERROR_KINDS = core_error_codes()
DECODE_ERROR_CODES = {c for c, k in ERROR_KINDS.items() if k in DECODE_KINDS}
PREVIEW_ERROR_CODES = {c for c, k in ERROR_KINDS.items() if k in PREVIEW_KINDS}

DECODE_REQUIRED = {"name", "kind", "endpoint", "status", "content_type", "expect"}
DECODE_OPTIONAL = {"process_id_header", "cursor", "gap_policy", "max_frame_bytes", "strict", "body", "body_b64"}
RUN_CONVERSATION_KEYS = {
    "computer_id",
    "command",
    "idempotency_key",
    "random_hex",
    "timeout_seconds",
    "max_lines",
    "max_bytes",
    "hint",
    "kill_on_cancel",
    "spill",
    "on_output",
    "answer_timeout_ms",
    "keep",
    "terminal",
}
RUN_STEPS = {"send", "wait", "done", "cancelled", "error"}
RUN_STATES = {"finished", "cancelled", "failed"}
VIEWS = {"stdout", "stderr", "combined"}
RUN_KEYS = {
    "name",
    "kind",
    "max_lines",
    "max_bytes",
    "spill_id",
    "input",
    "spill",
    "hint",
    "keep",
    "terminal",
    "max_tokens",
    "tokenizer",
    "expect",
}
RUN_DATA_KEYS = {"stdout", "stderr", "stdout_b64", "stderr_b64"}
RUN_VIEW_KEYS = {
    "preview",
    "truncated",
    "total_bytes",
    "lost_bytes",
    "lost_ranges",
    "needs_spill",
    "spill_id",
    "spill_path",
    "spill_error",
    "tokens",
}
SEARCH_KEYS = {
    "name",
    "kind",
    "pattern",
    "input",
    "input_b64",
    "context",
    "max_lines",
    "max_bytes",
    "ignore_case",
    "path",
    "expect",
}
SEARCH_EXPECT_KEYS = {
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
}
SEARCH_ERROR_CODES = {"invalid_argument", "invalid_limits"}
PREVIEW_KEYS = {
    "name",
    "kind",
    "input",
    "input_b64",
    "max_lines",
    "max_bytes",
    "spill",
    "hint",
    "keep",
    "terminal",
    "max_tokens",
    "tokenizer",
    "expect",
}
TOKENIZERS = {"o200k_base", "cl100k_base", "approx"}

EVENT_KEYS = {
    "started": {"type", "proc_id"},
    "stdout": {"type", "data_b64", "start", "end"},
    "stderr": {"type", "data_b64", "start", "end"},
    "skipped": {"type", "stream", "from", "to"},
    "heartbeat": {"type"},
    "exit": {"type", "exit_code", "timed_out"},
    "unknown": {"type", "frame_type"},
    "identity": {"type", "proc_id", "status"},
    "result": {
        "type",
        "proc_id",
        "stdout_b64",
        "stderr_b64",
        "stdout_truncated",
        "stderr_truncated",
        "exit_code",
        "timed_out",
    },
}
# Keys an `end` may list (only the listed ones are compared by the runners).
END_REQUIRED = {"exited": {"type"}, "disconnected": {"type"}, "document": {"type"}, "error": {"type", "code"}}
END_ALLOWED = {
    "exited": {"type", "exit_code", "timed_out"},
    "disconnected": {"type", "reason"},
    "document": {"type"},
    "error": {"type", "code", "stream", "consumed", "earliest", "status", "api_code"},
}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_u64(v):
    return is_int(v) and 0 <= v <= U64_MAX


def strict_b64(s):
    """The bytes of a canonical, padded, standard-alphabet base64 string, or None."""
    if not isinstance(s, str) or len(s) % 4 or not B64_RE.match(s):
        return None
    try:
        data = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if base64.b64encode(data).decode("ascii") == s else None


class Checker:
    def __init__(self):
        self.problems = []
        self.warnings = []
        self.names = {}
        self.counts = {}
        self.seen = {
            "event": set(),
            "end": set(),
            "reason": set(),
            "code": set(),
            "decision": set(),
            "follow_reason": set(),
            "read": set(),
            "run": set(),
            "run_step": set(),
            "run_cancel": set(),
            "search": set(),
            "option": set(),
            "transport": set(),
            "no_answer": set(),
        }
        self.options = 0
        self.searches = 0
        self.runs = 0
        self.run_conversations = 0

    def err(self, where, msg):
        self.problems.append(f"{where}: {msg}")

    def warn(self, where, msg):
        self.warnings.append(f"{where}: {msg}")

    def check_cursor(self, where, cur, what="cursor"):
        if not isinstance(cur, dict) or not cur or set(cur) - set(STREAMS):
            self.err(where, f"{what} must be an object with keys stdout/stderr, got {cur!r}")
            return False
        for k, v in cur.items():
            if not is_u64(v):
                self.err(where, f"{what}.{k} must be an integer in 0..2^64-1, got {v!r}")
                return False
        return True

    def check_file(self, path, display):
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            self.err(display, f"cannot read as JSON: {e}")
            return
        if not isinstance(doc, dict) or set(doc) != {"vectors"} or not isinstance(doc["vectors"], list):
            self.err(display, 'a file must be exactly {"vectors": [...]}')
            return
        self.counts[display] = len(doc["vectors"])
        for i, v in enumerate(doc["vectors"]):
            where = f"{display}[{i}]"
            if not isinstance(v, dict):
                self.err(where, "a vector must be an object")
                continue
            name = v.get("name")
            if not isinstance(name, str) or not NAME_RE.match(name):
                self.err(where, f"name must be kebab-case, got {name!r}")
            else:
                where = f"{display}: {name}"
                if name in self.names:
                    self.err(where, f"duplicate name (also in {self.names[name]})")
                else:
                    self.names[name] = display
            kind = v.get("kind")
            if kind == "decode":
                self.check_decode(where, v)
            elif kind == "preview":
                self.check_preview(where, v)
            elif kind == "conversation":
                self.check_conversation(where, v)
            elif kind == "run":
                self.check_run(where, v)
            elif kind == "run-conversation":
                self.check_run_conversation(where, v)
            elif kind == "search":
                self.check_search(where, v)
            else:
                self.err(where, f"unknown kind {kind!r}")

    def check_options(self, where, v):
        """The optional `keep` (null, "defaults" or a list of strings) and
        `terminal` (a bool) of a preview or run vector."""
        keep = v.get("keep")
        if "keep" in v:
            if keep is None:
                self.seen["option"].add("keep_null")
            elif keep == "defaults":
                self.seen["option"].add("keep_defaults")
            elif isinstance(keep, list) and all(isinstance(p, str) for p in keep):
                self.seen["option"].add("keep_patterns")
            else:
                self.err(where, f'keep must be null, "defaults" or a list of strings, got {keep!r}')
        if "terminal" in v:
            if not isinstance(v["terminal"], bool):
                self.err(where, f"terminal must be a bool, got {v['terminal']!r}")
            elif v["terminal"]:
                self.seen["option"].add("terminal")
        if keep is not None and v.get("terminal") is True:
            self.seen["option"].add("keep_and_terminal")
        if keep is not None or v.get("terminal") is True:
            self.options += 1
        # The token limit (VECTORS.md): a whole number and a tokenizer's
        # name (an unknown one only to expect its refusal).
        if "max_tokens" in v and not is_u64(v["max_tokens"]):
            self.err(where, f"max_tokens must be a non-negative integer, got {v['max_tokens']!r}")
        if "tokenizer" in v:
            name = v["tokenizer"]
            refused = (v.get("expect") or {}).get("error", {}).get("code") == "invalid_argument"
            if not isinstance(name, str) or (name not in TOKENIZERS and not refused):
                self.err(where, f"tokenizer must be one of {sorted(TOKENIZERS)}, got {name!r}")
            else:
                self.seen["option"].add("tokens")

    def check_preview(self, where, v):
        unknown = set(v) - PREVIEW_KEYS
        if unknown:
            self.err(where, f"unknown keys {sorted(unknown)}")
        self.check_options(where, v)
        if ("input" in v) == ("input_b64" in v):
            self.err(where, "exactly one of input / input_b64 is required")
        expect = v.get("expect")
        if not isinstance(expect, dict):
            self.err(where, "expect must be an object")
        elif "error" in expect:
            error = expect["error"]
            code = error.get("code") if isinstance(error, dict) else None
            if code == "invalid_argument" and (v.get("keep") is not None or "tokenizer" in v):
                self.seen["code"].add(code)
            elif code not in PREVIEW_ERROR_CODES:
                self.err(where, f"a preview error must be one of {sorted(PREVIEW_ERROR_CODES)}, got {code!r}")
            else:
                self.seen["code"].add(code)

    def check_search(self, where, v):
        """The format of kind "search" (VECTORS.md)."""
        self.searches += 1
        unknown = set(v) - SEARCH_KEYS
        if unknown:
            self.err(where, f"unknown keys {sorted(unknown)}")
        if ("input" in v) == ("input_b64" in v):
            self.err(where, "exactly one of input / input_b64 is required")
        elif "input_b64" in v and strict_b64(v["input_b64"]) is None:
            self.err(where, "input_b64 is not strict base64")
        if not isinstance(v.get("pattern"), str):
            self.err(where, "pattern must be a string")
        for key in ("context", "max_lines", "max_bytes"):
            if key in v and not is_u64(v[key]):
                self.err(where, f"{key} must be a non-negative integer")
        if "ignore_case" in v and not isinstance(v["ignore_case"], bool):
            self.err(where, "ignore_case must be a boolean")
        if v.get("path") is not None and not isinstance(v["path"], str):
            self.err(where, "path must be a string or null")
        expect = v.get("expect")
        if not isinstance(expect, dict) or not expect:
            self.err(where, "expect must be a non-empty object")
            return
        if "error" in expect:
            error = expect["error"]
            if set(expect) != {"error"} or not isinstance(error, dict) or set(error) - {"code", "argument"}:
                self.err(where, 'an error expect is {"error": {"code": ..., "argument": ...}} alone')
            elif error.get("code") not in SEARCH_ERROR_CODES:
                self.err(
                    where, f"a search error must be one of {sorted(SEARCH_ERROR_CODES)}, got {error.get('code')!r}"
                )
            else:
                self.seen["search"].add("error")
            return
        unknown = set(expect) - SEARCH_EXPECT_KEYS
        if unknown:
            self.err(where, f"unknown expect keys {sorted(unknown)}")
        counts = [expect.get(k) for k in ("matched_lines", "shown_lines", "omitted_lines")]
        if all(is_u64(c) for c in counts) and counts[0] != counts[1] + counts[2]:
            self.err(where, "matched_lines must be shown_lines + omitted_lines")
        text = expect.get("text")
        if isinstance(text, str):
            size = len(text.encode("utf-8"))
            if size > v.get("max_bytes", 16384) or text.count("\n") > v.get("max_lines", 400):
                self.err(where, "the expected text is over the limits")
            self.seen["search"].add("truncated" if expect.get("truncated") else "whole")
            if v.get("context"):
                self.seen["search"].add("context")
            if expect.get("matched_lines") == 0:
                self.seen["search"].add("no_match")
            if expect.get("long_lines"):
                self.seen["search"].add("long_line")

    def check_run(self, where, v):
        self.runs += 1
        unknown = set(v) - RUN_KEYS
        if unknown:
            self.err(where, f"unknown keys {sorted(unknown)}")
        self.check_options(where, v)
        if v.get("keep") is not None or v.get("terminal") is True:
            self.seen["option"].add("run")
        for key in ("max_lines", "max_bytes"):
            if not is_int(v.get(key)) or v[key] < 0:
                self.err(where, f"{key} must be a non-negative integer")
        if not isinstance(v.get("spill_id"), str):
            self.err(where, "spill_id must be a string")
        items = v.get("input")
        if not isinstance(items, list):
            self.err(where, "input must be a list")
            items = []
        for item in items:
            if not isinstance(item, dict) or not item:
                self.err(where, f"input item {item!r} is not an object")
            elif "lost" in item:
                if item.get("lost") not in ("stdout", "stderr") or set(item) != {"lost", "from", "to"}:
                    self.err(where, f"a loss is {{lost: stream, from, to}}, got {item!r}")
                else:
                    self.seen["run"].add("lost")
            elif len(item) != 1 or next(iter(item)) not in RUN_DATA_KEYS:
                self.err(where, f"an output item has one key of {sorted(RUN_DATA_KEYS)}, got {item!r}")
            else:
                self.seen["run"].add(next(iter(item)).removesuffix("_b64"))
        spill = v.get("spill", {})
        if not isinstance(spill, dict) or set(spill) - {"stdout", "stderr", "combined"}:
            self.err(where, "spill maps views (stdout, stderr, combined) to {path} or {fails: true}")
        expect = v.get("expect")
        if not isinstance(expect, dict):
            self.err(where, "expect must be an object")
        elif "error" in expect:
            if expect["error"] != {"code": "invalid_limits"} and (
                expect["error"] != {"code": "invalid_argument"} or v.get("keep") is None
            ):
                self.err(where, "a run's errors are invalid_limits, and invalid_argument for a refused keep pattern")
        else:
            for view in ("stdout", "stderr", "combined"):
                got = expect.get(view)
                if not isinstance(got, dict) or set(got) - RUN_VIEW_KEYS or "preview" not in got:
                    self.err(where, f"expect.{view} must hold preview and only {sorted(RUN_VIEW_KEYS)}")
                elif "[... the last " in got["preview"]:
                    self.seen["run"].add("stderr_section")

    def check_decode(self, where, v):
        missing = DECODE_REQUIRED - set(v)
        if missing:
            self.err(where, f"missing keys {sorted(missing)}")
        unknown = set(v) - DECODE_REQUIRED - DECODE_OPTIONAL
        if unknown:
            self.err(where, f"unknown keys {sorted(unknown)}")
        endpoint = v.get("endpoint")
        if endpoint not in ENDPOINTS:
            self.err(where, f"unknown endpoint {endpoint!r}")
        status = v.get("status")
        if not is_int(status) or not 100 <= status <= 599:
            self.err(where, f"status must be an HTTP status, got {status!r}")
        if not isinstance(v.get("content_type"), str):
            self.err(where, 'content_type must be a string ("" for no Content-Type)')
        if "process_id_header" in v and not isinstance(v["process_id_header"], str):
            self.err(where, "process_id_header must be a string")
        if "gap_policy" in v and v["gap_policy"] not in GAP_POLICIES:
            self.err(where, f"gap_policy must be fail or skip, got {v['gap_policy']!r}")
        if "strict" in v and not isinstance(v["strict"], bool):
            self.err(where, "strict must be a bool")
        if "max_frame_bytes" in v and not (is_int(v["max_frame_bytes"]) and v["max_frame_bytes"] >= 1):
            self.err(where, "max_frame_bytes must be a positive integer")
        start = {"stdout": 0, "stderr": 0}
        if "cursor" in v and self.check_cursor(where, v["cursor"]):
            start.update(v["cursor"])
        if ("body" in v) == ("body_b64" in v):
            self.err(where, "exactly one of body / body_b64 is required")
        elif "body" in v and not isinstance(v["body"], str):
            self.err(where, "body must be a string")
        elif "body_b64" in v:
            raw = strict_b64(v["body_b64"])
            if raw is None:
                self.err(where, "body_b64 is not strict base64")
            else:
                try:
                    raw.decode("utf-8")
                    self.err(where, "body_b64 holds valid UTF-8: use body")
                except UnicodeDecodeError:
                    pass
        expect = v.get("expect")
        if not isinstance(expect, dict):
            self.err(where, "expect must be an object")
            return
        unknown = set(expect) - {"events", "end", "cursor"}
        if unknown:
            self.err(where, f"unknown expect keys {sorted(unknown)}")
        if "events" not in expect or "end" not in expect:
            self.err(where, "expect needs events and end")
        if endpoint in ENDPOINTS - {"document"} and "cursor" not in expect:
            self.warn(where, "stream endpoint without expect.cursor")
        if endpoint == "setup_logs" and start["stderr"] != 0:
            self.err(where, "setup logs have one stream: cursor.stderr must be 0")
        events = expect.get("events", [])
        if not isinstance(events, list):
            self.err(where, "expect.events must be a list")
            events = []
        pos = dict(start)
        last_exit = None
        for n, e in enumerate(events):
            ew = f"{where}: events[{n}]"
            if last_exit is not None:
                self.err(ew, "no event may follow exit")
            if not self.check_event(ew, e):
                continue
            t = e["type"]
            if t in STREAMS:
                if endpoint == "setup_logs" and t == "stderr":
                    self.err(ew, "setup logs never produce stderr")
                if e["start"] != pos[t]:
                    self.err(ew, f"{t} event starts at {e['start']} but the {t} cursor is at {pos[t]}")
                pos[t] = e["end"]
            elif t == "skipped":
                if endpoint == "setup_logs" and e["stream"] == "stderr":
                    self.err(ew, "setup logs never skip stderr")
                if e["from"] != pos[e["stream"]]:
                    self.err(ew, f"skipped starts at {e['from']} but the cursor is at {pos[e['stream']]}")
                pos[e["stream"]] = e["to"]
            elif t == "exit":
                last_exit = e
        end = expect.get("end")
        self.check_end(where, end, last_exit, events)
        if "cursor" in expect and self.check_cursor(where, expect["cursor"], "expect.cursor"):
            want = {"stdout": 0, "stderr": 0}
            want.update(expect["cursor"])
            if want != pos:
                self.err(where, f"expect.cursor {want} is not where the events leave the cursor {pos}")

    def check_event(self, where, e):
        if not isinstance(e, dict) or e.get("type") not in EVENT_KEYS:
            self.err(where, f"unknown event {e!r}")
            return False
        t = e["type"]
        self.seen["event"].add(t)
        if set(e) != EVENT_KEYS[t]:
            self.err(where, f"{t} event must have exactly the keys {sorted(EVENT_KEYS[t])}")
            return False
        ok = True
        if t in STREAMS:
            data = strict_b64(e["data_b64"])
            if data is None:
                self.err(where, "data_b64 is not strict base64")
                ok = False
            elif not data:
                self.err(where, "an output event carries at least one byte (no-byte chunks produce no event)")
                ok = False
            if not (is_u64(e["start"]) and is_u64(e["end"])):
                self.err(where, "start/end must be integers in 0..2^64-1")
                ok = False
            elif data is not None and e["end"] - e["start"] != len(data):
                self.err(where, f"end - start = {e['end'] - e['start']} but data_b64 holds {len(data)} bytes")
                ok = False
        elif t == "skipped":
            if e["stream"] not in STREAMS:
                self.err(where, f"unknown stream {e['stream']!r}")
                ok = False
            if not (is_u64(e["from"]) and is_u64(e["to"]) and e["from"] < e["to"]):
                self.err(where, "skipped needs integers from < to")
                ok = False
        elif t in ("started", "identity", "result"):
            if not isinstance(e["proc_id"], str) or not e["proc_id"]:
                self.err(where, "proc_id must be a non-empty string")
                ok = False
            if t == "identity" and e["status"] not in ("running", "exited"):
                self.err(where, "identity status must be running or exited")
                ok = False
            if t == "result":
                for k in ("stdout_b64", "stderr_b64"):
                    if strict_b64(e[k]) is None:
                        self.err(where, f"{k} is not strict base64")
                        ok = False
                for k in ("stdout_truncated", "stderr_truncated", "timed_out"):
                    if not isinstance(e[k], bool):
                        self.err(where, f"{k} must be a bool")
                        ok = False
        elif t == "unknown" and not isinstance(e["frame_type"], str):
            self.err(where, "frame_type must be a string")
            ok = False
        if t in ("exit", "result"):
            code = e["exit_code"]
            if code is not None and not (is_int(code) and I64_MIN <= code <= I64_MAX):
                self.err(where, "exit_code must be an i64 or null")
                ok = False
            if not isinstance(e["timed_out"], bool):
                self.err(where, "timed_out must be a bool")
                ok = False
        return ok

    def check_end(self, where, end, last_exit, events):
        where = f"{where}: end"
        if not isinstance(end, dict) or end.get("type") not in END_ALLOWED:
            self.err(where, f"unknown end {end!r}")
            return
        t = end["type"]
        self.seen["end"].add(t)
        if t == "disconnected" and "reason" in end:
            self.seen["reason"].add(end["reason"])
        if t == "error" and end.get("code") in DECODE_ERROR_CODES:
            self.seen["code"].add(end["code"])
        if END_REQUIRED[t] - set(end):
            self.err(where, f"{t} end needs {sorted(END_REQUIRED[t])}")
        unknown = set(end) - END_ALLOWED[t]
        if unknown:
            self.err(where, f"unknown keys {sorted(unknown)} for a {t} end")
        if t == "exited":
            if last_exit is None:
                self.err(where, "exited end without an exit event")
            else:
                for k in ("exit_code", "timed_out"):
                    if k in end and end[k] != last_exit[k]:
                        self.err(where, f"{k} differs from the exit event")
        elif last_exit is not None and t == "disconnected":
            self.err(where, "an exit event was seen: the end is exited (or an error)")
        if t == "disconnected" and "reason" in end and end["reason"] not in DISCONNECT_REASONS:
            self.err(where, f"unknown disconnect reason {end['reason']!r}")
        if t == "document" and not any(e.get("type") in ("identity", "result") for e in events if isinstance(e, dict)):
            self.err(where, "document end without an identity or result event")
        if t == "error":
            if end.get("code") not in DECODE_ERROR_CODES:
                self.err(
                    where,
                    f"{end.get('code')!r} is not an error code a decode vector can expect "
                    f"(one of {sorted(DECODE_ERROR_CODES)})",
                )
            if "stream" in end and end["stream"] not in STREAMS:
                self.err(where, f"unknown stream {end['stream']!r}")
            for k in ("consumed", "earliest"):
                if k in end:
                    self.check_cursor(where, end[k], k)
            if "status" in end and not (is_int(end["status"]) and 100 <= end["status"] <= 599):
                self.err(where, "status must be an HTTP status")
            if "api_code" in end and end["api_code"] is not None and not isinstance(end["api_code"], str):
                self.err(where, "api_code must be a string or null")

    def check_conversation(self, where, v):
        extra = set(v) - {"name", "kind", "read", "options", "exchanges", "expect"}
        if extra:
            self.err(where, f"unknown keys {sorted(extra)}")
        read = v.get("read")
        if not isinstance(read, dict) or read.get("type") not in READS:
            self.err(where, f"read.type must be one of {sorted(READS)}")
        else:
            self.seen["read"].add(read["type"])
            if not isinstance(read.get("computer_id"), str):
                self.err(where, "read.computer_id must be a string")
            if "cursor" in read:
                self.check_cursor(where, read["cursor"], "read.cursor")
        options = v.get("options", {})
        if not isinstance(options, dict) or set(options) - OPTION_KEYS:
            self.err(where, f"options may only hold {sorted(OPTION_KEYS)}")
        exchanges = v.get("exchanges")
        if not isinstance(exchanges, list) or not exchanges:
            self.err(where, "exchanges must be a non-empty list")
            return
        for i, e in enumerate(exchanges):
            at = f"{where}: exchange {i}"
            decision = e.get("decision") if isinstance(e, dict) else None
            if not isinstance(decision, dict) or decision.get("type") not in DECISIONS:
                self.err(at, f"decision.type must be one of {sorted(DECISIONS)}")
                continue
            self.seen["decision"].add(decision["type"])
            last = i == len(exchanges) - 1
            if last != (decision["type"] in ("done", "error")):
                self.err(at, "done and error end a conversation, and only its last exchange")
            if decision["type"] == "reconnect":
                reason = decision.get("reason")
                if reason not in FOLLOW_REASONS:
                    self.err(at, f"reason must be one of {sorted(FOLLOW_REASONS)}")
                self.seen["follow_reason"].add(reason)
                for key in ("attempt", "failures"):
                    if not is_u64(decision.get(key)):
                        self.err(at, f"{key} must be a count")
                if not isinstance(decision.get("delay_ms"), (int, float)) or decision["delay_ms"] < 0:
                    self.err(at, "delay_ms must be a number >= 0")
                self.check_cursor(at, decision.get("cursor"))
            if decision["type"] == "error":
                code = decision.get("code")
                if code not in ERROR_KINDS:
                    self.err(at, f"unknown error code {code!r}")
                self.seen["code"].add(code)
                self.check_no_answer_error(at, decision)
            if "request" not in e:
                if i != 0 or decision["type"] != "error":
                    self.err(at, "only a follower that cannot be built has an exchange without a request")
                continue
            request = e["request"]
            if (
                not isinstance(request, dict)
                or request.get("method") not in ("GET", "POST")
                or not str(request.get("target", "")).startswith("/")
            ):
                self.err(at, "request needs method GET/POST and a target starting with /")
            response = e.get("response")
            if not isinstance(response, dict) or set(response) - RESPONSE_KEYS:
                self.err(at, f"response may only hold {sorted(RESPONSE_KEYS)}")
                continue
            if "body_b64" in response and strict_b64(response["body_b64"]) is None:
                self.err(at, "body_b64 is not strict base64")
            if not NO_ANSWER_KEYS & set(response) and "status" not in response and not response.get("stall"):
                self.err(at, "a response has a status, or no_response, or not_connected, or stall")
            self.check_no_answer(at, response)
            jitter = e.get("jitter", 0)
            if not isinstance(jitter, (int, float)) or not 0 <= jitter <= 1:
                self.err(at, "jitter must be a number in [0, 1]")
        expect = v.get("expect")
        if not isinstance(expect, dict):
            self.err(where, "expect must be an object")

    def check_no_answer(self, at, response):
        """`no_response` and `not_connected` are the transport's detail (a
        string), one at most, never with a status."""
        failures = NO_ANSWER_KEYS & set(response)
        if len(failures) > 1:
            self.err(at, "a response is no_response or not_connected, not both")
        for key in failures:
            if not isinstance(response[key], str):
                self.err(at, f"{key} must be the transport's detail, a string")
            if "status" in response:
                self.err(at, f"a response with {key} has no status")
            if key == "not_connected":
                self.seen["transport"].add(key)

    def check_no_answer_error(self, at, error):
        """A `no_answer` error says whether some attempt may have reached the
        service (`reached`, a boolean) when it names it."""
        if error.get("code") != "no_answer" or "reached" not in error:
            return
        if not isinstance(error["reached"], bool):
            self.err(at, "reached must be a boolean")
        else:
            self.seen["no_answer"].add("reached" if error["reached"] else "never_reached")

    def check_run_conversation(self, where, v):
        """The format of kind "run-conversation" (VECTORS.md)."""
        self.run_conversations += 1
        extra = set(v) - {"name", "kind", "run", "options", "exchanges", "expect", "spill_writer"}
        if extra:
            self.err(where, f"unknown keys {sorted(extra)}")
        run = v.get("run")
        if not isinstance(run, dict) or set(run) - RUN_CONVERSATION_KEYS:
            self.err(where, f"run may only hold {sorted(RUN_CONVERSATION_KEYS)}")
        elif not isinstance(run.get("computer_id"), str) or "command" not in run:
            self.err(where, "run needs computer_id and command")
        elif "random_hex" in run and not re.fullmatch(r"[0-9a-f]{32}", str(run["random_hex"])):
            self.err(where, "random_hex must be 32 lowercase hex digits")
        elif "keep" in run and not (
            run["keep"] is None
            or run["keep"] == "defaults"
            or (isinstance(run["keep"], list) and all(isinstance(p, str) for p in run["keep"]))
        ):
            self.err(where, f'run.keep must be null, "defaults" or a list of strings, got {run["keep"]!r}')
        elif "terminal" in run and not isinstance(run["terminal"], bool):
            self.err(where, "run.terminal must be a boolean")
        options = v.get("options", {})
        if not isinstance(options, dict) or set(options) - OPTION_KEYS:
            self.err(where, f"options may only hold {sorted(OPTION_KEYS)}")
        writer = v.get("spill_writer")
        if writer is not None and (
            not isinstance(writer, dict)
            or writer.get("view") not in VIEWS
            or writer.get("at") not in ("open", "write", "commit")
        ):
            self.err(where, "spill_writer needs a view and at: open, write or commit")
        exchanges = v.get("exchanges")
        if not isinstance(exchanges, list) or not exchanges:
            self.err(where, "exchanges must be a non-empty list")
            return
        for i, e in enumerate(exchanges):
            at = f"{where}: exchange {i}"
            step = e.get("step") if isinstance(e, dict) else None
            if not isinstance(step, dict) or step.get("type") not in RUN_STEPS:
                self.err(at, f"step.type must be one of {sorted(RUN_STEPS)}")
                continue
            self.seen["run_step"].add(step["type"])
            if step["type"] == "error":
                if step.get("code") not in ERROR_KINDS:
                    self.err(at, f"unknown error code {step.get('code')!r}")
                if i != len(exchanges) - 1:
                    self.err(at, "an error ends a run conversation")
                self.check_no_answer_error(at, step)
            if step["type"] == "wait" and (
                not isinstance(step.get("delay_ms"), (int, float)) or "reconnect" not in step
            ):
                self.err(at, "a wait step has delay_ms and reconnect (a record or null)")
            if e.get("cancel"):
                self.seen["run_cancel"].add("with_request" if "request" in e else "before_request")
            if "request" in e:
                response = e.get("response")
                if response is not None and (
                    not isinstance(response, dict) or set(response) - RESPONSE_KEYS - {"pieces"}
                ):
                    self.err(at, f"response may only hold {sorted(RESPONSE_KEYS | {'pieces'})}")
                if response is None and not e.get("cancel"):
                    self.err(at, "an exchange without a response cancels")
                if isinstance(response, dict):
                    self.check_no_answer(at, response)
            elif not e.get("cancel") and not (i == 0 and step["type"] == "error"):
                self.err(at, "an exchange without a request cancels, or is the error of a run not built")
        expect = v.get("expect")
        if not isinstance(expect, dict) or expect.get("state") not in RUN_STATES:
            self.err(where, f"expect.state must be one of {sorted(RUN_STATES)}")
        else:
            for view in expect.get("spills", {}):
                if view not in VIEWS:
                    self.err(where, f"unknown spill view {view!r}")
            for end in (f.get("end") for f in expect.get("spills", {}).values()):
                if end not in ("commit", "discard", "failed", "open"):
                    self.err(where, f"a spill ends commit, discard, failed or open, not {end!r}")

    def check_coverage(self):
        """At least one vector for every event, end, reason and error code."""
        wanted = {
            "event": set(EVENT_KEYS),
            "end": set(END_ALLOWED) - {"error"},
            "reason": DISCONNECT_REASONS - set(UNCOVERABLE_REASONS),
            "code": {c for c, k in ERROR_KINDS.items() if k not in UNCOVERABLE_KINDS} | COVERABLE_MISUSE,
            "decision": DECISIONS,
            "follow_reason": FOLLOW_REASONS,
            "read": READS,
            "run": {"stdout", "stderr", "lost", "stderr_section"},
            "run_step": RUN_STEPS,
            "run_cancel": {"with_request", "before_request"},
            "transport": {"not_connected"},
            "no_answer": {"reached", "never_reached"},
            "search": {"whole", "truncated", "context", "no_match", "long_line", "error"},
            "option": {"keep_null", "keep_defaults", "keep_patterns", "terminal", "keep_and_terminal", "run"},
        }
        if self.options < 30:
            self.err("coverage", f"only {self.options} vectors with keep or terminal (at least 30)")
        if self.run_conversations < 25:
            self.err("coverage", f"only {self.run_conversations} run-conversation vectors (at least 25)")
        if self.searches < 20:
            self.err("coverage", f"only {self.searches} search vectors (at least 20)")
        if self.runs < 15:
            self.err("coverage", f"only {self.runs} run vectors (at least 15)")
        unknown_kinds = (
            set(ERROR_KINDS.values()) - DECODE_KINDS - PREVIEW_KINDS - CONVERSATION_KINDS - set(UNCOVERABLE_KINDS)
        )
        if unknown_kinds:
            self.err("coverage", f"error kinds {sorted(unknown_kinds)} of error.rs are unknown to this checker")
        for what, names in wanted.items():
            for name in sorted(names - self.seen[what]):
                self.err("coverage", f"no vector expects the {what} {name!r}")
        return wanted


def main(argv):
    root = Path(__file__).resolve().parent
    targets = [Path(a) for a in argv] or [root]
    files = []
    for t in targets:
        files.extend(sorted(t.rglob("*.json")) if t.is_dir() else [t])
    if not files:
        print("no vector files found", file=sys.stderr)
        return 1
    checker = Checker()
    for f in files:
        try:
            display = str(f.resolve().relative_to(root))
        except ValueError:
            display = str(f)
        checker.check_file(f, display)
    if not argv:
        wanted = checker.check_coverage()
        exempt = [f"{r} ({why})" for r, why in UNCOVERABLE_REASONS.items()]
        exempt += [
            f"{c} ({why})"
            for c, k in sorted(ERROR_KINDS.items())
            if (why := UNCOVERABLE_KINDS.get(k)) and c not in COVERABLE_MISUSE
        ]
        print(
            f"coverage: {len(wanted['event'])} event types, {len(wanted['end'])} end types, "
            f"{len(wanted['reason'])} disconnect reasons, {len(wanted['code'])} error codes, "
            f"{len(wanted['decision'])} decisions, {len(wanted['follow_reason'])} reconnect reasons, "
            f"{len(wanted['read'])} reads; "
            f"not expressible: {', '.join(exempt)}"
        )
    for w in checker.warnings:
        print(f"warning: {w}")
    for p in checker.problems:
        print(f"error: {p}")
    total = sum(checker.counts.values())
    for display, n in sorted(checker.counts.items()):
        print(f"{n:5d}  {display}")
    print(
        f"{total:5d}  vectors in {len(checker.counts)} files: "
        + ("OK" if not checker.problems else f"{len(checker.problems)} problem(s)")
    )
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
