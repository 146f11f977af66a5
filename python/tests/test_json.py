"""Preview.to_json() and RunResult.to_json() on real results (bound(), the
streaming bounder, a run against the reference server), validated with
``jsonschema`` against docs/schema/*.schema.json: every field equal to the
object's, the notices whole lines of ``text`` in order, ``text`` without them
the output shown, and mutated documents refused by the schema."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from run_server import refserver

from dory_wire import Notice, Preview, StreamingBounder, bound
from dory_wire.client import Client, RunResult, SpillDirectory

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "docs" / "schema"
KINDS = {"omitted", "kept", "terminal", "stderr", "lost", "end"}


def _load(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return schema


PREVIEW_SCHEMA = _load("preview.schema.json")
RUN_SCHEMA = _load("run-result.schema.json")
REGISTRY: Registry = Registry().with_resources(
    (s["$id"], Resource.from_contents(s)) for s in (PREVIEW_SCHEMA, RUN_SCHEMA)
)
PREVIEW = Draft202012Validator(PREVIEW_SCHEMA, registry=REGISTRY)
RUN = Draft202012Validator(RUN_SCHEMA, registry=REGISTRY)


def check_preview(doc: dict[str, Any], p: Preview) -> list[str]:
    """Checks a preview's document against the preview; returns its kinds."""
    PREVIEW.validate(doc)
    assert list(doc) == list(PREVIEW_SCHEMA["required"])  # every key, in order
    for key in doc:
        if key == "notices":
            continue  # compared below, as Notice objects
        want = getattr(p, key)
        if key == "omitted_range" and want is not None:
            want = {"first": want[0], "last": want[1]}
        assert doc[key] == want, key
    lines = p.text.split("\n")
    last = 0
    for notice in doc["notices"]:
        assert notice["line"] > last  # in order
        last = notice["line"]
        assert lines[notice["line"] - 1] == notice["text"]
        assert notice["text"].startswith("[... ")
        assert notice["text"].endswith(" ...]")
    kinds = [n["kind"] for n in doc["notices"]]
    assert p.truncated == ("omitted" in kinds)
    # The same notices as objects: Preview.notices.
    assert [(n.kind, n.line, n.text) for n in p.notices] == [
        (n["kind"], n["line"], n["text"]) for n in doc["notices"]
    ]
    assert all(isinstance(n, Notice) for n in p.notices)
    return kinds


def without_notices(doc: dict[str, Any]) -> str:
    """``text`` without its notice lines."""
    drop = {n["line"] - 1 for n in doc["notices"]}
    return "\n".join(line for i, line in enumerate(doc["text"].split("\n")) if i not in drop)


def shown(data: str, p: Preview) -> str:
    """What a plain cut shows: head, a line break when it ends inside a line, tail."""
    head, tail = data[: p.head_bytes], data[len(data) - p.tail_bytes :]
    return head + ("\n" if head and not head.endswith("\n") else "") + tail


def doc_of(p: Preview) -> dict[str, Any]:
    out = p.to_json()
    assert isinstance(out, str)
    doc: dict[str, Any] = json.loads(out)
    assert json.dumps(doc, ensure_ascii=False, separators=(",", ":")) == out  # compact, canonical
    return doc


LOG = "".join(f"[{i:04}] step {i}: ok\n" for i in range(1, 301))


@pytest.mark.parametrize(
    ("max_lines", "max_bytes"), [(40, 600), (7, 600), (1, 600), (10, 80), (10, 40)]
)
@pytest.mark.parametrize("spill", [None, lambda spill_id, data: f"/tmp/tool output/{spill_id}.txt"])
def test_a_cut_has_one_omitted_notice(max_lines: int, max_bytes: int, spill: Any) -> None:
    p = bound(LOG, max_lines=max_lines, max_bytes=max_bytes, spill=spill)
    doc = doc_of(p)
    assert check_preview(doc, p) == ["omitted"]
    assert without_notices(doc) == shown(LOG, p)


def test_input_that_fits_has_no_notice_and_keeps_its_text() -> None:
    data = 'a "quoted" line\twith a tab \x01 and \u2028 é\n'
    p = bound(data, max_lines=10, max_bytes=1000)
    doc = doc_of(p)
    assert check_preview(doc, p) == []
    assert doc["text"] == data
    assert '\\"quoted\\" line\\twith a tab \\u0001' in p.to_json()


def test_kept_lines_terminal_rendering_and_streaming() -> None:
    data = "".join(
        f"\x1b[32mcompiling\x1b[0m {i}\r\x1b[Kbuilt {i}\n"
        + ("error[E0308]: mismatched types\n" if i == 200 else "")
        for i in range(1, 401)
    )
    saved = "/w/.tool-output/x.txt"
    p = bound(
        data, max_lines=40, max_bytes=4000, keep="defaults", terminal=True, spill=lambda i, d: saved
    )
    doc = doc_of(p)
    assert check_preview(doc, p) == ["omitted", "kept", "terminal"]
    assert "201:error[E0308]: mismatched types" in without_notices(doc)
    assert "\x1b" not in without_notices(doc)
    streaming = StreamingBounder(40, 4000, keep="defaults", terminal=True)
    for i in range(0, len(data), 1000):
        streaming.push(data[i : i + 1000].encode())
    again = streaming.finish(spill=lambda spill_id: saved)
    assert json.loads(again.to_json())["notices"] == doc["notices"]
    fits = bound("50%\r100%\n", max_lines=10, max_bytes=1000, terminal=True)
    doc = doc_of(fits)
    assert check_preview(doc, fits) == ["terminal"]
    assert without_notices(doc) == "100%\n"


