"""A thin Python host of the dory-wire component on wasmtime-py: loads the
component and calls its exports by their WIT names. Shared by the vector
runner (run_vectors.py) and the host example (host.py).

wasmtime-py maps the WIT types to Python as follows: records are
``wasmtime.component.Record`` objects whose attributes are the kebab-case
field names (``getattr(r, "exit-code")``), enums are their kebab-case
strings, ``list<u8>`` is ``bytes``, ``option<T>`` is ``T`` or ``None``, and
resources are ``ResourceAny`` handles (drop them with ``.drop(store)``). A
variant is a ``Variant(tag, payload)`` when two of its cases have the same
Python type, and the bare payload otherwise: ``result<end, error>`` gives
the ``end`` Variant or the ``error`` Record; ``result<_, error>`` gives
``None`` or the ``error`` Record.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from wasmtime import Engine, Store
from wasmtime.component import Component, Func, Linker, Record, Variant

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PATH = ROOT / "target" / "component" / "dory-wire.wasm"
VERSION = "0.1.0"


def record(**fields: Any) -> Record:
    """A WIT record from keyword arguments (``gap_policy`` → ``gap-policy``)."""
    out = Record()
    for name, value in fields.items():
        setattr(out, name.replace("_", "-"), value)
    return out


def field(rec: Any, name: str) -> Any:
    """A field of a lifted record by its snake_case name."""
    return getattr(rec, name.replace("_", "-"))


def is_error(value: Any) -> bool:
    """True for the component's ``error`` record."""
    return isinstance(value, Record) and hasattr(value, "code") and hasattr(value, "fields")


def result(value: Any) -> tuple[bool, Any]:
    """``(ok, payload)`` of a lifted ``result<T, error>``, tagged or not."""
    if isinstance(value, Variant) and value.tag in ("ok", "err"):
        return value.tag == "ok", value.payload
    return not is_error(value), value


class DoryWire:
    """One instance of the component in its own store."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.engine = Engine()
        self.store = Store(self.engine)
        component = Component.from_file(self.engine, str(path or os.environ.get("DORY_COMPONENT", DEFAULT_PATH)))
        self.instance = Linker(self.engine).instantiate(self.store, component)
        self._funcs: dict[tuple[str, str], Func] = {}

    def func(self, interface: str, name: str) -> Func:
        """The export ``name`` (e.g. ``[method]reader.feed``) of ``dory:wire/<interface>``."""
        key = (interface, name)
        if key not in self._funcs:
            iface = self.instance.get_export_index(self.store, f"dory:wire/{interface}@{VERSION}")
            index = self.instance.get_export_index(self.store, name, iface)
            func = self.instance.get_func(self.store, index) if index is not None else None
            if func is None:
                raise LookupError(f"no export {name} in dory:wire/{interface}")
            self._funcs[key] = func
        return self._funcs[key]

    def call(self, interface: str, name: str, *args: Any) -> Any:
        """Calls an export with the store."""
        return self.func(interface, name)(self.store, *args)

    def reader(
        self,
        endpoint: str,
        *,
        cursor: tuple[int, int] | None = None,
        gap_policy: str | None = None,
        max_frame_bytes: int | None = None,
        liveness_timeout_ns: int | None = None,
        strict: bool | None = None,
    ) -> Any:
        """A ``reader`` resource (endpoint in kebab-case: ``process-output``)."""
        options = record(
            cursor=record(stdout=cursor[0], stderr=cursor[1]) if cursor else None,
            gap_policy=gap_policy,
            max_frame_bytes=max_frame_bytes,
            liveness_timeout_ns=liveness_timeout_ns,
            strict=strict,
        )
        return self.call("decode", "[constructor]reader", endpoint, options)

    def method(self, resource: str, name: str, handle: Any, *args: Any) -> Any:
        """Calls ``[method]<resource>.<name>`` on a handle."""
        return self.call(INTERFACES.get(resource, "preview"), f"[method]{resource}.{name}", handle, *args)

    def static(self, resource: str, name: str, *args: Any) -> Any:
        """Calls ``[static]<resource>.<name>``."""
        return self.call(INTERFACES.get(resource, "preview"), f"[static]{resource}.{name}", *args)


# The interface of each resource other than those of ``preview``.
INTERFACES = {
    "reader": "decode",
    "follower": "follow",
    "run-bounder": "run",
    "run-pending": "run",
    "run": "run-machine",
    "searcher": "search",
}
FOLLOW_OPTIONS = (
    "follow",
    "gap-policy",
    "retries",
    "backoff-ns",
    "max-backoff-ns",
    "jitter",
    "liveness-timeout-ns",
    "max-frame-bytes",
    "strict",
)


RUN_OPTIONS = (
    "max-lines",
    "max-bytes",
    "max-tokens",
    "tokenizer",
    "idempotency-key",
    "timeout-seconds",
    "hint",
    "kill-on-cancel",
    "spill",
    "on-output",
    "answer-timeout-ns",
    "keep",
    "terminal",
)


def run_options(follow: Record | None = None, **fields: Any) -> Record:
    """A ``run-options`` record from snake_case keyword arguments and a
    ``follow-options`` record; absent fields are none, so the defaults of
    every client's ``run`` apply. ``keep`` is a ``keep`` variant (see
    :func:`keep_variant`)."""
    unknown = {name.replace("_", "-") for name in fields} - set(RUN_OPTIONS)
    if unknown:
        raise TypeError(f"not run options: {sorted(unknown)}")
    out = Record()
    for name in RUN_OPTIONS:
        setattr(out, name, fields.get(name.replace("-", "_")))
    out.follow = follow if follow is not None else follow_options()
    return out


def preview_options(
    keep: Any = None,
    terminal: bool = False,
    split: str = "even",
    max_tokens: int | None = None,
    tokenizer: str | None = None,
) -> Record:
    """A ``preview-options`` record from a vector's ``keep`` (``None``,
    ``"defaults"`` or a list of patterns), ``terminal``, ``split``
    (``"even"`` or ``"tail"``), ``max_tokens`` and ``tokenizer`` (``None``:
    none, the core's rule applies)."""
    out = Record()
    out.keep = keep_variant(keep)
    out.terminal = bool(terminal)
    out.split = split
    setattr(out, "max-tokens", max_tokens)
    out.tokenizer = tokenizer
    return out


def keep_variant(keep: Any) -> Variant:
    """The WIT ``keep`` of a vector's ``keep``: ``None`` (none),
    ``"defaults"`` or a list of patterns."""
    if keep is None:
        return Variant("none")
    if keep == "defaults":
        return Variant("defaults")
    return Variant("patterns", list(keep))


def follow_options(**fields: Any) -> Record:
    """A ``follow-options`` record from snake_case keyword arguments; absent
    fields are none, so the core's defaults apply."""
    unknown = {name.replace("_", "-") for name in fields} - set(FOLLOW_OPTIONS)
    if unknown:
        raise TypeError(f"not follow options: {sorted(unknown)}")
    out = Record()
    for name in FOLLOW_OPTIONS:
        setattr(out, name, fields.get(name.replace("-", "_")))
    return out


__all__ = [
    "DoryWire",
    "Variant",
    "field",
    "follow_options",
    "is_error",
    "preview_options",
    "record",
    "result",
    "run_options",
]
