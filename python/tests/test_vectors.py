"""The shared conformance vectors: every tests/vectors/**/*.json, every kind.

A decode vector is fed whole, one byte at a time and at the seeded random
split points of the Rust runner (the same SplitMix64 and seed, so the same
cuts; as bytes, bytearray and memoryview); every run must give the expected
events, end and cursor. A preview vector is checked against its
expectation and the invariants of VECTORS.md, and the streaming bounder must
give the same preview. A conversation vector is played through a
:class:`dory_wire.Follower` — its requests compared, its responses fed whole,
byte by byte and at the Rust runner's seeded splits, and through
``feed_into`` — and every run must make the vector's decisions and deliver
its output. A run vector is played through a :class:`dory_wire.RunBounder`
whole, byte by byte and at the Rust runner's seeded splits: each view's
expected fields, both limits, and each view without loss or stderr section
equal to ``bound()`` of that view's bytes. A run-conversation vector is
played through a :class:`dory_wire.Run` — its requests, steps, spill and hook
actions and result — whole, byte by byte and at the Rust runner's seeded
splits, each the same. A search vector is searched through a
:class:`dory_wire.Searcher` whole, byte by byte and at seeded splits, each
the same and equal to its expectation.
"""

from __future__ import annotations

import base64
import copy
import random
from typing import Any

import pytest
from preview_checks import check_invariants, check_rebound, random_chunks, streamed
from splitmix import SplitMix64
from vectors import (
    VECTOR_DIR,
    body_of,
    check_tokens,
    conversation_problems,
    converse,
    decode,
    load_vectors,
    output_bytes,
    play_run_conversation,
    run_conversation_problems,
    run_machine_of,
    run_problems,
    search_problems,
    token_options,
    tokenizer_refused,
)

import dory_wire as dw

VECTORS = load_vectors()
DECODE = [(vid, v) for vid, v in VECTORS if v.get("kind") == "decode"]
PREVIEW = [(vid, v) for vid, v in VECTORS if v.get("kind") == "preview"]
CONVERSATION = [(vid, v) for vid, v in VECTORS if v.get("kind") == "conversation"]
RUN = [(vid, v) for vid, v in VECTORS if v.get("kind") == "run"]
RUN_CONVERSATION = [(vid, v) for vid, v in VECTORS if v.get("kind") == "run-conversation"]
SEARCH = [(vid, v) for vid, v in VECTORS if v.get("kind") == "search"]
SEEDS = range(5)
# VECTORS.md: every runner fails with fewer conversation vectors.
MIN_CONVERSATIONS = 40
# As the Rust run runner: fewer run vectors means some went missing.
MIN_RUNS = 15
# VECTORS.md: at least 25 run-conversation vectors.
MIN_RUN_CONVERSATIONS = 25
# VECTORS.md: at least 20 search vectors.
MIN_SEARCHES = 20


def test_vectors_are_found() -> None:
    assert VECTOR_DIR.is_dir(), f"no vector directory at {VECTOR_DIR}"
    assert DECODE, f"no decode vectors below {VECTOR_DIR}"
    assert PREVIEW, f"no preview vectors below {VECTOR_DIR}"
    assert len(CONVERSATION) >= MIN_CONVERSATIONS, (
        f"{len(CONVERSATION)} conversation vectors below {VECTOR_DIR}, "
        f"at least {MIN_CONVERSATIONS} expected"
    )
    assert len(RUN_CONVERSATION) >= MIN_RUN_CONVERSATIONS, (
        f"{len(RUN_CONVERSATION)} run-conversation vectors below {VECTOR_DIR}, "
        f"at least {MIN_RUN_CONVERSATIONS} expected"
    )
    assert len(RUN) >= MIN_RUNS, f"only {len(RUN)} run vectors below {VECTOR_DIR}"
    assert len(SEARCH) >= MIN_SEARCHES, f"only {len(SEARCH)} search vectors below {VECTOR_DIR}"


def test_vector_names_are_unique_and_kinds_known() -> None:
    names = [v["name"] for _, v in VECTORS]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    assert not duplicates, f"duplicate vector names: {duplicates}"
    unknown = sorted(
        {str(v.get("kind")) for _, v in VECTORS}
        - {"decode", "preview", "conversation", "run", "run-conversation", "search"}
    )
    assert not unknown, f"unknown vector kinds: {unknown}"


