#!/usr/bin/env python3
"""Rebuild the corpus projects and re-record tests/corpus/logs/*.log and manifest.json.

Needs: python3 (with venv), bash, node/npm, cargo; network access to the npm
registry and PyPI (for npm install, pip install, pytest and typescript).

    python3 tests/corpus/record.py            # record every log
    python3 tests/corpus/record.py pytest_fail cargo_test_fail   # only these

Everything is built in a fresh temporary directory that is removed afterwards.
Each log is the raw byte stream the command produced (stdout and stderr merged
in arrival order); logs marked "tty" were recorded on a pseudo-terminal
(100x30, TERM=xterm-256color, the terminal's default line discipline, so lines
end in CR LF there), the others on a single pipe shared by stdout and stderr.
The recorded bytes are then scrubbed (see README.md): the temporary directory
becomes /project, $HOME becomes /home/user, the hostname becomes "host", the
registry hosts become *.invalid ones.
"""

import errno
import fcntl
import json
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOGS = os.path.join(HERE, "logs")
MANIFEST = os.path.join(HERE, "manifest.json")
COLS, ROWS = 100, 30
NEUTRAL_ROOT = "/project"
NEUTRAL_HOME = "/home/user"


# ---------------------------------------------------------------- recording


def run_pipe(argv, cwd, env, timeout=900):
    """stdout and stderr on one pipe: bytes in arrival order."""
    p = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=timeout,
    )
    return p.returncode, p.stdout


