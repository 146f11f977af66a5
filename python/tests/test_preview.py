"""The preview API beyond the shared vectors: the streaming bounder's
``finish(spill=, hint=)`` / ``afinish``, the writer failures (the core's
texts), and limits of every size."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import pytest

import dory_wire as dw

LOG = "".join(f"[{i:04}] step {i}: ok\n" for i in range(1, 301))
ID = "0123456789abcdef0123456789abcdef"


def streaming(max_lines: int = 10, max_bytes: int = 400) -> dw.StreamingBounder:
    bounder = dw.StreamingBounder(max_lines, max_bytes, spill_id=ID)
    for line in LOG.splitlines(keepends=True):
        bounder.push(line)
    return bounder


def test_min_max_bytes_is_the_core_constant() -> None:
    assert dw.MIN_MAX_BYTES == 32


def test_finish_calls_the_writer_with_the_spill_id() -> None:
    asked: list[str] = []

    def spill(spill_id: str) -> str:
        asked.append(spill_id)
        return f"/spill/{spill_id}.txt"

    preview = streaming().finish(spill, hint="read it with cat")
    assert asked == [ID]
    assert preview.spill_path == f"/spill/{ID}.txt"
    assert preview.spill_error is None
    assert f"p' /spill/{ID}.txt; read it with cat ...]" in preview.text
    whole = dw.bound(
        LOG,
        max_lines=10,
        max_bytes=400,
        spill=lambda i, d: f"/spill/{i}.txt",
        spill_id=ID,
        hint="read it with cat",
    )
    assert preview == whole


def test_finish_keywords_and_path_like() -> None:
    preview = streaming().finish(spill=lambda i: pathlib.PurePosixPath("/s") / f"{i}.txt")
    assert preview.spill_path == f"/s/{ID}.txt"


def test_finish_without_writer_and_fitting_input() -> None:
    assert streaming().finish().spill_error is None
    small = dw.StreamingBounder(10, 400)
    small.push("ok\n")
    called: list[str] = []
    preview = small.finish(lambda i: called.append(i) or "/x")
    assert preview.text == "ok\n"
    assert not preview.truncated
    assert called == []


@pytest.mark.parametrize(
    ("spill", "error"),
    [
        (lambda i: 42, "spill writer returned int instead of a path string"),
        (lambda i: b"/x", "spill writer returned bytes instead of a path string"),
        (lambda i: "", "spill path is empty"),
        (lambda i: "/a\nb", "spill path contains a line break or control character"),
    ],
)
def test_finish_writer_answers_that_are_not_paths(spill: Any, error: str) -> None:
    preview = streaming().finish(spill)
    assert preview.spill_path is None
    assert preview.spill_error == error
    assert "sed -n" not in preview.text


def test_finish_writer_raising_never_escapes() -> None:
    def spill(spill_id: str) -> str:
        raise OSError("disk full")

    assert streaming().finish(spill).spill_error == "spill writer failed: OSError: disk full"


def test_finish_with_an_async_writer_refuses_it() -> None:
    async def spill(spill_id: str) -> str:
        return "/x"

    preview = streaming().finish(spill)
    assert preview.spill_error == "spill writer is asynchronous: use afinish()"


def test_finish_keyboard_interrupt_is_not_swallowed() -> None:
    def spill(spill_id: str) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        streaming().finish(spill)


def test_finish_spill_must_be_callable() -> None:
    with pytest.raises(TypeError, match="spill must be a callable"):
        streaming().finish("/x")  # type: ignore[arg-type]


def test_afinish_awaits_the_writer() -> None:
    async def spill(spill_id: str) -> str:
        await asyncio.sleep(0)
        return f"/spill/{spill_id}.txt"

    async def failing(spill_id: str) -> str:
        await asyncio.sleep(0)
        raise PermissionError("read-only")

    preview = asyncio.run(streaming().afinish(spill, hint="h"))
    assert preview == streaming().finish(lambda i: f"/spill/{i}.txt", hint="h")
    failed = asyncio.run(streaming().afinish(failing))
    assert failed.spill_error == "spill writer failed: PermissionError: read-only"
    assert asyncio.run(streaming().afinish()) == streaming().finish()
    # A sync writer works with afinish too.
    assert asyncio.run(streaming().afinish(lambda i: "/x")).spill_path == "/x"


def test_afinish_after_finish_is_invalid_state() -> None:
    bounder = streaming()
    bounder.finish()
    with pytest.raises(dw.InvalidState):
        bounder.afinish()


@pytest.mark.parametrize("max_bytes", range(80))
@pytest.mark.parametrize("max_lines", [0, 1, 2, 5])
def test_every_limit_fits_or_refuses(max_lines: int, max_bytes: int) -> None:
    for data in ("", "ok\n", "a\nb\n", LOG):
        fits = len(data.encode()) <= max_bytes and data.count("\n") <= max_lines
        cut_possible = max_lines >= 1 and max_bytes >= dw.MIN_MAX_BYTES
        if not fits and not cut_possible:
            with pytest.raises(dw.InvalidLimits):
                dw.bound(data, max_lines=max_lines, max_bytes=max_bytes)
            continue
        preview = dw.bound(data, max_lines=max_lines, max_bytes=max_bytes, spill=lambda i, d: "/p")
        assert preview.truncated == (not fits)
        assert len(preview.text.encode()) <= max_bytes
        if fits:
            assert preview.text == data
        else:
            notice = [line for line in preview.text.split("\n") if line.startswith("[... ")]
            assert len(notice) == 1
            assert notice[0].endswith(" ...]")
            assert "omitted" in notice[0]


def test_max_lines_1_is_the_notice_alone() -> None:
    preview = dw.bound(LOG, max_lines=1, max_bytes=300, spill=lambda i, d: "/p/x.txt")
    assert (
        preview.text == "[... 5892 bytes omitted: lines 1-300 of 300; sed -n '1,300p' /p/x.txt ...]"
    )
    assert (preview.head_bytes, preview.tail_bytes) == (0, 0)


def test_a_line_shown_in_part_is_named() -> None:
    line = "0123456789abcdef " * 150
    preview = dw.bound(line, max_lines=10, max_bytes=2400)
    assert "omitted: line 1 of 1, partly shown ...]" in preview.text
    assert preview.omitted_range == (1, 1)
    assert preview.head_bytes + preview.tail_bytes > 2000


# ---- keep and terminal


KEEP_LOG = "".join("error: boom\n" if i == 150 else f"ok {i}\n" for i in range(300))


def test_keep_and_terminal_are_taken_by_every_bounder() -> None:
    import dory_wire as dw

    p = dw.bound(KEEP_LOG, max_lines=12, max_bytes=400, keep="defaults")
    assert "\n151:error: boom\n" in p.text
    assert "[... kept 1 omitted line matching the keep patterns ...]" in p.text
    assert dw.bound(KEEP_LOG, max_lines=12, max_bytes=400, keep=["^error"]).text == p.text
    assert "151:" not in dw.bound(KEEP_LOG, max_lines=12, max_bytes=400).text
    s = dw.StreamingBounder(12, 400, keep=("^error",))
    s.push(KEEP_LOG)
    assert s.finish().text == p.text
    r = dw.RunBounder(12, 400, keep="defaults", terminal=True)
    r.push("stdout", "\x1b[31mred\x1b[0m\n")
    text = r.finish().render("stdout").text
    assert text.startswith("red\n[... terminal: 2 escape sequences removed ...]")
    b = dw.Bounder(10, 400, terminal=True).bound(b"\r[###   ]\r[######]\n")
    assert isinstance(b, dw.Preview)
    assert b.text.startswith("[######]\n")
    assert dw.DEFAULT_KEEP_PATTERNS[0] == "^(FAILED|ERROR) [^ ]+(::| - )"


@pytest.mark.parametrize("keep", [["("], [""], "default", ["ok", "\x07"]])
def test_a_refused_keep_pattern_is_invalid_argument(keep: object) -> None:
    import dory_wire as dw

    for make in (
        lambda: dw.bound("x", max_lines=1, max_bytes=40, keep=keep),  # type: ignore[arg-type]
        lambda: dw.Bounder(1, 40, keep=keep),  # type: ignore[arg-type]
        lambda: dw.StreamingBounder(1, 40, keep=keep),  # type: ignore[arg-type]
        lambda: dw.RunBounder(1, 40, keep=keep),  # type: ignore[arg-type]
        lambda: dw.Run("c1", "make", random=bytes(16), keep=keep),  # type: ignore[arg-type]
    ):
        with pytest.raises(dw.InvalidArgument) as info:
            make()
        assert info.value.argument == "keep"


@pytest.mark.parametrize(
    ("keep", "terminal"), [(1, False), ([1], False), (b"x", False), (None, 1), (None, None)]
)
def test_a_wrong_type_of_keep_or_terminal_is_a_type_error(keep: object, terminal: object) -> None:
    import dory_wire as dw

    for make in (
        lambda: dw.bound("x", max_lines=1, max_bytes=40, keep=keep, terminal=terminal),  # type: ignore[arg-type]
        lambda: dw.StreamingBounder(1, 40, keep=keep, terminal=terminal),  # type: ignore[arg-type]
        lambda: dw.RunBounder(1, 40, keep=keep, terminal=terminal),  # type: ignore[arg-type]
        lambda: dw.Run("c1", "make", random=bytes(16), keep=keep, terminal=terminal),  # type: ignore[arg-type]
    ):
        with pytest.raises(TypeError):
            make()


def test_split_tail_gives_the_tail_the_budget_in_every_bounder() -> None:
    # docs/preview.md, "The split": an eighth of the lines to the head.
    log = "".join(f"line {i}\n" for i in range(1, 101))
    even = dw.bound(log, max_lines=9, max_bytes=4096).text
    tail = dw.bound(log, max_lines=9, max_bytes=4096, split="tail").text
    assert even.startswith("line 1\nline 2\nline 3\nline 4\n[... ")
    assert tail.startswith("line 1\n[... ")
    assert tail.endswith("".join(f"line {i}\n" for i in range(94, 101)))
    streaming = dw.StreamingBounder(9, 4096, split="tail")
    streaming.push(log)
    assert streaming.finish().text == tail
    run = dw.RunBounder(9, 4096, split="tail")
    run.push("stdout", log)
    assert run.finish().render("stdout").text == tail
    for make in (
        lambda: dw.bound(log, max_lines=9, max_bytes=4096, split="head"),  # type: ignore[arg-type]
        lambda: dw.Bounder(9, 4096, split="middle"),  # type: ignore[arg-type]
        lambda: dw.StreamingBounder(9, 4096, split=""),  # type: ignore[arg-type]
        lambda: dw.RunBounder(9, 4096, split="TAIL"),  # type: ignore[arg-type]
    ):
        with pytest.raises(dw.InvalidArgument) as err:
            make()
        assert err.value.argument == "split"


def test_run_preset_is_runs_shape_read_from_the_core() -> None:
    assert dict(dw.RUN_PRESET) == {"keep": "defaults", "terminal": True, "split": "tail"}
    with pytest.raises(TypeError):
        dw.RUN_PRESET["split"] = "even"  # type: ignore[index]
    log = "".join(
        "\x1b[31mFAILED tests/t.py::test_x - assert 1 == 2\x1b[0m\n" if i == 300 else f"step {i}\n"
        for i in range(1, 1001)
    )
    preset = dw.bound(log, max_lines=40, max_bytes=4096, **dw.RUN_PRESET)
    explicit = dw.bound(
        log, max_lines=40, max_bytes=4096, keep="defaults", terminal=True, split="tail"
    )
    assert preset == explicit
    assert "\n300:FAILED tests/t.py::test_x - assert 1 == 2\n" in preset.text