def test_splits_are_those_of_the_rust_runner() -> None:
    # SplitMix64's published first outputs for seed 0, then the Rust `cuts`.
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    rng = SplitMix64(0xD0E7 ^ 100)
    assert [rng.cuts(100, 6) for _ in range(4)] == [[35, 68, 97], [], [57, 77], [27, 43, 81]]
    rng = SplitMix64(5)
    assert (rng.below(0), rng.below(2**64 - 1)) == (0, 13877614986023876343)


def _splits(body: bytes) -> list[tuple[str, list[Any]]]:
    splits: list[tuple[str, list[Any]]] = [
        ("whole", [body]),
        ("bytewise", [body[i : i + 1] for i in range(len(body))]),
    ]
    kinds = (bytes, bytearray, memoryview)
    rng = SplitMix64(0xD0E7 ^ len(body))  # the seed of the Rust decode runner
    for _ in range(8):
        cuts = rng.cuts(len(body), 6)
        bounds = [0, *cuts, len(body)]
        chunks = [kinds[i % 3](body[a:b]) for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]
        splits.append((f"cuts {cuts}", chunks))
    return splits


def _expected_end_matches(expected: dict[str, Any], actual: dict[str, Any]) -> None:
    subset = {k: actual.get(k, "<missing>") for k in expected}
    assert subset == expected, f"end: expected {expected}, got {actual}"


@pytest.mark.parametrize(("vid", "vector"), DECODE, ids=[vid for vid, _ in DECODE])
def test_decode_vector(vid: str, vector: dict[str, Any]) -> None:
    expect = vector["expect"]
    body = body_of(vector)
    reference = None
    for split, chunks in _splits(body):
        got = decode(vector, chunks)
        assert got["events"] == expect["events"], f"{split}: events differ"
        _expected_end_matches(expect["end"], got["end"])
        if "cursor" in expect:
            assert got["cursor"] == expect["cursor"], f"{split}: cursor differs"
        # Split invariance over everything observed, not only what is expected.
        if reference is None:
            reference = got
        assert got == reference, f"{split}: differs from the whole-body run"


def _spill_writer(spec: Any) -> Any:
    if spec is None:
        return None
    if spec.get("fails"):

        def failing(spill_id: str, data: bytes) -> str:
            raise OSError("disk full")

        return failing
    path = spec["path"]
    return lambda spill_id, data: path


def _input_of(vector: dict[str, Any]) -> bytes:
    if "input_b64" in vector:
        return base64.b64decode(vector["input_b64"], validate=True)
    text: str = vector["input"]
    return text.encode("utf-8")