def run_tty(argv, cwd, env, timeout=900):
    """stdin, stdout and stderr on one pseudo-terminal, as `script` records."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))

    def child_setup():
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    p = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, preexec_fn=child_setup, close_fds=True
    )
    os.close(slave)
    out = bytearray()
    deadline = time.time() + timeout
    while True:
        if time.time() > deadline:
            os.killpg(p.pid, signal.SIGKILL)
            raise RuntimeError("timeout: %r" % (argv,))
        r, _, _ = select.select([master], [], [], 1.0)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError as e:
                if e.errno == errno.EIO:  # every writer has closed the pty
                    break
                raise
            if not chunk:
                break
            out += chunk
        elif p.poll() is not None:
            # child gone; drain what is left without blocking
            try:
                while True:
                    r, _, _ = select.select([master], [], [], 0.2)
                    if not r:
                        break
                    chunk = os.read(master, 65536)
                    if not chunk:
                        break
                    out += chunk
            except OSError:
                pass
            break
    os.close(master)
    return p.wait(), bytes(out)


def sh(argv, cwd, env, check=True):
    """Set-up step (not recorded); its output goes to our stderr."""
    p = subprocess.run(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    if check and p.returncode != 0:
        sys.stderr.write(p.stdout.decode("utf-8", "replace"))
        raise RuntimeError("set-up step failed: %r" % (argv,))
    return p.stdout.decode("utf-8", "replace").strip()


# ---------------------------------------------------------------- scrubbing


def registry_hosts(env):
    """The registry hosts, asked of the clients rather than written here."""
    hosts = []
    try:
        url = sh(["npm", "config", "get", "registry"], None, env)
        m = re.match(r"https?://([^/:]+)", url)
        if m:
            hosts.append((m.group(1), "npm-registry.invalid"))
    except Exception:
        pass
    try:
        out = sh(
            [
                sys.executable,
                "-c",
                "from pip._internal.models.index import PyPI as P;print(P.netloc, P.file_storage_domain)",
            ],
            None,
            env,
        )
        index, files = out.split()
        hosts.append((files, "pypi-files.invalid"))
        hosts.append((index, "pypi.invalid"))
    except Exception:
        pass
    return hosts


class Scrubber:
    def __init__(self, tmp, env):
        self.pairs = []
        real = os.path.realpath(tmp)
        for t in sorted({tmp, real}, key=len, reverse=True):
            self.pairs.append((t.encode(), NEUTRAL_ROOT.encode()))
        home = os.path.expanduser("~")
        if home not in ("/", ""):
            self.pairs.append((home.encode(), NEUTRAL_HOME.encode()))
        for host, neutral in registry_hosts(env):
            self.pairs.append((host.encode(), neutral.encode()))
        self.hostname = socket.gethostname().encode()

    def __call__(self, data):
        for old, new in self.pairs:
            data = data.replace(old, new)
        if self.hostname:
            # the hostname only where it stands as a word (it may be short)
            data = re.sub(rb"(?<![A-Za-z0-9_.-])" + re.escape(self.hostname) + rb"(?![A-Za-z0-9_-])", b"host", data)
        return data


# ---------------------------------------------------------------- projects


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_pytest_project(root):
    """6 modules x 50 tests = 300 tests; 2 assertion failures in test_m3."""
    write(os.path.join(root, "pyproject.toml"), '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    write(os.path.join(root, "src_pkg", "__init__.py"), "")
    write(
        os.path.join(root, "src_pkg", "calc.py"),
        "def total(xs):\n    return sum(xs)\n\n\n"
        "def parse_pair(s):\n    k, _, v = s.partition('=')\n"
        "    return k.strip(), v.strip()\n\n\n"
        "def normalize(d):\n    return {k.lower(): v for k, v in d.items() if k != 'Debug'}\n",
    )
    write(
        os.path.join(root, "tests", "conftest.py"),
        "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
    )
    for m, topic in enumerate(["alpha", "beta", "gamma", "delta", "epsilon", "zeta"], 1):
        lines = ["from src_pkg.calc import total, parse_pair, normalize", "", ""]
        for i in range(50):
            name = "test_%s_%03d" % (topic, i)
            if m == 3 and i == 17:
                lines += [
                    "def %s():" % name,
                    "    values = list(range(1, 51))",
                    "    values.remove(%d)" % (i + 1),
                    "    assert total(values) == 1275",
                    "",
                    "",
                ]
            elif m == 3 and i == 34:
                lines += [
                    "def %s():" % name,
                    "    got = normalize({'Name': 'x', 'Mode': 'fast', 'Debug': True})",
                    "    assert got == {'name': 'x', 'mode': 'fast', 'debug': True}",
                    "",
                    "",
                ]
            elif i % 3 == 0:
                lines += ["def %s():" % name, "    assert total(range(%d)) == %d" % (i, i * (i - 1) // 2), "", ""]
            elif i % 3 == 1:
                lines += [
                    "def %s():" % name,
                    "    assert parse_pair('key%d = %d') == ('key%d', '%d')" % (i, i, i, i),
                    "",
                    "",
                ]
            else:
                lines += ["def %s():" % name, "    assert normalize({'K%d': %d}) == {'k%d': %d}" % (i, i, i, i), "", ""]
        write(os.path.join(root, "tests", "test_m%d_%s.py" % (m, topic)), "\n".join(lines).rstrip() + "\n")


def make_crate(root):
    """200 tests, 2 of them panic on assert_eq!/assert!; 2 compile warnings."""
    write(
        os.path.join(root, "Cargo.toml"),
        '[package]\nname = "corpus_crate"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nregex = "1"\n',
    )
    body = [
        "/// Sum of 1..=n.",
        "pub fn triangle(n: u64) -> u64 {",
        "    let unused_scale = 2;",
        "    (1..=n).sum()",
        "}",
        "",
        "fn helper_never_called(x: u64) -> u64 {",
        "    x * 3",
        "}",
        "",
        "/// Whether `s` looks like a version number (uses the regex crate, so that the",
        "/// build has dependencies to compile and cargo's progress bar to draw).",
        "pub fn is_version(s: &str) -> bool {",
        '    regex::Regex::new(r"^\\d+\\.\\d+\\.\\d+$").unwrap().is_match(s)',
        "}",
        "",
        "pub fn checksum(bytes: &[u8]) -> u32 {",
        "    bytes.iter().fold(0u32, |acc, b| acc.wrapping_mul(31).wrapping_add(*b as u32))",
        "}",
        "",
        "#[cfg(test)]",
        "mod tests {",
        "    use super::*;",
        "",
    ]
    for i in range(200):
        name = "case_%03d" % i
        if i == 87:
            body += [
                "    #[test]",
                "    fn %s() {" % name,
                '        assert_eq!(triangle(%d), %d, "triangle of %d");' % (i, i * (i + 1) // 2 + 1, i),
                "    }",
                "",
            ]
        elif i == 131:
            body += [
                "    #[test]",
                "    fn %s() {" % name,
                '        let c = checksum(b"corpus");',
                '        assert!(c < 1000, "checksum {} out of range", c);',
                "    }",
                "",
            ]
        elif i % 2 == 0:
            body += [
                "    #[test]",
                "    fn %s() {" % name,
                "        assert_eq!(triangle(%d), %d);" % (i, i * (i + 1) // 2),
                "    }",
                "",
            ]
        elif i % 10 == 5:
            body += ["    #[test]", "    fn %s() {" % name, '        assert!(is_version("1.%d.0"));' % i, "    }", ""]
        else:
            body += [
                "    #[test]",
                "    fn %s() {" % name,
                '        assert_ne!(checksum(b"%s"), 0);' % name,
                "    }",
                "",
            ]
    body += ["}", ""]
    write(os.path.join(root, "src", "lib.rs"), "\n".join(body))


def crate_panic_line(case):
    """Line of the failing assertion of tests::case_NNN in the generated lib.rs."""
    import io

    tmp = tempfile.mkdtemp()
    try:
        make_crate(tmp)
        with io.open(os.path.join(tmp, "src", "lib.rs")) as f:
            lines = f.read().split("\n")
    finally:
        shutil.rmtree(tmp)
    i = lines.index("    fn case_%03d() {" % case)
    while "assert" not in lines[i]:
        i += 1
    return i + 1  # 1-based


def make_ts_project(root):
    """5 independent composite packages x 10 modules = 50 files, built with tsc -b;
    3 type errors: pkg_b/src/mod_03.ts, pkg_c/src/mod_06.ts, pkg_d/src/mod_02.ts."""
    errors = {("b", 3): "TS2322", ("c", 6): "TS2345", ("d", 2): "TS2339"}
    refs = []
    for pk in "abcde":
        pkg = os.path.join(root, "pkg_" + pk)
        shutil.rmtree(pkg, ignore_errors=True)  # tsc -b is incremental: start clean
        refs.append({"path": "./pkg_" + pk})
        write(
            os.path.join(pkg, "tsconfig.json"),
            json.dumps(
                {
                    "compilerOptions": {
                        "composite": True,
                        "rootDir": "src",
                        "outDir": "dist",
                        "target": "ES2020",
                        "module": "commonjs",
                        "strict": True,
                        "skipLibCheck": True,
                    },
                    "include": ["src"],
                },
                indent=2,
            )
            + "\n",
        )
        for i in range(10):
            lines = [
                "export interface Item%02d {" % i,
                "  id: number;",
                "  label: string;",
                "  tags: string[];",
                "}",
                "",
                "export function make%02d(id: number, label: string): Item%02d {" % (i, i),
                "  return { id, label, tags: [] };",
                "}",
                "",
            ]
            if i > 0:
                lines.insert(0, "import { make%02d, Item%02d } from './mod_%02d';" % (i - 1, i - 1, i - 1))
                lines += [
                    "export function chain%02d(x: Item%02d): Item%02d {" % (i, i - 1, i),
                    "  return make%02d(x.id + 1, x.label);" % i,
                    "}",
                    "",
                ]
            code = errors.get((pk, i))
            if code == "TS2322":
                lines += ["export const count%02d: number = 'twelve';" % i, ""]
            elif code == "TS2345":
                lines += ["export const bad%02d = make%02d('27', 'label');" % (i, i), ""]
            elif code == "TS2339":
                lines += ["export function size%02d(x: Item%02d): number {" % (i, i), "  return x.tags.size;", "}", ""]
            write(os.path.join(pkg, "src", "mod_%02d.ts" % i), "\n".join(lines))
    write(os.path.join(root, "tsconfig.json"), json.dumps({"files": [], "references": refs}, indent=2) + "\n")


SET_X_SCRIPT = r"""#!/usr/bin/env bash
# A build script under `set -x` that does many small steps, fails in the middle
# (a missing tool and a missing file), carries on, and exits 1 at the end.
set -x
status=0
mkdir -p build/out
for i in $(seq 1 60); do
  f="build/out/part_$i.txt"
  printf 'part %s\n' "$i" > "$f"
  n=$(wc -c < "$f")
  test "$n" -gt 0
