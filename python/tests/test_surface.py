"""The public names against tests/api/surface.json (the table of docs/api.md):
a listed Python name missing from the package or its stub, or a public name
that the table does not list, fails here; the same for the HTTP client's
module (`client_concepts`)."""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path
from types import ModuleType

import dory_wire as dw
from dory_wire import _core

REPO = Path(__file__).resolve().parents[2]
SURFACE = REPO / "tests" / "api" / "surface.json"
STUB = Path(dw.__file__).parent / "_core.pyi"


def listed(key: str = "concepts") -> set[str]:
    """The `python` names of surface.json's list `key`."""
    concepts = json.loads(SURFACE.read_text(encoding="utf-8"))[key]
    names = [c["python"] for c in concepts if c["python"] is not None]
    assert len(names) == len(set(names)), f"a Python name is listed twice in {key}"
    for concept in concepts:
        if concept["python"] is None:
            assert concept.get("note"), f"{concept['concept']}: no Python name and no note"
    return set(names)


def client_module() -> ModuleType:
    """The client's module, by the name surface.json gives it."""
    name = json.loads(SURFACE.read_text(encoding="utf-8"))["client"]["python"]
    assert name == "dory_wire.client"
    return importlib.import_module(name)


def from_core() -> set[str]:
    """The client's names that are the core package's own objects."""
    concepts = json.loads(SURFACE.read_text(encoding="utf-8"))["client_concepts"]
    return {c["python"] for c in concepts if "python" in c.get("from_core", [])}


def all_mismatch(module: ModuleType, names: set[str]) -> list[str]:
    """What is wrong with `module.__all__` against the listed `names`."""
    exported = list(module.__all__)
    problems = []
    if len(exported) != len(set(exported)):
        problems.append(f"a name appears twice in {module.__name__}.__all__")
    missing = sorted(names - set(exported))
    unlisted = sorted(set(exported) - names)
    absent = sorted(n for n in names if not hasattr(module, n))
    if missing:
        problems.append(f"listed in surface.json, not in {module.__name__}.__all__: {missing}")
    if unlisted:
        problems.append(f"in {module.__name__}.__all__, not listed in surface.json: {unlisted}")
    if absent:
        problems.append(f"listed, but {module.__name__} has no such attribute: {absent}")
    return problems


def public_outside_all(module: ModuleType) -> list[str]:
    """Public attributes of `module` that its `__all__` leaves out.

    Submodules are namespaces of their own; `annotations` is the
    `from __future__` import."""
    public = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    return sorted(public - set(module.__all__) - {"annotations"})


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
    problems = all_mismatch(dw, listed())
    assert not problems, "\n".join(problems)


def test_module_has_no_other_public_name() -> None:
    extra = public_outside_all(dw)
    assert not extra, f"public names of dory_wire outside __all__: {extra}"


def test_client_all_is_the_listed_names() -> None:
    problems = all_mismatch(client_module(), listed("client_concepts"))
    assert not problems, "\n".join(problems)


def test_client_has_no_other_public_name() -> None:
    client = client_module()
    extra = public_outside_all(client)
    assert not extra, f"public names of {client.__name__} outside __all__: {extra}"


def test_client_reexports_are_the_core_objects() -> None:
    # A name marked from_core is the core package's own object (one class,
    # so `except dory_wire.OutputGap` catches the client's), and listed there.
    client = client_module()
    core_names = listed()
    for name in sorted(from_core()):
        assert name in core_names, f"{name} is from_core but not a listed dory_wire name"
        assert getattr(client, name) is getattr(dw, name), (
            f"{client.__name__}.{name} is not dory_wire.{name}"
        )
    own = sorted(
        n
        for n in client.__all__
        if n not in from_core() and getattr(dw, n, None) is getattr(client, n)
    )
    assert not own, f"re-exported from dory_wire but not marked from_core in surface.json: {own}"


def test_the_checks_can_fail() -> None:
    # A listed name that is gone, a name off the list, and a public name
    # outside __all__ are each caught.
    module = ModuleType("renamed")
    vars(module).update(Client=object, OutputReader=object, helper=object)
    module.__all__ = ["Client", "OutputReader"]
    assert all_mismatch(module, {"Client", "OutputStream"}) == [
        "listed in surface.json, not in renamed.__all__: ['OutputStream']",
        "in renamed.__all__, not listed in surface.json: ['OutputReader']",
        "listed, but renamed has no such attribute: ['OutputStream']",
    ]
    assert public_outside_all(module) == ["helper"]


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