@pytest.mark.parametrize(("vid", "vector"), PREVIEW, ids=[vid for vid, _ in PREVIEW])
def test_preview_vector(vid: str, vector: dict[str, Any]) -> None:
    data = _input_of(vector)
    max_lines, max_bytes = vector["max_lines"], vector["max_bytes"]
    expect = vector["expect"]
    spill_spec = vector.get("spill")
    hint = vector.get("hint")
    spill_id = vector.get("spill_id")
    # docs/VECTORS.md: the options keep and terminal (absent: off), and the
    # token limit (max_tokens, tokenizer) when the vector has one.
    options = {
        "keep": vector.get("keep"),
        "terminal": vector.get("terminal", False),
        **token_options(vector),
    }
    if tokenizer_refused(vector):
        # A tokenizer this build lacks (docs/VECTORS.md): every bounder
        # refuses it, whatever the vector expects of a build that has it.
        for make in (
            lambda: dw.bound(data, max_lines=max_lines, max_bytes=max_bytes, **options),
            lambda: dw.StreamingBounder(max_lines, max_bytes, **options),
        ):
            with pytest.raises(dw.InvalidArgument) as refused:
                make()
            assert refused.value.argument == "tokenizer"
        return
    if "error" in expect:
        with pytest.raises(dw.DoryWireError) as info:
            dw.bound(data, max_lines=max_lines, max_bytes=max_bytes, **options)
        assert info.value.code == expect["error"]["code"]
        assert isinstance(info.value, ValueError)
        if expect["error"]["code"] == "invalid_argument":
            # A refused keep pattern: refused when the bounder is built.
            assert info.value.argument == "keep"  # type: ignore[attr-defined]
            with pytest.raises(dw.InvalidArgument):
                dw.StreamingBounder(max_lines, max_bytes, **options)
            return
        streaming = dw.StreamingBounder(max_lines, max_bytes, **options)
        streaming.push(data)
        with pytest.raises(dw.DoryWireError) as info:
            streaming.finish()
        assert info.value.code == expect["error"]["code"]
        return

    preview = dw.bound(
        data,
        max_lines=max_lines,
        max_bytes=max_bytes,
        spill=_spill_writer(spill_spec),
        spill_id=spill_id,
        hint=hint,
        **options,
    )
    text = preview.text
    if "preview" in expect:
        assert text == expect["preview"]
    for key in ("truncated", "omitted_lines", "omitted_bytes", "tokens"):
        if key in expect:
            assert getattr(preview, key) == expect[key], key
    problem = check_tokens(vector, preview)
    assert problem is None, problem
    if "omitted_range" in expect:
        expected_range = expect["omitted_range"]
        assert preview.omitted_range == (tuple(expected_range) if expected_range else None)
    for key, check in (("starts_with", text.startswith), ("ends_with", text.endswith)):
        wanted = expect.get(key, [])
        for affix in [wanted] if isinstance(wanted, str) else wanted:
            assert check(affix), f"{key} {affix!r}"
    for needle in expect.get("contains", []):
        assert needle in text
    for needle in expect.get("not_contains", []):
        assert needle not in text

    spill_path = spill_spec.get("path") if spill_spec else None
    if options["keep"] is None and not options["terminal"]:
        check_invariants(data, preview, max_lines, max_bytes, spill_path)
    else:
        # Kept lines and rendering change the shape of head + notice + tail
        # (docs/VECTORS.md): the limits and the counts still hold.
        assert len(text.encode("utf-8")) <= max_bytes
        assert text.count("\n") + (1 if text and not text.endswith("\n") else 0) <= max_lines
        assert (
            preview.head_bytes + preview.omitted_bytes + preview.tail_bytes == preview.total_bytes
        )
        assert preview.truncated == (preview.spill_id is not None)
    check_rebound(preview, max_lines, max_bytes, **token_options(vector))
    if spill_spec and spill_spec.get("fails") and preview.truncated:
        assert preview.spill_path is None
        assert preview.spill_error

    # The streaming bounder, fed in random chunks, gives the same preview.
    outcome: dict[str, Any] = {}
    if preview.truncated and spill_spec:
        if spill_spec.get("fails"):
            outcome["spill_error"] = preview.spill_error
        else:
            outcome["spill_path"] = spill_spec["path"]
    if spill_id is None and spill_spec and preview.truncated:
        # With a writer and no id, bound() draws a random one: give the
        # streaming bounder the same id.
        spill_id = preview.spill_id
    for seed in SEEDS:
        chunks = random_chunks(data, random.Random(seed), max_chunk=max(1, len(data) // 3))
        got = streamed(
            data, chunks, max_lines, max_bytes, spill_id=spill_id, hint=hint, **options, **outcome
        )
        assert got == preview, f"seed {seed}: streaming differs"


@pytest.mark.parametrize(("vid", "vector"), CONVERSATION, ids=[vid for vid, _ in CONVERSATION])
def test_conversation_vector(vid: str, vector: dict[str, Any]) -> None:
    whole = converse(vector, lambda n: [])
    problems = conversation_problems(vector, whole)
    assert not problems, "\n".join(problems)
    # The same decisions, requests, events and end for every split: byte
    # by byte, and at the Rust runner's seeded cuts (its seed and rounds).
    bytewise = converse(vector, lambda n: list(range(1, n)))
    assert bytewise == whole, "byte-by-byte feeding differs from feeding whole"
    rng = SplitMix64(0xC04E ^ len(vector["name"]))
    for round_ in range(6):
        split = converse(vector, lambda n: rng.cuts(n, 5))
        assert split == whole, f"random split round {round_} differs from feeding whole"
    # Through feed_into: the output goes to a Transcript, the rest is equal.
    into = converse(vector, lambda n: [n // 2], into=True)
    assert not conversation_problems(vector, into), "feed_into disagrees with the vector"
    others = [e for e in whole["events"] if e["type"] not in ("stdout", "stderr")]
    assert into["events"] == others
    for stream in ("stdout", "stderr"):
        assert into[stream] == output_bytes(whole["events"], stream)
    assert {k: into[k] for k in ("requests", "decisions", "cursor", "proc_id", "state")} == {
        k: whole[k] for k in ("requests", "decisions", "cursor", "proc_id", "state")
    }


@pytest.mark.parametrize(("vid", "vector"), SEARCH, ids=[vid for vid, _ in SEARCH])
def test_search_vector(vid: str, vector: dict[str, Any]) -> None:
    problems = search_problems(vector, vector["expect"])
    assert not problems, "\n".join(problems)


def test_the_search_runner_can_fail() -> None:
    # A wrong text, a wrong count, an error where there is a result and a
    # result where there is an error are each reported.
    vector = next(v for _, v in SEARCH if "text" in v["expect"])
    assert not search_problems(vector, vector["expect"])
    assert any(
        p.startswith("text:")
        for p in search_problems(vector, {**vector["expect"], "text": "not this"})
    )
    assert search_problems(vector, {"matched_lines": 12345}) == [
        f"matched_lines: got {vector['expect']['matched_lines']} expected 12345"
    ]
    assert search_problems(vector, {"error": {"code": "invalid_argument"}})
    failing = next(v for _, v in SEARCH if "error" in v["expect"])
    assert search_problems(failing, {"text": ""})
    assert search_problems(vector, {})


@pytest.mark.parametrize(("vid", "vector"), RUN, ids=[vid for vid, _ in RUN])
def test_run_vector(vid: str, vector: dict[str, Any]) -> None:
    problems = run_problems(vector, vector["expect"])
    assert not problems, "\n".join(problems)


def test_the_run_runner_can_fail() -> None:
    # A wrong preview, a wrong count and an error where there is a result
    # are each reported.
    vector = next(v for _, v in RUN if "combined" in v["expect"])
    assert not run_problems(vector, vector["expect"])
    wrong = copy.deepcopy(vector["expect"])
    wrong["combined"]["preview"] = "not this"
    assert any(p.startswith("combined.preview") for p in run_problems(vector, wrong))
    wrong = copy.deepcopy(vector["expect"])
    wrong["stdout"]["lost_bytes"] = 12345
    assert run_problems(vector, wrong) == ["stdout.lost_bytes: got 0 expected 12345"]
    assert run_problems(vector, {"error": {"code": "invalid_limits"}})
    failing = next(v for _, v in RUN if "error" in v["expect"])
    assert run_problems(failing, {k: vector["expect"][k] for k in ("stdout", "stderr", "combined")})


@pytest.mark.parametrize(
    ("vid", "vector"), RUN_CONVERSATION, ids=[vid for vid, _ in RUN_CONVERSATION]
)
def test_run_conversation_vector(vid: str, vector: dict[str, Any]) -> None:
    if tokenizer_refused(vector["run"]):
        # A tokenizer this build lacks (VECTORS.md): the run refuses it.
        with pytest.raises(dw.InvalidArgument) as refused:
            run_machine_of(vector)
        assert refused.value.argument == "tokenizer"
        return
    whole = play_run_conversation(vector, lambda n: [])
    problems = run_conversation_problems(vector, whole)
    assert not problems, "\n".join(problems)
    # The same requests, steps, actions and result for every split: byte by
    # byte, and at the Rust runner's seeded cuts (its seed and rounds).
    bytewise = play_run_conversation(vector, lambda n: list(range(1, n)))
    assert bytewise == whole, "byte-by-byte feeding differs from feeding whole"
    rng = SplitMix64(0x2B4E ^ len(vector["name"]))
    for round_ in range(6):
        split = play_run_conversation(vector, lambda n: rng.cuts(n, 5))
        assert split == whole, f"random split round {round_} differs from feeding whole"


def test_the_run_conversation_runner_can_fail() -> None:
    # A wrong request, step, delay, spill, hook text, result or state is
    # each caught.
    original = next(
        v
        for _, v in RUN_CONVERSATION
        if v["name"] == "run-output-cut-mid-frame-resumes-from-the-cursor"
    )
    assert not run_conversation_problems(original, play_run_conversation(original, lambda n: []))
    mutations = [
        lambda v: v["exchanges"][1]["request"].__setitem__("target", "/elsewhere"),
        lambda v: v["exchanges"][0].__setitem__("step", {"type": "done"}),
        lambda v: v["exchanges"][1]["step"]["reconnect"].__setitem__("delay_ms", 7.0),
        lambda v: v["expect"]["spills"]["stdout"].__setitem__("data", "abcx\n"),
        lambda v: v["expect"]["spills"]["combined"].__setitem__("end", "commit"),
        lambda v: v["expect"]["output"]["stdout"].__setitem__("text", "abc\n"),
        lambda v: v["expect"]["result"]["combined"].__setitem__("text", "ab\n"),
        lambda v: v["expect"].__setitem__("state", "cancelled"),
    ]
    for i, mutate in enumerate(mutations):
        vector = copy.deepcopy(original)
        mutate(vector)
        played = play_run_conversation(vector, lambda n: [])
        assert run_conversation_problems(vector, played), f"mutation {i} went unnoticed"