done
for i in $(seq 1 30); do
  cp "build/out/part_$i.txt" "build/out/copy_$i.txt"
done
if ! frobnicate --config build/frob.toml; then
  status=1
fi
if ! cat build/missing-manifest.txt; then
  status=1
fi
for i in $(seq 31 60); do
  cp "build/out/part_$i.txt" "build/out/copy_$i.txt"
  test -s "build/out/copy_$i.txt"
done
ls build/out | wc -l
echo "done with status $status"
exit "$status"
"""

PY_PROGRAM = r'''"""Processes records, then fails on a bad one deep in the call stack."""
import sys


def parse_amount(text):
    if not text.strip().lstrip("-").isdigit():
        raise ValueError("invalid amount %r in record 1001: expected an integer" % text)
    return int(text)


def parse_record(line):
    key, _, amount = line.partition(",")
    return key, parse_amount(amount)


def load(lines):
    total = 0
    for n, line in enumerate(lines, 1):
        key, amount = parse_record(line)
        total += amount
        print("record %04d: %-12s amount=%6d running_total=%9d" % (n, key, amount, total))
        if n == 500:
            sys.stdout.flush()
            # a name that is not UTF-8 (latin-1), written as the bytes it is
            sys.stdout.buffer.write(b"warning: skipping attachment 'r\xe9sum\xe9_2019.csv' (not UTF-8)\n")
            sys.stdout.buffer.flush()
    return total


def main():
    lines = ["item%05d,%d" % (i, (i * 37) % 1000) for i in range(1, 1001)]
    lines.append("item01001,12x")
    print("loading %d records" % len(lines))
    print("total: %d" % load(lines))


if __name__ == "__main__":
    main()
'''


# ---------------------------------------------------------------- the logs

# The ecosystem of each log, and where its must_keep lines sit (README.md:
# end, near-end, middle or start).
PLACES = {
    "bash_set_x_fail": ("shell", "near-end"),
    "cargo_test_fail": ("rust", "end"),
    "npm_install_e404": ("node", "end"),
    "npm_install_e404_pipe": ("node", "start"),
    "npm_install_progress": ("node", "end"),
    "npm_install_spinner": ("node", "end"),
    "pip_install_not_found": ("python", "start"),
    "pip_install_progress": ("python", "end"),
    "pytest_fail": ("python", "near-end"),
    "python_traceback": ("python", "end"),
    "tsc_build_plain": ("node", "middle"),
    "tsc_build_pretty": ("node", "middle"),
}


def recipes(tmp, env):
    """name -> (description, setup, argv, cwd, tty, tool, version_fn, must_keep)."""
    venv = os.path.join(tmp, "venv")
    vpy = os.path.join(venv, "bin", "python")
    pyproj = os.path.join(tmp, "pyproj")
    crate = os.path.join(tmp, "crate")
    npmproj = os.path.join(tmp, "npmproj")
    npmcache = os.path.join(tmp, "npm-cache")
    npmproj2 = os.path.join(tmp, "npmproj2")
    npmcache2 = os.path.join(tmp, "npm-cache2")
    tsproj = os.path.join(tmp, "tsproj")
    shproj = os.path.join(tmp, "shproj")
    pyapp = os.path.join(tmp, "pyapp")
    pipvenv = os.path.join(tmp, "pipvenv")
    npm_flags = ["--cache", npmcache, "--no-update-notifier", "--no-fund", "--no-audit"]

    def setup_venv():
        if not os.path.exists(vpy):
            sh([sys.executable, "-m", "venv", venv], tmp, env)
            sh([vpy, "-m", "pip", "install", "-q", "--disable-pip-version-check", "pytest"], tmp, env)

    def setup_pytest():
        setup_venv()
        make_pytest_project(pyproj)

    def setup_crate():
        make_crate(crate)

    def setup_npm():
        os.makedirs(npmproj, exist_ok=True)
        write(
            os.path.join(npmproj, "package.json"),
            json.dumps({"name": "corpus-npm", "version": "1.0.0", "private": True}, indent=2) + "\n",
        )

    def setup_npm_fresh():
        shutil.rmtree(npmproj2, ignore_errors=True)
        shutil.rmtree(npmcache2, ignore_errors=True)
        os.makedirs(npmproj2)
        write(
            os.path.join(npmproj2, "package.json"),
            json.dumps({"name": "corpus-npm2", "version": "1.0.0", "private": True}, indent=2) + "\n",
        )

    def setup_ts():
        make_ts_project(tsproj)
        if not os.path.exists(os.path.join(tsproj, "node_modules", ".bin", "tsc")):
            write(
                os.path.join(tsproj, "package.json"),
                json.dumps({"name": "corpus-ts", "version": "1.0.0", "private": True}, indent=2) + "\n",
            )
            sh(["npm", "install", "--silent"] + npm_flags + ["typescript"], tsproj, env)

    def setup_sh():
        write(os.path.join(shproj, "build.sh"), SET_X_SCRIPT)

    def setup_pyapp():
        write(os.path.join(pyapp, "app.py"), PY_PROGRAM)

    def setup_pipvenv():
        if os.path.exists(pipvenv):
            shutil.rmtree(pipvenv)
        sh([sys.executable, "-m", "venv", pipvenv], tmp, env)

    def setup_pipvenv_once():
        if not os.path.exists(pipvenv):
            sh([sys.executable, "-m", "venv", pipvenv], tmp, env)

    tsc = os.path.join(tsproj, "node_modules", ".bin", "tsc")
    pip = os.path.join(pipvenv, "bin", "pip")

    def v(argv, cwd=None):
        return lambda: sh(argv, cwd or tmp, env).splitlines()[0]

    def npm_v():
        return "npm %s (node %s)" % (sh(["npm", "--version"], tmp, env), sh(["node", "--version"], tmp, env))

    def tsc_v():
        return "tsc %s (node %s)" % (sh([tsc, "--version"], tmp, env).split()[-1], sh(["node", "--version"], tmp, env))

    return {
        "pytest_fail": dict(
            description="pytest -v on a generated project: 300 tests, 2 assertion failures "
            "(test_m3_gamma.py::test_gamma_017 and ::test_gamma_034) in the middle "
            "of the per-test lines; FAILURES and short summary at the end.",
            setup=setup_pytest,
            argv=[vpy, "-m", "pytest", "-v", "-p", "no:cacheprovider"],
            cwd=pyproj,
            tty=False,
            tool="pytest",
            version=v([vpy, "-m", "pytest", "--version"]),
            must_keep=[
                "tests/test_m3_gamma.py::test_gamma_017 FAILED",
                "tests/test_m3_gamma.py::test_gamma_034 FAILED",
                "E       assert 1257 == 1275",
                "E       AssertionError: assert {'name': 'x', 'mode': 'fast'} == {'name': 'x',...'debug': True}",
                "E         Right contains 1 more item:",
                "FAILED tests/test_m3_gamma.py::test_gamma_017 - assert 1257 == 1275",
                "FAILED tests/test_m3_gamma.py::test_gamma_034 - AssertionError: assert {'name': 'x', 'mode': 'fas",
                "2 failed, 298 passed",
            ],
        ),
        "cargo_test_fail": dict(
            description="cargo test on a generated crate (depending on regex) in a terminal: "
            "cargo's progress bar while the dependencies compile, 2 compile warnings "
            "(unused variable, dead code), 200 tests of "
            "which tests::case_087 (assert_eq!) and tests::case_131 (assert!) panic.",
            setup=setup_crate,
            argv=["cargo", "test"],
            cwd=crate,
            tty=True,
            tool="cargo",
            version=v(["cargo", "--version"]),
            must_keep=[
                "unused variable: `unused_scale`",
                "function `helper_never_called` is never used",
                "thread 'tests::case_087'",
                "panicked at src/lib.rs:%d:9:" % crate_panic_line(87),
                "assertion `left == right` failed: triangle of 87",
                "thread 'tests::case_131'",
                "panicked at src/lib.rs:%d:9:" % crate_panic_line(131),
                "out of range",
                "    tests::case_087",
                "    tests::case_131",
                "198 passed; 2 failed",
                "test failed, to rerun pass `--lib`",
            ],
        ),
        "npm_install_progress": dict(
            description="npm install of a few real packages into an empty project, in a "
            "terminal, with an empty cache and --loglevel=http (one line per "
            "request) and npm's spinner.",
            setup=setup_npm,
            argv=["npm", "install", "--loglevel=http", "--foreground-scripts"]
            + npm_flags
            + ["left-pad", "lodash", "chalk@4", "express"],
            cwd=npmproj,
            tty=True,
            tool="npm",
            version=npm_v,
            must_keep=["fetch", "GET 200 https://npm-registry.invalid/lodash", "added ", " packages in "],
        ),
        "npm_install_spinner": dict(
            description="Plain npm install of the same packages with another empty cache, in a "
            "terminal: only npm's spinner (ESC[1G ESC[0K redraws), then 'added N packages'.",
            setup=setup_npm_fresh,
            argv=[
                "npm",
                "install",
                "--cache",
                npmcache2,
                "--no-update-notifier",
                "--no-fund",
                "--no-audit",
                "left-pad",
                "lodash",
                "chalk@4",
                "express",
            ],
            cwd=npmproj2,
            tty=True,
            tool="npm",
            version=npm_v,
            must_keep=["added ", " packages in "],
        ),
        "npm_install_e404": dict(
            description="npm install of a package name that does not exist, in a terminal: "
            "npm error code E404 (coloured, with the spinner).",
            setup=setup_npm,
            argv=["npm", "install"] + npm_flags + ["a-package-that-does-not-exist-xyz"],
            cwd=npmproj,
            tty=True,
            tool="npm",
            version=npm_v,
            must_keep=[
                "E404",
                "Not Found - GET https://npm-registry.invalid/a-package-that-does-not-exist-xyz",
                "'a-package-that-does-not-exist-xyz@*' could not be found",
                "A complete log of this run can be found in:",
            ],
        ),
        "npm_install_e404_pipe": dict(
            description="The same failing npm install on a pipe: plain npm error lines.",
            setup=setup_npm,
            argv=["npm", "install"] + npm_flags + ["a-package-that-does-not-exist-xyz"],
            cwd=npmproj,
            tty=False,
            tool="npm",
            version=npm_v,
            must_keep=[
                "npm error code E404",
                "npm error 404 Not Found - GET https://npm-registry.invalid/a-package-that-does-not-exist-xyz",
                "npm error 404  The requested resource 'a-package-that-does-not-exist-xyz@*' could not be found",
            ],
        ),
        "pip_install_progress": dict(
            description="pip install --no-cache-dir numpy pandas into a fresh venv, in a terminal: "
            "one rich progress bar per download (\\r redraws, ANSI colour).",
            setup=setup_pipvenv,
            argv=[pip, "install", "--no-cache-dir", "numpy", "pandas"],
            cwd=tmp,
            tty=True,
            tool="pip",
            version=v([pip, "--version"]),
            must_keep=["Collecting numpy", "Collecting pandas", "Successfully installed "],
        ),
        "pip_install_not_found": dict(
            description="pip install of a package name that does not exist, in a terminal: ERROR: lines.",
            setup=setup_pipvenv_once,
            argv=[pip, "install", "--no-cache-dir", "a-package-that-does-not-exist-xyz"],
            cwd=tmp,
            tty=True,
            tool="pip",
            version=v([pip, "--version"]),
            must_keep=[
                "ERROR: Could not find a version that satisfies the requirement a-package-that-does-not-exist-xyz",
                "ERROR: No matching distribution found for a-package-that-does-not-exist-xyz",
            ],
        ),
        "tsc_build_pretty": dict(
            description="tsc -b --verbose --listEmittedFiles on 5 generated packages of 10 "
            "modules, in a terminal (so --pretty: colour and code frames): 3 type "
            "errors spread among the per-project progress and emitted-file lines, "
            "then the per-file summary.",
            setup=setup_ts,
            argv=[tsc, "-b", "--verbose", "--listEmittedFiles"],
            cwd=tsproj,
            tty=True,
            tool="typescript (tsc)",
            version=tsc_v,
            must_keep=[
                "pkg_b/src/mod_03.ts",
                "TS2322: ",
                "Type 'string' is not assignable to type 'number'.",
                "pkg_c/src/mod_06.ts",
                "TS2345: ",
                "Argument of type 'string' is not assignable to parameter of type 'number'.",
                "pkg_d/src/mod_02.ts",
                "TS2339: ",
                "Property 'size' does not exist on type 'string[]'.",
                "Found 3 errors in 3 files.",
            ],
        ),
        "tsc_build_plain": dict(
            description="The same build with --pretty false, on a pipe: 3 one-line errors "
            "among ~130 lines of build progress and emitted files.",
            setup=setup_ts,
            argv=[tsc, "-b", "--verbose", "--listEmittedFiles", "--pretty", "false"],
            cwd=tsproj,
            tty=False,
            tool="typescript (tsc)",
            version=tsc_v,
            must_keep=[
                "pkg_b/src/mod_03.ts(16,14): error TS2322: Type 'string' is not assignable to type 'number'.",
                "pkg_c/src/mod_06.ts(16,29): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
                "pkg_d/src/mod_02.ts(17,17): error TS2339: Property 'size' does not exist on type 'string[]'.",
            ],
        ),
        "bash_set_x_fail": dict(
            description="A bash build script under set -x (~500 traced lines, stdout and the "
            "stderr trace on one pipe) that fails in the middle with `command not "
            "found` and `No such file or directory`, carries on, and exits 1.",
            setup=setup_sh,
            argv=["bash", "build.sh"],
            cwd=shproj,
            tty=False,
            tool="bash",
            version=v(["bash", "--version"]),
            must_keep=[
                "build.sh: line 16: frobnicate: command not found",
                "cat: build/missing-manifest.txt: No such file or directory",
                "done with status 1",
                "+ exit 1",
            ],
        ),
        "python_traceback": dict(
            description="A Python program that prints ~1000 lines (one of them not UTF-8) "
            "then dies with a ValueError raised three calls deep (python3 -u so "
            "that stdout is not held back behind the traceback on the pipe).",
            setup=setup_pyapp,
            argv=[sys.executable, "-u", "app.py"],
            cwd=pyapp,
            tty=False,
            tool="python3",
            version=v([sys.executable, "--version"]),
            must_keep=[
                "Traceback (most recent call last):",
                "line 7, in parse_amount",
                "ValueError: invalid amount '12x' in record 1001: expected an integer",
            ],
        ),
    }


def shown(argv, scrub):
    out = []
    for a in argv:
        a = scrub(a.encode()).decode()
        out.append(a if re.match(r"^[A-Za-z0-9_@%+=:,./-]+$", a) else "'" + a.replace("'", "'\\''") + "'")
    return " ".join(out)


def stats(data):
    """The progress claims check_corpus.py verifies (same definitions there)."""
    return {
        # every CR that is not the CR of a CR LF line end
        "cr_not_before_lf": len(re.findall(rb"\r(?!\n)", data)),
        # CRs that move back over a line to redraw it: a run of CRs followed by
        # something other than LF (so the pty's CR CR LF is not one)
        "cr_redraws": len(re.findall(rb"\r+(?=[^\r\n])", data)),
        "esc_bytes": data.count(b"\x1b"),
        # ANSI sequences that redraw in place: cursor to column / up, erase line
        "ansi_redraws": len(re.findall(rb"\x1b\[[0-9;]*[GKA]", data)),
    }


def line_endings(data):
    lf, crlf = data.count(b"\n"), data.count(b"\r\n")
    return "CRLF" if crlf == lf else "LF" if crlf == 0 else "mixed (%d of %d LF after CR)" % (crlf, lf)


def is_utf8(data):
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def main(names):
    os.makedirs(LOGS, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="dory-corpus-")
    env = dict(os.environ)
    env.update(
        TERM="xterm-256color",
        COLUMNS=str(COLS),
        LINES=str(ROWS),
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
        PYTHONDONTWRITEBYTECODE="1",
    )
    for k in (
        "NO_COLOR",
        "FORCE_COLOR",
        "CI",
        "PIP_NO_COLOR",
        "PIP_PROGRESS_BAR",
        "CARGO_TERM_COLOR",
        "RUST_BACKTRACE",
        "CARGO_TERM_PROGRESS_WHEN",
        "npm_config_progress",
        "PIP_FIND_LINKS",
        "PIP_DISABLE_PIP_VERSION_CHECK",
        "PIP_CONFIG_FILE",
    ):
        env.pop(k, None)
    scrub = Scrubber(tmp, env)
    manifest = {"logs": {}}
    if os.path.exists(MANIFEST):
        with open(MANIFEST) as f:
            manifest = json.load(f)
    try:
        table = recipes(tmp, env)
        for name in names or list(table):
            r = table[name]
            sys.stderr.write("== %s\n" % name)
            r["setup"]()
            runner = run_tty if r["tty"] else run_pipe
            rc, data = runner(r["argv"], r["cwd"], env)
            data = scrub(data)
            path = os.path.join(LOGS, name + ".log")
            with open(path, "wb") as f:
                f.write(data)
            st = stats(data)
            missing = [s for s in r["must_keep"] if s.encode() not in data]
            if missing:
                sys.stderr.write("  WARNING: must_keep not found in %s: %r\n" % (name, missing))
            manifest["logs"][name] = {
                "file": "logs/%s.log" % name,
                "description": r["description"],
                "command": shown(r["argv"], scrub),
                "cwd": scrub(r["cwd"].encode()).decode(),
                "tty": r["tty"],
                "tool": r["tool"],
                "version": scrub(r["version"]().encode()).decode(),
                "ecosystem": PLACES[name][0],
                "exit_status": rc,
                "bytes": len(data),
                "lines": data.count(b"\n"),
                "line_endings": line_endings(data),
                "invalid_utf8": not is_utf8(data),
                "failure_position": PLACES[name][1],
                "must_keep": r["must_keep"],
                "progress": dict(st, has_cr_redraws=st["cr_redraws"] > 0, has_ansi=st["esc_bytes"] > 0),
            }
            sys.stderr.write("  exit %s, %d bytes, %r\n" % (rc, len(data), st))
        manifest["recorded_on"] = {
            "os": scrub(sh(["uname", "-sm"], None, env).encode()).decode(),
            "terminal": "%dx%d, TERM=xterm-256color, LANG=C.UTF-8" % (COLS, ROWS),
            "scrubbed": [
                "temporary project directory -> " + NEUTRAL_ROOT,
                "$HOME -> " + NEUTRAL_HOME,
                "hostname -> host",
                "npm registry host -> npm-registry.invalid",
                "PyPI hosts -> pypi.invalid, pypi-files.invalid",
            ],
        }
        manifest["logs"] = dict(sorted(manifest["logs"].items()))
        with open(MANIFEST, "w") as f:
            json.dump(manifest, f, indent=2, ensure_ascii=False)
            f.write("\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
