"""The guides' code blocks compile, type-check, or run (tests/docs/code.toml says which).

    python3 tests/docs/check_code.py

Env: DORY_PYTHON — the Python that runs the runnable blocks (it must import
dory_wire.client; scripts/test-docs.sh passes the repository's .venv);
DORY_REFSERVER — the reference server binary they run against;
DORY_RUST_EXTERNS — a file of `name=path` lines, the rlibs of dory_wire,
dory_wire_client and tokio (scripts/test-docs.sh writes it from cargo's
build of the README example). Without one of these, the checks that need it
fail: nothing is skipped silently.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LANGUAGES = {"python": "python", "py": "python", "typescript": "typescript", "ts": "typescript", "rust": "rust"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)\s*(?P<info>[^\s`{]*)")


def blocks(path: Path) -> list[tuple[str, int, str]]:
    """(language, line, code) of each python/typescript/rust block, dedented."""
    found, lines, i = [], path.read_text(encoding="utf-8").split("\n"), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group("indent"), m.group("fence"), m.group("info").lower()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence[:3]):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        if info in LANGUAGES:
            found.append((LANGUAGES[info], start + 1, "\n".join(body) + "\n"))
    return found


def main() -> int:
    config = tomllib.loads((ROOT / "tests" / "docs" / "code.toml").read_text(encoding="utf-8"))
    entries = {(b["file"], b["language"], b["index"]): b for b in config.get("block", [])}
    used: set[tuple[str, str, int]] = set()
    work = Path(tempfile.mkdtemp(prefix="dory-docs-code-"))
    failures: list[str] = []
    todo: dict[str, list[tuple[str, str, dict]]] = {"python": [], "typescript": [], "rust": []}
    for path in sorted(DOCS.glob("*.md")):
        counts: dict[str, int] = {}
        for language, line, code in blocks(path):
            index = counts.get(language, 0)
            counts[language] = index + 1
            key = (path.name, language, index)
            entry = entries.get(key, {})
            if entry:
                used.add(key)
                if code.split("\n", 1)[0] != entry["first_line"]:
                    failures.append(
                        f"{path.name}:{line}: code.toml's {language} block {index} should start with"
                        f" {entry['first_line']!r}, the block starts with {code.splitlines()[0]!r}"
                    )
                    continue
            todo[language].append((f"{path.name}:{line}", code, entry))
    for key in sorted(set(entries) - used):
        failures.append(f"code.toml names {key}, which no guide has")

    for name, code, entry in todo["python"]:
        try:
            compile(code, name, "exec")
            print(f"python {name}: compiles")
        except SyntaxError as e:
            failures.append(f"python {name}: {e}")
            continue
        if entry.get("run"):
            failures += run_python(name, code, entry, work)
    failures += check_typescript(todo["typescript"], work)
    failures += check_rust(todo["rust"], work)
    shutil.rmtree(work, ignore_errors=True)

    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    total = sum(len(v) for v in todo.values())
    print(
        f"check_code: {total} blocks ({', '.join(f'{len(v)} {k}' for k, v in todo.items())}), {len(failures)} failures"
    )
    return 1 if failures else 0


def run_python(name: str, code: str, entry: dict, work: Path) -> list[str]:
    python, server = os.environ.get("DORY_PYTHON"), os.environ.get("DORY_REFSERVER")
    if not python or not server:
        return [f"python {name}: marked to run, but DORY_PYTHON or DORY_REFSERVER is not set"]
    spill = work / f"spill-{abs(hash(name))}"
    spill.mkdir()
    program = work / "block.py"
    program.write_text(code.replace('"/tmp/tool-output"', json.dumps(str(spill))), encoding="utf-8")
    refserver = subprocess.Popen([server, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = refserver.stdout.readline() if refserver.stdout else ""
        url = line.removeprefix("listening on ").strip()
        if not url.startswith("http"):
            return [f"python {name}: the reference server printed {line!r}"]
        done = subprocess.run(
            [python, str(program)], env={**os.environ, "DORY_URL": url}, capture_output=True, text=True, timeout=180
        )
    finally:
        refserver.kill()
        refserver.wait()
    if done.returncode != 0 or not done.stdout.startswith(entry["expect"]):
        return [
            f"python {name}: ran with exit {done.returncode}, printed {done.stdout[:200]!r},"
            f" expected it to start with {entry['expect']!r}\n{done.stderr[-2000:]}"
        ]
    print(f"python {name}: runs against the reference server, prints {done.stdout.splitlines()[0]!r}, ...")
    return []


def check_typescript(items: list[tuple[str, str, dict]], work: Path) -> list[str]:
    if not items:
        return []
    folder = work / "ts"
    folder.mkdir()
    files = []
    for i, (name, code, _) in enumerate(items):
        file = folder / f"block{i}.mts"  # an ES module: top-level await
        file.write_text(f"// {name}\n{code}\nexport {{}};\n", encoding="utf-8")
        files.append(file.name)
    npm = ROOT / "npm"
    tsconfig = {
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "lib": ["ES2022"],
            "types": ["node"],
            "typeRoots": [str(npm / "node_modules" / "@types")],
            "strict": True,
            "noEmit": True,
            "paths": {
                "dory-wire": [str(npm / "src" / "index.d.ts")],
                "dory-wire/client": [str(npm / "src" / "client.d.ts")],
            },
        },
        "files": files,
    }
    (folder / "tsconfig.json").write_text(json.dumps(tsconfig, indent=2), encoding="utf-8")
    tsc = npm / "node_modules" / "typescript" / "bin" / "tsc"
    if not tsc.exists():
        return [f"typescript: {tsc} is missing (scripts/setup-wasm.sh installs npm's dev dependencies)"]
    done = subprocess.run(["node", str(tsc), "-p", str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        names = {f"block{i}.mts": name for i, (name, _, _) in enumerate(items)}
        out = re.sub(
            r"block\d+\.mts", lambda m: f"{m.group(0)} ({names.get(m.group(0), '?')})", done.stdout + done.stderr
        )
        return [f"typescript: tsc --strict failed:\n{out}"]
    for name, _, _ in items:
        print(f"typescript {name}: type-checks against npm/src/*.d.ts")
    return []


def check_rust(items: list[tuple[str, str, dict]], work: Path) -> list[str]:
    if not items:
        return []
    externs_file = os.environ.get("DORY_RUST_EXTERNS")
    if not externs_file:
        return ["rust: DORY_RUST_EXTERNS is not set (scripts/test-docs.sh sets it)"]
    externs = dict(line.split("=", 1) for line in Path(externs_file).read_text().split() if "=" in line)
    deps = Path(next(iter(externs.values()))).parent
    failures = []
    for i, (name, code, entry) in enumerate(items):
        if re.search(r"^\s*(async\s+)?fn main\s*\(", code, flags=re.M):
            source = code
        else:
            body = textwrap.indent(code, "    ")
            source = (
                "#![allow(unused, clippy::all)]\n"
                f"{entry.get('prelude', '')}\n"
                f"fn fragment() -> Result<(), Box<dyn std::error::Error>> {{\n{body}    Ok(())\n}}\n\nfn main() {{}}\n"
            )
        file = work / f"block{i}.rs"
        file.write_text(source, encoding="utf-8")
        command = [
            "rustc",
            "--edition",
            "2021",
            "--crate-type",
            "bin",
            "--emit=metadata",
            "-o",
            str(work / f"block{i}.rmeta"),
            "-L",
            f"dependency={deps}",
        ]
        for crate, rlib in sorted(externs.items()):
            command += ["--extern", f"{crate}={rlib}"]
        done = subprocess.run([*command, str(file)], capture_output=True, text=True)
        if done.returncode != 0:
            failures.append(f"rust {name}: does not type-check:\n{done.stderr}")
        else:
            print(f"rust {name}: type-checks against dory-wire, dory-wire-client, tokio")
    return failures


if __name__ == "__main__":
    sys.exit(main())
