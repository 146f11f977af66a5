"""Token limits (``max_tokens``, ``tokenizer``) through every bounder:
:func:`bound`, :func:`abound`, :class:`Bounder`, :class:`StreamingBounder`
fed in random splits, :class:`RunBounder`, the run machine :class:`Run`
and a real ``run`` against the reference server. Every preview's text,
counted again with :func:`count_tokens` and the same tokenizer, is its
``tokens`` and at most ``max_tokens``; the limits are checked as
``max_bytes`` is; the tokenizers are the core's (:data:`TOKENIZERS`)."""

from __future__ import annotations

import asyncio
import base64
import json
import random
from pathlib import Path
from typing import Any

import pytest
from preview_checks import check_invariants, random_chunks
from run_server import refserver

import dory_wire as dw
from dory_wire.client import Client, SpillDirectory

TOKENIZERS = ("o200k_base", "cl100k_base", "approx")
MAX_LINES, MAX_BYTES = 200, 16_384


def _base64_lines() -> str:
    raw = random.Random(7).randbytes(30_000)
    b64 = base64.b64encode(raw).decode("ascii")
    return "".join(b64[i : i + 76] + "\n" for i in range(0, len(b64), 76))


# Inputs that must be cut, each well within max_bytes per line but over any
# budget here as a whole; "long line" is one line longer than every budget.
INPUTS = {
    "ascii": "".join(
        f"[{i:04}] Compiling crate_{i} v0.{i % 7}.{i % 3} (/src/crate_{i})\n" for i in range(3000)
    ),
    # Full-width punctuation, as CJK text has it.
    "cjk": "".join(f"第{i}行：日本語のテキストです。中文文本，编译完成。\n" for i in range(2000)),  # noqa: RUF001
    "emoji": "".join(f"🎉🚀👍🏽 step {i} done 👨‍👩‍👧 ✅\n" for i in range(2000)),
    "base64": _base64_lines(),
    "long line": "begin\n" + "tok3n_" * 20_000 + "\nend\n",
}


def check(preview: dw.Preview, max_tokens: int | None, tokenizer: str | None) -> None:
    """The preview's tokens: its text counted again, within the budget."""
    assert preview.tokens is not None
    assert preview.tokens == dw.count_tokens(preview.text, tokenizer)
    if max_tokens is not None:
        assert preview.tokens <= max_tokens
    assert len(preview.text.encode("utf-8")) <= MAX_BYTES


# ---- the tokenizers and count_tokens


def test_the_wheel_has_the_exact_tokenizers() -> None:
    assert dw.TOKENIZERS == TOKENIZERS
    assert isinstance(dw.TOKENIZERS, tuple)


@pytest.mark.parametrize(
    ("text", "o200k", "cl100k"),
    # OpenAI's tiktoken counts (encode_ordinary: a special token is plain text).
    [
        ("", 0, 0),
        ("hello world", 2, 2),
        ("\n\n", 1, 1),
        ("日本語のテキストです。", 8, 10),
        ("🎉🚀👍🏽 done", 8, 13),
        ("aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ=", 22, 27),
        ("<|endoftext|>", 7, 7),
    ],
)
def test_count_tokens_is_tiktoken(text: str, o200k: int, cl100k: int) -> None:
    assert dw.count_tokens(text, "o200k_base") == o200k
    assert dw.count_tokens(text, "cl100k_base") == cl100k
    assert dw.count_tokens(text) == o200k  # the default tokenizer
    approx = dw.count_tokens(text, "approx")
    assert isinstance(approx, int)
    assert approx <= len(text.encode("utf-8"))


