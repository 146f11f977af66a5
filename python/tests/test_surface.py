"""The public names against tests/api/surface.json (the table of docs/api.md):
a listed Python name missing from the package or its stub, or a public name
that the table does not list, fails here."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import ModuleType

import dory_wire as dw
from dory_wire import _core

REPO = Path(__file__).resolve().parents[2]
SURFACE = REPO / "tests" / "api" / "surface.json"
STUB = Path(dw.__file__).parent / "_core.pyi"


def listed() -> set[str]:
    """The `python` names of surface.json."""
    concepts = json.loads(SURFACE.read_text(encoding="utf-8"))["concepts"]
    names = [c["python"] for c in concepts if c["python"] is not None]
    assert len(names) == len(set(names)), "a Python name is listed twice"
    for concept in concepts:
        if concept["python"] is None:
            assert concept.get("note"), f"{concept['concept']}: no Python name and no note"
    return set(names)


def stub_names() -> tuple[set[str], set[str]]:
    """The stub's `__all__` and its public top-level definitions."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    all_names: set[str] = set()
    defined: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            defined.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
        elif isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if targets == ["__all__"]:
                all_names = set(ast.literal_eval(node.value))
            else:
                defined.update(targets)
    public = {n for n in defined if not n.startswith("_") or n == "__version__"}
    return all_names, public


def test_all_is_the_listed_names() -> None:
    names = listed()
    assert len(dw.__all__) == len(set(dw.__all__)), "a name appears twice in __all__"
    missing = sorted(names - set(dw.__all__))
    unlisted = sorted(set(dw.__all__) - names)
    assert not missing, f"listed in surface.json, not in dory_wire.__all__: {missing}"
    assert not unlisted, f"in dory_wire.__all__, not listed in surface.json: {unlisted}"
    absent = sorted(n for n in names if not hasattr(dw, n))
    assert not absent, f"listed, but dory_wire has no such attribute: {absent}"


def test_module_has_no_other_public_name() -> None:
    # Submodules are namespaces of their own; `annotations` is the
    # `from __future__` import.
    public = {
        name
        for name, value in vars(dw).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    extra = sorted(public - set(dw.__all__) - {"annotations"})
    assert not extra, f"public names of dory_wire outside __all__: {extra}"


def test_stub_declares_exactly_the_native_names() -> None:
    stub_all, stub_public = stub_names()
    assert stub_all == stub_public, "the stub's __all__ and its definitions differ"
    native = {n for n in dir(_core) if not n.startswith("_")} | {"__version__"}
    assert stub_public == native, (
        f"only in the stub: {sorted(stub_public - native)}, "
        f"only in the native module: {sorted(native - stub_public)}"
    )
    unlisted = sorted(stub_public - listed())
    assert not unlisted, f"public in the stub, not listed in surface.json: {unlisted}"
    for name in stub_public:
        assert getattr(dw, name) is getattr(_core, name), f"dory_wire.{name} is not the native one"
