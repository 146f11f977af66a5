"""The public names against tests/api/surface.json (the table of docs/api.md):
a listed Python name missing from the package or its stub, or a public name
that the table does not list, fails here; the same for the HTTP client's
module (`client_concepts`), for the options of its reads
(`client_options`: each a keyword of the read calls, with the core's
default), and for the options of run (`run_options` and the follow options:
exactly the keywords of `Computer.run` and `AsyncComputer.run`)."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
from pathlib import Path
from types import ModuleType
from typing import Any

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


# ---- the options of the clients' reads (client_options)

# Which calls read: every option is a keyword of the one-call reads; the
# frame iterators and the streaming exec take those that apply to them.
READ_CALLS = {
    "Process": ("iter_output", "read_output"),
    "Setup": ("iter_logs", "read_logs"),
    "Computer": ("exec_stream",),
}
TAKE_EVERY_OPTION = ("read_output", "read_logs")
# Keywords of those calls that are not read options: where to record, and
# the exec's own arguments, and where a read starts (cursor, beside the offsets).
NOT_OPTIONS = {"transcript", "timeout_seconds", "idempotency_key", "cursor"}


def client_options() -> list[dict[str, Any]]:
    options: list[dict[str, Any]] = json.loads(SURFACE.read_text(encoding="utf-8"))[
        "client_options"
    ]
    return options


def read_signatures() -> dict[str, inspect.Signature]:
    """Every read call of the client, sync and asyncio, by qualified name."""
    client = client_module()
    calls = {}
    for owner, names in READ_CALLS.items():
        for cls in (getattr(client, owner), getattr(client, f"Async{owner}")):
            for name in names:
                calls[f"{cls.__name__}.{name}"] = inspect.signature(getattr(cls, name))
    return calls


def option_problems(
    options: list[dict[str, Any]],
    calls: dict[str, inspect.Signature],
    clients: dict[str, inspect.Signature],
    core: dict[str, Any],
) -> list[str]:
    """What is wrong with the read calls' keywords and defaults against `options`."""
    problems = []
    names = [o["python"] for o in options if o["python"] is not None]
    if len(names) != len(set(names)):
        problems.append("a Python option is listed twice in client_options")
    for option in options:
        if (option["python"] is None or option["js"] is None) and not option.get("note"):
            problems.append(f"{option['option']}: a null name and no note")
        name, default = option["python"], option["default"]
        if name in core and core[name] != default:
            problems.append(f"{name}: listed default {default!r}, the core's is {core[name]!r}")
        elif name is not None and name not in core and default is not None:
            problems.append(f"{name}: not a core option, so its default must be None")
    for call, signature in calls.items():
        params = signature.parameters
        for option in options:
            name, default = option["python"], option["default"]
            if name is None:
                continue
            param = params.get(name)
            if param is None:
                if call.endswith(TAKE_EVERY_OPTION):
                    problems.append(f"{call} has no keyword {name}")
                continue
            if param.kind is not inspect.Parameter.KEYWORD_ONLY:
                problems.append(f"{call}: {name} is not keyword-only")
            if param.default is None and default is not None:
                # The client's option of the same name, whose default is the core's.
                for owner, init in clients.items():
                    if name not in init.parameters or init.parameters[name].default is not None:
                        problems.append(f"{call}: {name}=None, but {owner}({name}=None) is not")
            elif param.default != default or type(param.default) is not type(default):
                problems.append(f"{call}: {name}={param.default!r}, listed {default!r}")
        unlisted = {
            p.name
            for p in params.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in names
        }
        if unlisted - NOT_OPTIONS:
            problems.append(f"{call}: keywords not in client_options: {sorted(unlisted)}")
    return problems


def test_client_options_are_the_read_calls_keywords_with_the_cores_defaults() -> None:
    client = client_module()
    clients = {name: inspect.signature(getattr(client, name)) for name in ("Client", "AsyncClient")}
    core = dw.Follower.process_output("c1", "p1").options  # FollowOptions::default()
    calls = read_signatures()
    assert len(calls) == 10
    problems = option_problems(client_options(), calls, clients, core)
    assert not problems, "\n".join(problems)
    # The listed defaults are the core's constants.
    listed = {o["python"]: o["default"] for o in client_options()}
    assert (listed["retries"], listed["backoff_seconds"], listed["max_backoff_seconds"]) == (
        dw.DEFAULT_RETRIES,
        dw.DEFAULT_BACKOFF_SECONDS,
        dw.DEFAULT_MAX_BACKOFF_SECONDS,
    )
    assert listed["liveness_timeout_seconds"] == dw.DEFAULT_LIVENESS_TIMEOUT_SECONDS