def test_count_tokens_refuses_unknown_names_and_other_types() -> None:
    with pytest.raises(dw.InvalidArgument) as info:
        dw.count_tokens("x", "gpt2")
    assert info.value.argument == "tokenizer"
    assert isinstance(info.value, ValueError)
    with pytest.raises(TypeError, match="'text' must be str, not bytes"):
        dw.count_tokens(b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'tokenizer' must be str, not int"):
        dw.count_tokens("x", 5)  # type: ignore[arg-type]


# ---- every bounder: the preview's count is its text's, within the budget


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
@pytest.mark.parametrize("name", list(INPUTS))
@pytest.mark.parametrize("max_tokens", [32, 500])
def test_bound_bounder_and_streaming_fit_the_budget(
    tokenizer: str, name: str, max_tokens: int
) -> None:
    data = INPUTS[name]
    options: dict[str, Any] = {"max_tokens": max_tokens, "tokenizer": tokenizer}
    preview = dw.bound(data, max_lines=MAX_LINES, max_bytes=MAX_BYTES, **options)
    assert preview.truncated
    check(preview, max_tokens, tokenizer)
    check_invariants(data.encode("utf-8"), preview, MAX_LINES, MAX_BYTES)
    # The tokens bind: without them the preview is larger.
    plain = dw.bound(data, max_lines=MAX_LINES, max_bytes=MAX_BYTES)
    assert plain.tokens is None
    assert len(plain.text) > len(preview.text)

    bounded = dw.Bounder(MAX_LINES, MAX_BYTES, **options).bound(data)
    assert isinstance(bounded, dw.PendingSpill)
    assert bounded.render() == preview

    # Fed in random splits (bytes cut inside UTF-8 characters): the same.
    raw = data.encode("utf-8")
    for seed in range(2):
        streaming = dw.StreamingBounder(MAX_LINES, MAX_BYTES, **options)
        for chunk in random_chunks(raw, random.Random(seed), max_chunk=len(raw) // 5):
            streaming.push(chunk)
        assert streaming.finish() == preview, f"seed {seed}"


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_a_spilled_preview_counts_its_notice(tokenizer: str) -> None:
    data = INPUTS["ascii"]
    path = "/workspace/.tool-output/a rather long directory name/spill.txt"
    preview = dw.bound(
        data,
        max_lines=MAX_LINES,
        max_bytes=MAX_BYTES,
        max_tokens=120,
        tokenizer=tokenizer,
        spill=lambda spill_id, data: path,
        hint="search it with search_file",
    )
    assert preview.spill_path == path
    check(preview, 120, tokenizer)
    assert (
        asyncio.run(
            dw.abound(
                data,
                max_lines=MAX_LINES,
                max_bytes=MAX_BYTES,
                max_tokens=120,
                tokenizer=tokenizer,
                spill=lambda spill_id, data: path,
                spill_id=preview.spill_id,
                hint="search it with search_file",
            )
        )
        == preview
    )


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
@pytest.mark.parametrize("name", ["ascii", "cjk", "long line"])
def test_run_bounder_views_fit_the_budget(tokenizer: str, name: str) -> None:
    data = INPUTS[name].encode("utf-8")
    max_tokens = 300
    run = dw.RunBounder(
        MAX_LINES, MAX_BYTES, spill_id="tok", max_tokens=max_tokens, tokenizer=tokenizer
    )
    dw.RunBounder.check_limits(MAX_LINES, MAX_BYTES, max_tokens=max_tokens, tokenizer=tokenizer)
    rng = random.Random(3)
    for chunk in random_chunks(data[: len(data) // 2], rng, max_chunk=4000):
        run.push("stdout", chunk)
    run.lose("stdout", len(data) // 2, len(data) // 2 + 100)
    run.push("stderr", "warning: deprecated\nerror: the one line that mattered\n")
    for chunk in random_chunks(data[len(data) // 2 :], rng, max_chunk=4000):
        run.push("stdout", chunk)
    pending = run.finish()
    for view in ("stdout", "stderr", "combined"):
        preview = pending.render(view, spill_path=f"/spill/tok-{view}.txt")
        check(preview, max_tokens, tokenizer)
    combined = pending.render("combined")
    assert "error: the one line that mattered" in combined.text
    assert "bytes lost" in combined.text


def test_the_limits_that_do_not_bind_leave_the_preview_unchanged() -> None:
    # Within every limit: the input unchanged, counted.
    data = "a small output\n"
    for tokenizer in TOKENIZERS:
        preview = dw.bound(data, max_lines=10, max_bytes=1000, max_tokens=1000, tokenizer=tokenizer)
        assert (preview.text, preview.truncated) == (data, False)
        check(preview, 1000, tokenizer)
    # Within the bytes, over the tokens: cut by the tokens alone.
    cjk = INPUTS["cjk"][:3000]
    preview = dw.bound(cjk, max_lines=1000, max_bytes=MAX_BYTES, max_tokens=100)
    assert preview.truncated
    check(preview, 100, None)


# ---- a tokenizer alone only counts


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_a_tokenizer_without_max_tokens_only_counts(tokenizer: str) -> None:
    data = INPUTS["emoji"]
    plain = dw.bound(data, max_lines=MAX_LINES, max_bytes=4000)
    counted = dw.bound(data, max_lines=MAX_LINES, max_bytes=4000, tokenizer=tokenizer)
    assert counted.text == plain.text
    assert plain.tokens is None
    check(counted, None, tokenizer)
    streaming = dw.StreamingBounder(MAX_LINES, 4000, tokenizer=tokenizer)
    streaming.push(data)
    assert streaming.finish() == counted
    run = dw.RunBounder(MAX_LINES, 4000, tokenizer=tokenizer)
    run.push("stdout", data)
    assert run.finish().render("stdout").tokens == counted.tokens


def test_max_tokens_alone_uses_o200k_base() -> None:
    data = INPUTS["cjk"]
    alone = dw.bound(data, max_lines=MAX_LINES, max_bytes=MAX_BYTES, max_tokens=400)
    check(alone, 400, "o200k_base")
    assert alone == dw.bound(
        data, max_lines=MAX_LINES, max_bytes=MAX_BYTES, max_tokens=400, tokenizer="o200k_base"
    )


# ---- refusals: the limits as max_bytes, unknown tokenizers


BIG = "line\n" * 1000


def _makers(**options: Any) -> list[Any]:
    return [
        lambda: dw.bound(BIG, max_lines=100, max_bytes=4000, **options),
        lambda: dw.Bounder(100, 4000, **options).bound(BIG),
        lambda: dw.StreamingBounder(100, 4000, **options),
        lambda: dw.RunBounder(100, 4000, **options),
        lambda: dw.RunBounder.check_limits(100, 4000, **options),
        lambda: dw.Run("c1", "make", random=bytes(16), **options),
    ]


@pytest.mark.parametrize("max_tokens", [-1, 2**40, 2**32, 2**80, -(2**80)])
def test_max_tokens_out_of_range_is_invalid_limits_as_max_bytes(max_tokens: int) -> None:
    for make in _makers(max_tokens=max_tokens):
        with pytest.raises(dw.InvalidLimits, match="max_tokens must be a whole number") as info:
            make()
        assert isinstance(info.value, ValueError)
    with pytest.raises(dw.InvalidLimits, match="max_bytes must be a whole number"):
        dw.bound(BIG, max_lines=100, max_bytes=max_tokens)


@pytest.mark.parametrize("max_tokens", [1.5, 10.0, "10", True])
def test_max_tokens_not_an_int_is_a_type_error_as_max_bytes(max_tokens: Any) -> None:
    # Python's convention for every limit (max_lines, max_bytes): an int or
    # a TypeError; the core checks the int's range.
    for make in _makers(max_tokens=max_tokens):
        with pytest.raises(TypeError, match="'max_tokens' must be int"):
            make()
    with pytest.raises(TypeError, match="'max_bytes' must be int"):
        dw.bound(BIG, max_lines=100, max_bytes=max_tokens)


def test_the_largest_max_tokens_is_valid() -> None:
    preview = dw.bound(BIG, max_lines=2000, max_bytes=10_000, max_tokens=2**32 - 1)
    assert not preview.truncated
    check(preview, 2**32 - 1, None)


def test_max_tokens_31_refuses_a_cut() -> None:
    # A cut needs MIN_MAX_BYTES (32) tokens; input that fits is returned.
    assert dw.bound("ok\n", max_lines=10, max_bytes=100, max_tokens=31).text == "ok\n"
    assert dw.bound("", max_lines=10, max_bytes=100, max_tokens=0).tokens == 0
    streaming = dw.StreamingBounder(100, 4000, max_tokens=31, tokenizer="approx")
    streaming.push(BIG)
    for make in (
        lambda: dw.bound(BIG, max_lines=100, max_bytes=4000, max_tokens=31),
        lambda: dw.Bounder(100, 4000, max_tokens=31, tokenizer="cl100k_base").bound(BIG),
        streaming.finish,
    ):
        with pytest.raises(dw.InvalidLimits, match="max_tokens=31 is below 32"):
            make()
    assert dw.bound(BIG, max_lines=100, max_bytes=4000, max_tokens=32).truncated


def test_a_run_needs_max_tokens_of_min_run_max_bytes() -> None:
    least = dw.MIN_RUN_MAX_BYTES
    dw.RunBounder.check_limits(2, least, max_tokens=least)
    dw.Run("c1", "make", random=bytes(16), max_tokens=least, tokenizer="approx")
    for make in (
        lambda: dw.RunBounder.check_limits(2, least, max_tokens=least - 1),
        lambda: dw.Run("c1", "make", random=bytes(16), max_tokens=least - 1),
    ):
        with pytest.raises(dw.InvalidLimits, match=f"max_tokens >= {least}"):
            make()
    # A tokenizer alone only counts: nothing to check.
    dw.RunBounder.check_limits(2, least, tokenizer="approx")


@pytest.mark.parametrize("tokenizer", ["gpt2", "", "o200k", "claude"])
def test_an_unknown_tokenizer_is_invalid_argument(tokenizer: str) -> None:
    for options in ({"tokenizer": tokenizer}, {"tokenizer": tokenizer, "max_tokens": 4000}):
        for make in _makers(**options):
            with pytest.raises(dw.InvalidArgument) as info:
                make()
            assert info.value.argument == "tokenizer"
            assert info.value.code == "invalid_argument"
            assert "unknown tokenizer" in str(info.value)


def test_a_tokenizer_of_the_wrong_type_is_a_type_error() -> None:
    for make in _makers(tokenizer=5, max_tokens=4000):
        with pytest.raises(TypeError, match="'tokenizer' must be str, not int"):
            make()


# ---- JSON and the repr


def test_the_json_ends_with_tokens() -> None:
    plain = dw.bound(BIG, max_lines=10, max_bytes=400)
    assert plain.to_json().endswith(',"tokens":null}')
    assert "tokens=None)" in repr(plain)
    limited = dw.bound(BIG, max_lines=10, max_bytes=400, max_tokens=60, tokenizer="approx")
    doc = json.loads(limited.to_json())
    assert list(doc)[-1] == "tokens"
    assert doc["tokens"] == limited.tokens
    assert limited.to_json().endswith(f',"tokens":{limited.tokens}}}')
    assert f"tokens={limited.tokens})" in repr(limited)


# ---- the run machine and a real run


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_a_real_run_fits_each_preview_in_the_budget(tmp_path: Path, tokenizer: str) -> None:
    command = [
        "sh",
        "-c",
        'i=0; while [ $i -lt 1500 ]; do echo "[$i] 日本語 🎉 compiling crate_$i"; i=$((i+1)); done;'
        " echo 'warning: deprecated' >&2; echo 'error: the one line that mattered' >&2;"
        " seq 1 300",
    ]
    max_tokens = 300
    with refserver() as server, Client(server.url) as client:
        computer = client.computers.get("tokens")
        result = computer.run(
            command,
            max_lines=MAX_LINES,
            max_bytes=MAX_BYTES,
            max_tokens=max_tokens,
            tokenizer=tokenizer,
            spill=SpillDirectory(tmp_path),
        )
        counted = computer.run(["sh", "-c", "echo small"], tokenizer=tokenizer)
    assert result.exit_code == 0
    for view in ("stdout", "stderr", "combined"):
        preview = getattr(result, view)
        check(preview, max_tokens, tokenizer)
    assert result.combined.truncated
    assert result.combined.spill_path is not None
    assert "error: the one line that mattered" in result.combined.text
    assert result.combined.text.endswith("[... exit code 0 ...]\n")
    doc = json.loads(result.to_json())
    assert doc["combined"]["tokens"] == result.combined.tokens
    # A tokenizer alone: counted, not limited.
    assert counted.stdout.text == "small\n"
    check(counted.stdout, None, tokenizer)
    check(counted.combined, None, tokenizer)
