"""Misuse is an error with a clear message, never a crash:
TypeError for wrong types (naming the argument), ValueError subclasses for
bad values, InvalidState for calls out of order."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

import dory_wire as dw

NDJSON = "application/x-ndjson"
EXIT = b'{"type":"exit","exit_code":0,"timed_out":false}\n'


def opened(endpoint: str = "process_output", **kwargs: Any) -> dw.Reader:
    reader = dw.Reader(endpoint, **kwargs)
    reader.open(200, NDJSON)
    return reader


@pytest.mark.parametrize("data", ["text", 42, None, [1, 2], object()])
def test_feed_rejects_non_bytes_naming_the_argument(data: Any) -> None:
    reader = opened()
    with pytest.raises(TypeError, match=r"feed\(\) argument 'data' must be bytes"):
        reader.feed(data)
    # The reader is still usable: a type error is not a stream error.
    assert reader.feed(EXIT) == [dw.Exit(0, False)]


def test_feed_str_suggests_encoding() -> None:
    with pytest.raises(TypeError, match=r"not str \(encode text first"):
        opened().feed("{}")


def test_feed_before_open_is_invalid_state() -> None:
    reader = dw.Reader("exec")
    with pytest.raises(dw.InvalidState) as info:
        reader.feed(b"{}\n")
    assert info.value.code == "invalid_state"
    assert isinstance(info.value, ValueError)


def test_feed_after_finish_is_invalid_state() -> None:
    reader = opened()
    reader.feed(EXIT)
    reader.finish()
    with pytest.raises(dw.InvalidState, match="invalid_state"):
        reader.feed(b"\n")


def test_finish_twice_raises() -> None:
    reader = opened()
    reader.feed(EXIT)
    assert reader.finish() == ([], dw.Exited(0, False))
    with pytest.raises(dw.InvalidState):
        reader.finish()


def test_open_twice_raises() -> None:
    reader = opened()
    with pytest.raises(dw.InvalidState):
        reader.open(200, NDJSON)


@pytest.mark.parametrize("name", ["", "EXEC", "processes", "exec "])
def test_bad_endpoint_name(name: str) -> None:
    with pytest.raises(ValueError, match="unknown endpoint"):
        dw.Reader(name)


def test_endpoint_of_wrong_type() -> None:
    with pytest.raises(TypeError, match="'endpoint' must be str, not int"):
        dw.Reader(1)  # type: ignore[arg-type]


@pytest.mark.parametrize("policy", ["", "Fail", "ignore"])
def test_bad_gap_policy(policy: str) -> None:
    with pytest.raises(ValueError, match="unknown gap_policy"):
        dw.Reader("exec", gap_policy=policy)  # type: ignore[arg-type]


def test_gap_policy_of_wrong_type() -> None:
    with pytest.raises(TypeError, match="'gap_policy' must be str"):
        dw.Reader("exec", gap_policy=3)  # type: ignore[arg-type]


@pytest.mark.parametrize("limit", [0, -1, -(2**70), 2**64, 2**200])
def test_absurd_max_frame_bytes(limit: int) -> None:
    with pytest.raises(ValueError, match="max_frame_bytes"):
        dw.Reader("exec", max_frame_bytes=limit)


@pytest.mark.parametrize("limit", ["10", 1.5, True])
def test_max_frame_bytes_of_wrong_type(limit: Any) -> None:
    with pytest.raises(TypeError, match="'max_frame_bytes' must be int"):
        dw.Reader("exec", max_frame_bytes=limit)


@pytest.mark.parametrize("timeout", [0, -1.0, math.nan, math.inf, 1e300])
def test_bad_liveness_timeout_seconds(timeout: float) -> None:
    with pytest.raises(ValueError, match="liveness_timeout_seconds"):
        dw.Reader("exec", liveness_timeout_seconds=timeout)


def test_liveness_timeout_seconds_of_wrong_type() -> None:
    with pytest.raises(TypeError, match="'liveness_timeout_seconds' must be float"):
        dw.Reader("exec", liveness_timeout_seconds="30")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("cursor", "error", "message"),
    [
        ({"stdout": -1}, ValueError, r"cursor\['stdout'\]"),
        ({"stdout": 2**64}, ValueError, r"cursor\['stdout'\]"),
        ({"stdot": 1}, ValueError, "unknown key .stdot."),
        ({"stdout": "1"}, TypeError, r"cursor\['stdout'\]' must be int"),
        ({1: 1}, TypeError, "cursor key"),
        ([0, 0], TypeError, "'cursor' must be a Cursor"),
        (5, TypeError, "'cursor' must be a Cursor"),
    ],
)
def test_bad_cursor(cursor: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        dw.Reader("process_output", cursor=cursor)


@pytest.mark.parametrize(("stdout", "stderr"), [(-1, 0), (0, 2**64), (0.5, 0)])
def test_bad_cursor_constructor(stdout: Any, stderr: Any) -> None:
    with pytest.raises((ValueError, TypeError)):
        dw.Cursor(stdout, stderr)


@pytest.mark.parametrize(
    ("status", "error"), [(0, ValueError), (600, ValueError), ("200", TypeError)]
)
def test_bad_status(status: Any, error: type[Exception]) -> None:
    reader = dw.Reader("exec")
    with pytest.raises(error, match="status"):
        reader.open(status, NDJSON)


@pytest.mark.parametrize("status", [99, 600, 999, -1, 2**70])
def test_status_range_is_the_cores(status: int) -> None:
    # One range in every language, the core's: 100 to 599, the core's
    # invalid_argument (npm/test/follower.test.mjs checks the same edges).
    with pytest.raises(dw.InvalidArgument, match="from 100 to 599") as caught:
        dw.Reader("exec").open(status, NDJSON)
    assert caught.value.code == "invalid_argument"
    assert caught.value.argument == "status"
    follower = dw.Follower.process_output("c1", "p1")
    follower.request()
    with pytest.raises(dw.InvalidArgument, match="from 100 to 599"):
        follower.open(status, NDJSON)


def test_content_type_of_wrong_type() -> None:
    with pytest.raises(TypeError, match="'content_type' must be str"):
        dw.Reader("exec").open(200, b"application/x-ndjson")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("now", "error"), [(-1.0, ValueError), (math.nan, ValueError), ("1", TypeError)]
)
def test_bad_handle_timeout_seconds(now: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="'now'"):
        opened().handle_timeout_seconds(now)


@pytest.mark.parametrize("text", ["", "{", "[]", '{"version": 99}', "null"])
def test_bad_resume_state_json(text: str) -> None:
    with pytest.raises(dw.InvalidState) as info:
        dw.ResumeState.from_json(text)
    assert isinstance(info.value, ValueError)
    with pytest.raises(dw.InvalidState):
        dw.Reader.resume("process_output", text)


def test_resume_with_wrong_type() -> None:
    with pytest.raises(TypeError, match="'state' must be ResumeState or str"):
        dw.Reader.resume("process_output", {"cursor": {}})  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["", "{", '{"stdout": -1}', '{"bogus": 1}', "[]"])
def test_bad_cursor_json(text: str) -> None:
    with pytest.raises((ValueError, TypeError)):
        dw.Cursor.from_json(text)


# -- preview --------------------------------------------------------------

BIG = "line\n" * 1000


@pytest.mark.parametrize(
    ("max_lines", "max_bytes"),
    # One range in every language, the core's (0 to 2**32 - 1): npm/test/misuse.test.mjs
    # checks the same edges.
    [(-1, 1000), (10, -5), (2**80, 1000), (10, 2**80), (10, 2**40), (10, 2**63), (-(2**80), 10)],
)
def test_bad_limits_are_invalid_limits(max_lines: int, max_bytes: int) -> None:
    for make in (
        lambda: dw.bound(BIG, max_lines=max_lines, max_bytes=max_bytes),
        lambda: dw.StreamingBounder(max_lines, max_bytes),
        lambda: dw.Bounder(max_lines, max_bytes),
    ):
        with pytest.raises(dw.InvalidLimits) as info:
            make()
        assert info.value.code == "invalid_limits"
        assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(("max_lines", "max_bytes"), [(0, 1000), (10, 0), (10, 31)])
def test_limits_too_small_for_a_needed_cut(max_lines: int, max_bytes: int) -> None:
    assert dw.bound("", max_lines=max_lines, max_bytes=max_bytes).text == ""
    streaming = dw.StreamingBounder(max_lines, max_bytes)
    streaming.push(BIG)
    for make in (
        lambda: dw.bound(BIG, max_lines=max_lines, max_bytes=max_bytes),
        lambda: dw.Bounder(max_lines, max_bytes).bound(BIG),
        streaming.finish,
    ):
        with pytest.raises(dw.InvalidLimits) as info:
            make()
        assert info.value.code == "invalid_limits"
        assert isinstance(info.value, ValueError)


def test_the_largest_limits_are_valid() -> None:
    assert dw.bound("x", max_lines=2**32 - 1, max_bytes=2**32 - 1).text == "x"


def test_minimum_limits_are_valid() -> None:
    preview = dw.bound(BIG, max_lines=1, max_bytes=dw.MIN_MAX_BYTES)
    assert preview.truncated
    assert preview.text.count("\n") <= 1


@pytest.mark.parametrize("limit", ["10", 10.0, None, True])
def test_limits_of_wrong_type(limit: Any) -> None:
    with pytest.raises(TypeError, match="'max_lines' must be int"):
        dw.bound(BIG, max_lines=limit, max_bytes=1000)


@pytest.mark.parametrize("data", [None, 42, ["a"]])
def test_bound_data_of_wrong_type(data: Any) -> None:
    with pytest.raises(TypeError, match="argument 'data'"):
        dw.bound(data, max_lines=10, max_bytes=1000)


def bound_with(writer: Any) -> dw.Preview:
    return dw.bound(BIG, max_lines=10, max_bytes=1000, spill=writer)


@pytest.mark.parametrize("returned", [42, b"/tmp/x", ["/tmp/x"], 1.5])
def test_spill_writer_returning_non_string(returned: Any) -> None:
    preview = bound_with(lambda spill_id, data: returned)
    assert preview.truncated
    assert preview.spill_path is None
    assert preview.spill_error is not None
    assert "instead of a path string" in preview.spill_error
    assert "sed -n" not in preview.text


def test_spill_writer_raising_never_escapes() -> None:
    def writer(spill_id: str, data: bytes) -> str:
        raise PermissionError("read-only file system")

    preview = bound_with(writer)
    assert preview.spill_error == "spill writer failed: PermissionError: read-only file system"
    assert preview.spill_path is None
    assert "sed -n" not in preview.text


def test_spill_writer_returning_none_is_not_an_error() -> None:
    preview = bound_with(lambda spill_id, data: None)
    assert preview.spill_error is None
    assert preview.spill_path is None


def test_spill_path_with_line_break_is_refused() -> None:
    preview = bound_with(lambda spill_id, data: "/tmp/a\nb")
    assert preview.spill_path is None
    assert preview.spill_error
    assert "\n/tmp" not in preview.text


def test_async_writer_given_to_sync_bound() -> None:
    async def writer(spill_id: str, data: bytes) -> str:
        return "/tmp/x"

    preview = bound_with(writer)
    assert preview.spill_error == "spill writer is asynchronous: use abound()"


def test_async_writer_raising_never_escapes() -> None:
    async def writer(spill_id: str, data: bytes) -> str:
        await asyncio.sleep(0)
        raise OSError("disk full")

    preview = asyncio.run(dw.abound(BIG, max_lines=10, max_bytes=1000, spill=writer))
    assert preview.spill_error == "spill writer failed: OSError: disk full"


def test_spill_writer_keyboard_interrupt_is_not_swallowed() -> None:
    def writer(spill_id: str, data: bytes) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bound_with(writer)


def test_render_with_both_outcomes() -> None:
    pending = dw.Bounder(10, 1000).bound(BIG)
    assert isinstance(pending, dw.PendingSpill)
    with pytest.raises(ValueError, match="not both"):
        pending.render(spill_path="/x", spill_error="failed")


def test_streaming_bounder_after_finish() -> None:
    bounder = dw.StreamingBounder(10, 1000)
    bounder.push(BIG)
    bounder.finish()
    assert bounder.retained_bytes == 0
    with pytest.raises(dw.InvalidState):
        bounder.push(b"more")
    with pytest.raises(dw.InvalidState):
        bounder.finish()


def test_streaming_push_of_wrong_type() -> None:
    with pytest.raises(TypeError, match=r"push\(\) argument 'data'"):
        dw.StreamingBounder(10, 1000).push(5)  # type: ignore[arg-type]


def test_spill_directory_refuses_path_like_ids(tmp_path: Any) -> None:
    preview = dw.bound(
        BIG, max_lines=10, max_bytes=1000, spill=dw.SpillDirectory(tmp_path), spill_id="../escape"
    )
    assert preview.spill_path is None
    assert preview.spill_error is not None
    assert "not a plain file name" in preview.spill_error
    assert list(tmp_path.iterdir()) == []