def test_the_option_check_can_fail() -> None:
    def read(*, retries: int = 3, jitter: bool = True, extra: int = 0) -> None: ...

    def iterate(*, jitter: int = 1) -> None: ...

    options = [
        {"option": "r", "python": "retries", "js": "retries", "rust": "retries", "default": 5},
        {"option": "j", "python": "jitter", "js": None, "rust": "jitter", "default": True},
        {"option": "h", "python": "on_reconnect", "js": "x", "rust": "x", "default": None},
    ]
    calls = {"P.read_output": inspect.signature(read), "P.iter_output": inspect.signature(iterate)}
    assert option_problems(options, calls, {}, {"retries": 5, "jitter": True}) == [
        "j: a null name and no note",
        "P.read_output: retries=3, listed 5",
        "P.read_output has no keyword on_reconnect",
        "P.read_output: keywords not in client_options: ['extra']",
        "P.iter_output: jitter=1, listed True",
    ]


# ---- the options of run (run_options, and the follow options of client_options)

# The read options run does not take: it always follows to the exit.
NOT_RUN_OPTIONS = {"follow"}


def run_options() -> list[dict[str, Any]]:
    options: list[dict[str, Any]] = json.loads(SURFACE.read_text(encoding="utf-8"))["run_options"]
    return options


def run_option_problems(
    options: list[dict[str, Any]],
    follow: list[dict[str, Any]],
    calls: dict[str, inspect.Signature],
) -> list[str]:
    """What is wrong with the run calls' keywords and defaults: exactly the
    `options` (their listed defaults) and the follow options of `follow`
    (the read calls' defaults, checked against the core's elsewhere)."""
    problems = []
    wanted: dict[str, Any] = {}
    for option in options:
        if option["python"] is None:
            if not option.get("note"):
                problems.append(f"{option['option']}: no Python name and no note")
            continue
        wanted[option["python"]] = option["default"]
    for option in follow:
        name = option["python"]
        if name is not None and name not in NOT_RUN_OPTIONS:
            wanted.setdefault(name, option["default"])
    for call, signature in calls.items():
        params = signature.parameters
        for name, default in wanted.items():
            param = params.get(name)
            if param is None:
                problems.append(f"{call} has no keyword {name}")
            elif param.kind is not inspect.Parameter.KEYWORD_ONLY:
                problems.append(f"{call}: {name} is not keyword-only")
            elif param.default is None and default is not None and name in LIVENESS:
                continue  # the client's option of that name gives the core's default
            elif param.default is None and name in CORE_APPLIES:
                continue  # the core's token_limit applies the listed default
            elif param.default != default or type(param.default) is not type(default):
                problems.append(f"{call}: {name}={param.default!r}, listed {default!r}")
        extra = sorted(
            p.name
            for p in params.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in wanted
        )
        if extra:
            problems.append(f"{call}: keywords not in run_options or client_options: {extra}")
    return problems


# None in the call means the client's own setting, whose default is the core's.
LIVENESS = {"liveness_timeout_seconds"}
# None in the call means the core's default, applied by the core's
# token_limit: the listed tokenizer ("o200k_base") when max_tokens is given,
# and no token count without max_tokens (a tokenizer given alone only counts).
CORE_APPLIES = {"tokenizer"}


def test_run_takes_the_run_options_and_the_follow_options() -> None:
    client = client_module()
    calls = {
        f"{cls.__name__}.run": inspect.signature(cls.run)
        for cls in (client.Computer, client.AsyncComputer)
    }
    problems = run_option_problems(run_options(), client_options(), calls)
    assert not problems, "\n".join(problems)
    listed = {o["python"]: o["default"] for o in run_options()}
    assert (listed["max_lines"], listed["max_bytes"]) == (
        dw.DEFAULT_RUN_MAX_LINES,
        dw.DEFAULT_RUN_MAX_BYTES,
    )
    for signature in calls.values():
        assert list(signature.parameters)[:2] == ["self", "command"]


