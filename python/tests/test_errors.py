"""The exception classes against the core's table of error codes: a code added
to the core (or a field, a class renamed, a kind moved) fails here until
dory_wire/_errors.py declares it the same way."""

from __future__ import annotations

import inspect
import pickle
from typing import Any

import pytest

import dory_wire as dw
from dory_wire import _errors

# docs/api.md: the base class of each kind (None: straight from DoryWireError,
# and also a ValueError for the caller's mistakes, misuse and limits; a
# transport error is no ValueError).
KIND_BASES: dict[str, type[dw.DoryWireError] | None] = {
    "answer": dw.AnswerError,
    "loss": dw.LossError,
    "protocol": dw.ProtocolError,
    "misuse": None,
    "limits": None,
    "transport": None,
}
VALUE_ERROR_KINDS = {"misuse", "limits"}

ROWS = [dict(zip(("code", "cls", "kind", "fields"), row)) for row in dw.ERROR_CODES]


def test_the_table_has_the_codes_of_docs_api() -> None:
    codes = {row["code"]: (row["cls"], row["kind"]) for row in ROWS}
    assert len(codes) == len(ROWS), "a code appears twice"
    assert codes == {
        "api_error": ("ApiError", "answer"),
        "offset_beyond_output": ("OffsetBeyondOutput", "answer"),
        "output_gap": ("OutputGap", "loss"),
        "output_expired": ("OutputExpired", "loss"),
        "unsupported_content_type": ("UnsupportedContentType", "protocol"),
        "malformed_frame": ("MalformedFrame", "protocol"),
        "unexpected_frame": ("UnexpectedFrame", "protocol"),
        "identity_mismatch": ("IdentityMismatch", "protocol"),
        "frame_too_large": ("FrameTooLarge", "protocol"),
        "invalid_state": ("InvalidState", "misuse"),
        "invalid_limits": ("InvalidLimits", "limits"),
        "invalid_argument": ("InvalidArgument", "misuse"),
        "stream_disconnected": ("StreamDisconnected", "transport"),
        "no_answer": ("NoAnswer", "transport"),
    }


@pytest.mark.parametrize("row", ROWS, ids=[row["code"] for row in ROWS])
def test_each_code_has_its_class(row: dict[str, Any]) -> None:
    cls = getattr(_errors, row["cls"], None)
    assert inspect.isclass(cls), f"dory_wire._errors has no class {row['cls']}"
    assert getattr(dw, row["cls"]) is cls, "not exported by dory_wire"
    assert (cls.code, cls.kind, cls.fields) == (row["code"], row["kind"], row["fields"])
    # The declared (typed) attributes are the code's fields, in order (the
    # class's own annotations; inspect.get_annotations needs Python 3.10).
    assert tuple(vars(cls).get("__annotations__", {})) == row["fields"]
    assert (vars(cls).get("__doc__") or "").strip(), f"{cls.__name__} has no docstring"
    assert row["kind"] in KIND_BASES, f"a new kind {row['kind']!r}: give it a place in docs/api.md"
    base = KIND_BASES[row["kind"]]
    if base is None and row["kind"] in VALUE_ERROR_KINDS:
        assert cls.__bases__ == (dw.DoryWireError, ValueError)
    elif base is None:
        assert cls.__bases__ == (dw.DoryWireError,)
    else:
        assert cls.__bases__ == (base,)
        assert base.kind == row["kind"]
    for name in row["fields"]:
        assert f"{name}:" in cls.__doc__, f"{cls.__name__}.{name} is not documented"


def test_every_error_class_is_in_the_table() -> None:
    classes = {
        name
        for name, obj in vars(_errors).items()
        if inspect.isclass(obj) and issubclass(obj, dw.DoryWireError)
    }
    bases = {"DoryWireError"} | {b.__name__ for b in KIND_BASES.values() if b is not None}
    assert classes - bases == {row["cls"] for row in ROWS}
    assert set(_errors.__all__) == classes


def error_of(body: bytes, status: int, **kw: Any) -> dw.DoryWireError:
    reader = dw.Reader("process_output", **kw)
    reader.open(status, "application/json" if status >= 300 else "application/x-ndjson")
    try:
        reader.feed(body)
        reader.finish()
    except dw.DoryWireError as err:
        return err
    raise AssertionError("no error")


def test_raised_errors_carry_code_kind_fields_and_the_core_message() -> None:
    gap = error_of(b'{"type":"stdout","data":"xy","offset":12}\n', 200, cursor={"stdout": 3})
    assert isinstance(gap, dw.OutputGap)
    assert (gap.code, gap.kind) == ("output_gap", "loss")
    assert (gap.stream, gap.consumed, gap.earliest) == ("stdout", dw.Cursor(3, 0), dw.Cursor(10, 0))
    assert str(gap) == (
        "output_gap: stdout output was lost "
        "(consumed stdout=3 stderr=0, earliest available stdout=10 stderr=0)"
    )
    too_large = error_of(b"x" * 11, 200, max_frame_bytes=10)
    assert isinstance(too_large, dw.FrameTooLarge)
    assert too_large.limit == 10
    assert type(too_large.limit) is int
    html = error_of(b"<html>bad gateway</html>", 502)
    assert isinstance(html, dw.ApiError)
    assert (html.status, html.api_code) == (502, None)
    assert isinstance(html.server_message, str)


def test_errors_pickle_with_their_fields() -> None:
    err = error_of(b'{"type":"stdout","data":"xy","offset":12}\n', 200, cursor={"stdout": 3})
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is type(err)
    assert str(copy) == str(err)
    assert {f: getattr(copy, f) for f in copy.fields} == {f: getattr(err, f) for f in err.fields}


def test_constructors_take_exactly_the_fields() -> None:
    err = dw.InvalidState("invalid_state: no", reason="no")
    assert (err.reason, err.events, str(err)) == ("no", (), "invalid_state: no")
    with pytest.raises(TypeError, match="reason"):
        dw.InvalidState("invalid_state: no")
    with pytest.raises(TypeError, match="bogus"):
        dw.InvalidState("x", reason="no", bogus=1)