def test_a_mutated_document_is_refused() -> None:
    p = bound(LOG, max_lines=10, max_bytes=600)
    doc = doc_of(p)
    PREVIEW.validate(doc)
    mutations = [
        lambda d: d.update(extra=1),
        lambda d: d.pop("notices"),
        lambda d: d.update(total_bytes=-1),
        lambda d: d.update(total_bytes="1"),
        lambda d: d.update(omitted_range=[1, 2]),
        lambda d: d["omitted_range"].update(middle=3),
        lambda d: d["notices"][0].update(kind="bogus"),
        lambda d: d["notices"][0].update(line=0),
        lambda d: d["notices"][0].pop("text"),
        lambda d: d["notices"].append({"kind": "lost", "line": 1, "text": "x", "more": True}),
        lambda d: d.update(spill_id=5),
        lambda d: d.update(tokens=-1),
        lambda d: d.update(tokens="12"),
        lambda d: d.pop("tokens"),
    ]
    for mutate in mutations:
        bad = copy.deepcopy(doc)
        mutate(bad)
        assert not PREVIEW.is_valid(bad), bad


@pytest.mark.parametrize("tokenizer", [None, "approx", "cl100k_base"])
def test_tokens_is_the_last_field(tokenizer: str | None) -> None:
    # null without a token limit; with one, the count of text, at most max_tokens.
    max_tokens = None if tokenizer is None else 120
    p = bound(LOG, max_lines=40, max_bytes=2000, max_tokens=max_tokens, tokenizer=tokenizer)
    doc = doc_of(p)
    assert check_preview(doc, p) == ["omitted"]
    assert doc["tokens"] == p.tokens
    if tokenizer is None:
        assert p.to_json().endswith(',"tokens":null}')
    else:
        assert p.to_json().endswith(f',"tokens":{p.tokens}}}')
        assert p.tokens is not None
        assert 0 < p.tokens <= 120
    # A tokenizer alone only counts.
    counted = bound("a b c\n", max_lines=5, max_bytes=100, tokenizer="approx")
    assert counted.tokens is not None
    assert doc_of(counted)["tokens"] == counted.tokens


def test_a_real_run_returns_its_result_as_json(tmp_path: Path) -> None:
    command = [
        "sh",
        "-c",
        "seq 1 3000; sleep 0.2; echo 'warning: deprecated' >&2;"
        " echo 'error: the one line that mattered' >&2; sleep 0.2; seq 1 500",
    ]
    with refserver() as server, Client(server.url) as client:
        computer = client.computers.get("run")
        result = computer.run(command, max_lines=40, max_bytes=2000, spill=SpillDirectory(tmp_path))
    out = result.to_json()
    doc: dict[str, Any] = json.loads(out)
    RUN.validate(doc)
    assert list(doc) == list(RUN_SCHEMA["required"])
    for key in (
        "proc_id",
        "idempotency_key",
        "exit_code",
        "timed_out",
        "stdout_lost_bytes",
        "stderr_lost_bytes",
    ):
        assert doc[key] == getattr(result, key), key
    for view in ("stdout", "stderr", "combined"):
        preview = getattr(result, view)
        kinds = check_preview(doc[view], preview)
        assert set(kinds) <= KINDS
        # Embedded as the preview writes itself.
        assert f'"{view}":{preview.to_json()}' in out
    kinds = check_preview(doc["combined"], result.combined)
    # The cut, the error kept from the middle when run keeps lines, the
    # stderr section, and how the process ended.
    assert kinds in (["omitted", "stderr", "end"], ["omitted", "kept", "stderr", "end"])
    assert doc["combined"]["notices"][-1]["text"] == "[... exit code 0 ...]"
    assert without_notices(doc["combined"]).endswith(
        "warning: deprecated\nerror: the one line that mattered\n"
    )
    assert doc["exit_code"] == 0
    bad = copy.deepcopy(doc)
    bad["combined"]["notices"][0]["kind"] = "omitted!"
    assert not RUN.is_valid(bad)
    bad = copy.deepcopy(doc)
    del bad["proc_id"]
    assert not RUN.is_valid(bad)


def test_exact_integers_and_a_run_result_built_by_hand() -> None:
    p = bound(LOG, max_lines=10, max_bytes=600)
    result = RunResult(
        proc_id="p_1",
        idempotency_key="k",
        exit_code=-(2**63),
        timed_out=True,
        stdout=p,
        stderr=p,
        combined=p,
        stdout_lost_bytes=2**64 - 1,
        stderr_lost_bytes=2**53 + 1,
    )
    out = result.to_json()
    assert '"exit_code":-9223372036854775808,' in out
    assert '"stdout_lost_bytes":18446744073709551615,' in out
    assert out.endswith('"stderr_lost_bytes":9007199254740993}')
    RUN.validate(json.loads(out))
    with pytest.raises(OverflowError):
        RunResult(**{**result.__dict__, "stdout_lost_bytes": 2**64}).to_json()
    with pytest.raises(TypeError, match=r"RunResult\.stderr must be a Preview, not str"):
        RunResult(**{**result.__dict__, "stderr": "text"}).to_json()  # type: ignore[arg-type]


CASES = json.loads((ROOT / "tests" / "api" / "canonical-json.json").read_text(encoding="utf-8"))[
    "cases"
]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_shared_cases_give_the_same_bytes(case: dict[str, Any]) -> None:
    data = "".join(text * times for text, times in case["input"])
    path = case["spill_path"]
    p = bound(
        data,
        max_lines=case["max_lines"],
        max_bytes=case["max_bytes"],
        spill=(lambda spill_id, data: path) if path is not None else None,
        spill_id=case["spill_id"],
        hint=case["hint"],
        keep=case["keep"],
        terminal=case["terminal"],
    )
    assert p.to_json() == case["json"]
    check_preview(json.loads(case["json"]), p)