def test_the_run_option_check_can_fail() -> None:
    def run(command: str, *, max_lines: int = 40, retries: int = 5, extra: int = 0) -> None: ...

    options = [
        {"option": "l", "python": "max_lines", "js": "maxLines", "rust": "x", "default": 400},
        {"option": "k", "python": "kill_on_cancel", "js": "k", "rust": "k", "default": False},
        {"option": "n", "python": None, "js": "n", "rust": "n", "default": None},
    ]
    follow = [
        {"option": "f", "python": "follow", "js": "follow", "rust": "f", "default": True},
        {"option": "r", "python": "retries", "js": "retries", "rust": "r", "default": 5},
    ]
    assert run_option_problems(options, follow, {"C.run": inspect.signature(run)}) == [
        "n: no Python name and no note",
        "C.run: max_lines=40, listed 400",
        "C.run has no keyword kill_on_cancel",
        "C.run: keywords not in run_options or client_options: ['extra']",
    ]


# ---- the options of every bounder (preview_options): keep, terminal, split,
# max_tokens and tokenizer


def preview_option_problems(
    options: list[dict[str, Any]], calls: dict[str, inspect.Signature]
) -> list[str]:
    """Each option of `preview_options` a keyword-only parameter of every
    call, with the listed default (or None where the core applies it)."""
    problems = []
    for option in options:
        name = option["python"]
        for call, signature in calls.items():
            param = signature.parameters.get(name)
            if param is None or param.kind is not inspect.Parameter.KEYWORD_ONLY:
                problems.append(f"{call} has no keyword {name}")
            elif param.default is None and name in CORE_APPLIES:
                continue  # the core's token_limit applies the listed default
            elif param.default != option["default"]:
                problems.append(f"{call}: {name}={param.default!r}, listed {option['default']!r}")
    return problems


def test_every_bounder_takes_the_preview_options() -> None:
    surface = json.loads(SURFACE.read_text(encoding="utf-8"))
    calls = {
        name: inspect.signature(getattr(dw, name))
        for name in surface["preview_option_calls"]["python"]
    }
    assert preview_option_problems(surface["preview_options"], calls) == []
    assert isinstance(dw.DEFAULT_KEEP_PATTERNS, tuple)
    assert all(isinstance(p, str) for p in dw.DEFAULT_KEEP_PATTERNS)


def test_the_listed_tokenizer_is_the_cores_default() -> None:
    # What the core applies for tokenizer=None is the listed default: the
    # same counts (o200k_base and cl100k_base differ on this text), the
    # same previews with max_tokens alone.
    surface = json.loads(SURFACE.read_text(encoding="utf-8"))
    for key in ("preview_options", "run_options"):
        (option,) = (o for o in surface[key] if o["python"] == "tokenizer")
        default = option["default"]
        assert default in dw.TOKENIZERS
        text = "日本語のテキストです。\n🎉🚀 done\n"
        assert dw.count_tokens(text) == dw.count_tokens(text, default)
        assert dw.count_tokens(text, "cl100k_base") != dw.count_tokens(text, default)
        log = "".join(f"{i}: 日本語のテキスト\n" for i in range(300))
        alone = dw.bound(log, max_lines=100, max_bytes=4000, max_tokens=300)
        named = dw.bound(log, max_lines=100, max_bytes=4000, max_tokens=300, tokenizer=default)
        assert alone == named
        assert alone.tokens == dw.count_tokens(alone.text, default)
    # No max_tokens and no tokenizer: no token limit, nothing counted.
    assert dw.bound("x\n", max_lines=1, max_bytes=100).tokens is None


def test_the_preview_option_check_can_fail() -> None:
    def bound(data: str, *, keep: object = "defaults") -> None: ...

    def streaming(*, keep: object = None, terminal: bool = False, tokenizer: str = "x") -> None: ...

    options = [
        {"option": "k", "python": "keep", "default": None},
        {"option": "t", "python": "terminal", "default": False},
    ]
    assert preview_option_problems(options, {"bound": inspect.signature(bound)}) == [
        "bound: keep='defaults', listed None",
        "bound has no keyword terminal",
    ]
    # None stands for the core's tokenizer; another default does not.
    tokenizer = [{"option": "z", "python": "tokenizer", "default": "o200k_base"}]
    calls = {"streaming": inspect.signature(streaming)}
    assert preview_option_problems(tokenizer, calls) == [
        "streaming: tokenizer='x', listed 'o200k_base'"
    ]
