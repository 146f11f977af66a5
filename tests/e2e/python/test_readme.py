"""The README's programs run as written against the reference server: the
Python client's loop, the reader for your own HTTP stack, and (with Node) the
JavaScript client's loop — cleanly and with every response cut after 80
bytes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dory_wire.client import Client
from refserver import RefServer

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


DROPS = {"clean": [], "drop-after-80-bytes": ["--drop-after-bytes", "80"]}


@pytest.mark.parametrize("drop", list(DROPS))
def test_the_python_client_program(drop: str, tmp_path: Path) -> None:
    program = tmp_path / "readme_client.py"
    program.write_text(blocks(section("Python"), "python")[0], encoding="utf-8")
    with RefServer(*DROPS[drop]) as server:
        done = subprocess.run(
            [sys.executable, str(program)],
            env={**os.environ, "DORY_URL": server.url},
            capture_output=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    # The frame loop writes the exact stdout bytes; the one call prints stderr.
    assert done.stdout == b"hello\x00\xff" + b"b'notice'\n"
    if drop != "clean":
        assert b"reconnect 1 (end_of_body)" in done.stderr


@pytest.mark.skipif(sys.version_info < (3, 10), reason="the README's reader example uses match")
def test_the_reader_program_for_your_own_http_stack(capsys: pytest.CaptureFixture[str]) -> None:
    code = blocks(section("Python"), "python")[1]
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), namespace)  # the README's own code
    follow = namespace["follow"]
    # A cut body is the HTTP client's own error there (the README says to
    # catch it): this one is read from a server that does not cut.
    with RefServer() as server, Client(server.url) as client:
        computer = client.computers.get("c1")
        started = computer.processes.start(["sh", "-c", "seq 1 30"], timeout_seconds=30)
        try:
            exit_code = follow(server.url, "c1", started.proc_id)  # type: ignore[operator]
        finally:
            computer.processes.kill(started.proc_id)
    assert exit_code == 0
    assert capsys.readouterr().out == "".join(f"{i}\n" for i in range(1, 31))


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("drop", list(DROPS))
def test_the_javascript_client_program(drop: str, tmp_path: Path) -> None:
    client = ROOT / "npm" / "dist" / "node" / "client.mjs"
    if not client.exists():
        pytest.skip("the npm package is not built (npm/dist)")
    code = blocks(section("Node and browsers"), "js")[0]
    program = tmp_path / "readme_client.mjs"
    program.write_text(code.replace('"dory-wire/client"', f'"{client.as_uri()}"'), encoding="utf-8")
    with RefServer(*DROPS[drop]) as server:
        done = subprocess.run(
            ["node", str(program)],
            env={**os.environ, "DORY_URL": server.url},
            capture_output=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout == b"hello\x00\xff" + b"notice\n"
    if drop != "clean":
        assert b"reconnect 1 (end_of_body)" in done.stderr


AGENT = "For agents: one call"
AGENT_DROPS = {
    "clean": [],
    "seeded-cuts": ["--drop-seed", "5", "--drop-max-bytes", "20000", "--max-chunk-bytes", "4096"],
}


def agent_program(language: str, tmp_path: Path) -> str:
    code = blocks(section(AGENT), language)[0]
    return code.replace('"/tmp/tool-output"', json_str(str(tmp_path / "tool-output")))


def json_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def check_agent_output(out: bytes, spill: Path) -> None:
    text = out.decode()
    assert text.startswith("0 612822\n1\n2\n"), text[:200]
    assert text.rstrip("\n").endswith(
        "[... the last 34 of 34 bytes of stderr ...]\nerror: the one line that mattered\n[... exit code 0 ...]"
    )
    assert len(text.split("\n", 1)[1].rstrip("\n").encode()) + 1 <= 4096
    # The notice names the combined view's spill, which holds every byte.
    path = Path(re.search(r"sed -n '\d+,\d+p' (\S+) \.\.\.\]", text).group(1))
    assert path.parent == spill and path.stat().st_mode & 0o777 == 0o600
    assert len(path.read_bytes()) == 612822


@pytest.mark.parametrize("drop", list(AGENT_DROPS))
def test_the_agent_call_in_python(drop: str, tmp_path: Path) -> None:
    program = tmp_path / "readme_run.py"
    program.write_text(agent_program("python", tmp_path), encoding="utf-8")
    with RefServer(*AGENT_DROPS[drop]) as server:
        done = subprocess.run(
            [sys.executable, str(program)],
            env={**os.environ, "DORY_URL": server.url},
            capture_output=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    check_agent_output(done.stdout, tmp_path / "tool-output")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("drop", list(AGENT_DROPS))
def test_the_agent_call_in_typescript(drop: str, tmp_path: Path) -> None:
    client = ROOT / "npm" / "dist" / "node" / "client.mjs"
    esbuild = ROOT / "npm" / "node_modules" / "esbuild" / "lib" / "main.js"
    if not client.exists() or not esbuild.exists():
        pytest.skip("the npm package is not built (npm/dist) or its dev dependencies are missing")
    source = tmp_path / "readme_run.ts"
    code = agent_program("ts", tmp_path).replace('"dory-wire/client"', json_str(client.as_uri()))
    source.write_text(code, encoding="utf-8")
    program = tmp_path / "readme_run.mjs"
    # Types stripped by the npm package's pinned esbuild, as a TypeScript user's build would.
    strip = (
        f"const {{ transformSync }} = require({json_str(str(esbuild))});"
        f"const fs = require('fs');"
        f"fs.writeFileSync({json_str(str(program))}, transformSync(fs.readFileSync({json_str(str(source))}, 'utf8'),"
        " { loader: 'ts', format: 'esm' }).code);"
    )
    subprocess.run(["node", "-e", strip], check=True, timeout=60)
    with RefServer(*AGENT_DROPS[drop]) as server:
        done = subprocess.run(
            ["node", str(program)],
            env={**os.environ, "DORY_URL": server.url},
            capture_output=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    check_agent_output(done.stdout, tmp_path / "tool-output")
