#!/usr/bin/env python3
"""Record the failure logs of many real tools into tests/corpus/logs/ and manifest.json.

Companion of record.py (whose capture and scrubbing functions it imports): every
case below builds a small throwaway project in a temporary directory, installs
what it needs (apt packages must already be there, see README.md), runs one
real command (often a CI-like `bash ci.sh` that does set-up steps around the
tool, as a CI job's log has them) and writes the raw bytes it printed, scrubbed.

    nice -n 19 python3 tests/corpus/record_tools.py --list
    nice -n 19 python3 tests/corpus/record_tools.py go_test_v_fail jest_npm_test
    nice -n 19 python3 tests/corpus/record_tools.py --all
    python3 tests/corpus/record_tools.py --relabel          # no recording: rewrite the
        # manifest entries of the existing logs from the labels written here
    python3 tests/corpus/record_tools.py --workdir DIR --versions NAME...   # re-ask the
        # tool versions of recorded cases (in the work directory they were recorded in)

`must_keep` of each case was taken from the recorded log (the lines that say
why the command failed); a new recording with other tool versions can differ,
and then the script warns which substrings are missing.

Options: --workdir DIR keeps the projects and installed tools in DIR (and
reuses them) instead of a fresh temporary directory that is removed.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import record as R  # noqa: E402  (run_pipe, run_tty, Scrubber, stats, ...)

LOGS = R.LOGS
MANIFEST = R.MANIFEST
POSITIONS = ("end", "near-end", "middle", "start")


# ---------------------------------------------------------------- environment


def base_env(work):
    """A whitelisted environment (so that an `env` dump in a log shows nothing private)."""
    env = {}
    for k in (
        "PATH",
        "HOME",
        "SHELL",
        "PYENV_ROOT",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS",
        "GIT_SSL_CAINFO",
        "PIP_CERT",
        "PIP_DEFAULT_TIMEOUT",
    ):
        if k in os.environ:
            env[k] = os.environ[k]
    tmpdir = os.path.join(work, ".tmp")
    os.makedirs(tmpdir, exist_ok=True)
    env.update(
        USER="root",
        LOGNAME="root",
        TERM="xterm-256color",
        COLUMNS=str(R.COLS),
        LINES=str(R.ROWS),
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
        TMPDIR=tmpdir,
        PYTHONDONTWRITEBYTECODE="1",
        # no network but the registries: Go must not try its module proxy
        GOPROXY="off",
        GOFLAGS="-mod=mod",
        GOCACHE=os.path.join(work, "go-cache"),
        GOPATH=os.path.join(work, "gopath"),
        GOTOOLCHAIN="local",
        CARGO_BUILD_JOBS="1",
        GIT_AUTHOR_NAME="CI Bot",
        GIT_AUTHOR_EMAIL="ci-bot@example.invalid",
        GIT_COMMITTER_NAME="CI Bot",
        GIT_COMMITTER_EMAIL="ci-bot@example.invalid",
        GIT_AUTHOR_DATE="2025-05-20T09:14:00Z",
        GIT_COMMITTER_DATE="2025-05-20T09:14:00Z",
        GIT_CONFIG_GLOBAL=os.path.join(work, "gitconfig"),
        NPM_CONFIG_CACHE=os.path.join(work, "npm-cache"),
        NPM_CONFIG_UPDATE_NOTIFIER="false",
        NPM_CONFIG_FUND="false",
        NPM_CONFIG_AUDIT="false",
    )
    with open(os.path.join(work, "gitconfig"), "w") as f:
        f.write("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")
    return env


class ToolScrubber(R.Scrubber):
    """record.py's scrubbing, plus: the Debian mirror's hosts (read from apt's
    sources) -> debian-mirror.invalid, and any other host in a URL -> the same
    host with `.invalid` appended (check_corpus.py wants only .invalid hosts)."""

    def __init__(self, work, env):
        R.Scrubber.__init__(self, work, env)
        for host in apt_hosts():
            self.pairs.append((host.encode(), b"debian-mirror.invalid"))
        # tools that name a test run after the directory (Common Test: "dory-tools-x.case")
        base = os.path.basename(os.path.realpath(work))
        if len(base) >= 8:
            self.pairs.append((base.encode(), b"project"))
        # the directory that holds the work directory (/tmp) is /project's parent: "/"
        # (yarn looks for .npmrc in every parent directory and prints each path)
        self.parents = sorted({os.path.dirname(work), os.path.dirname(os.path.realpath(work))} - {"/"},
                              key=len, reverse=True)

    def __call__(self, data):
        data = R.Scrubber.__call__(self, data)
        for parent in self.parents:
            data = re.sub(rb"(?<![\w./-])" + re.escape(parent.encode()) + rb"/", b"/", data)

        def fix(m):
            host = m.group(2)
            if host.endswith(b".invalid") or b"." not in host:
                return m.group(0)
            if b"crates" in host:
                return m.group(1) + b"crates-registry.invalid"
            return m.group(1) + host + b".invalid"

        return re.sub(rb"([a-z][a-z0-9+.-]*://)([A-Za-z0-9.-]+)", fix, data)


def apt_hosts():
    hosts = set()
    for d in ("/etc/apt/sources.list.d", "/etc/apt"):
        if not os.path.isdir(d):
            continue
        for fn in os.listdir(d):
            if not (fn.endswith(".sources") or fn.endswith(".list")):
                continue
            try:
                with open(os.path.join(d, fn)) as f:
                    text = f.read()
            except OSError:
                continue
            for line in text.splitlines():
                if line.lstrip().startswith("#"):
                    continue
                for m in re.finditer(r"https?://([^/\s:]+)", line):
                    hosts.add(m.group(1))
    return sorted(hosts, key=len, reverse=True)


# ---------------------------------------------------------------- helpers


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode:
        os.chmod(path, mode)


def write_tree(root, files):
    for rel, text in files.items():
        write(os.path.join(root, rel), text, 0o755 if rel.endswith(".sh") else None)


def run_setup(cmd, cwd, env, timeout=1800):
    """A set-up step (not recorded)."""
    p = subprocess.run(
        ["bash", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
    )
    if p.returncode != 0:
        sys.stderr.write(p.stdout.decode("utf-8", "replace")[-4000:])
        raise RuntimeError("set-up step failed: %s" % cmd)
    return p.stdout.decode("utf-8", "replace")


def dedent(s):
    return textwrap.dedent(s).lstrip("\n")


# A CI-like preamble (bash): runner banner, a filtered environment dump, the
# OS, a real `git clone --progress` of the project's own repository (made by
# the set-up from the generated files) and a checkout. `$ORIGIN` is the bare
# repository. Everything it prints is real output of real commands.
PREAMBLE = r"""
echo "##[group]Runner Image"
echo "Image: debian-12-ci"
echo "Job: ${CI_JOB_NAME}  (id ${CI_JOB_ID}, attempt 1)"
echo "##[endgroup]"
echo "##[group]Environment"
env | sort
echo "##[endgroup]"
echo "##[group]Operating system"
cat /etc/os-release
uname -srm
echo "##[endgroup]"
echo "##[group]Checkout"
git version
rm -rf src
git clone --progress "file://$ORIGIN" src
cd src
git checkout -B "ci/${CI_JOB_ID}"
git log --oneline --decorate -n 8
git ls-files | head -n 60
echo "##[endgroup]"
"""


def ci_env(job):
    return "export CI=true CI_JOB_NAME=%s CI_JOB_ID=%d CI_PIPELINE_SOURCE=push\n" % (job, 4000 + sum(map(ord, job)))


def make_origin(root, files, env, commits=6):
    """A bare repository holding `files`, with a few commits of history."""
    src = os.path.join(root, "origin-work")
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(os.path.join(root, "origin.git"), ignore_errors=True)
    os.makedirs(src)
    run_setup("git init -q .", src, env)
    names = sorted(files)
    chunk = max(1, len(names) // commits)
    for i in range(0, len(names), chunk):
        write_tree(src, {n: files[n] for n in names[i : i + chunk]})
        run_setup("git add -A && git commit -q -m 'Add %s and %d more'" % (names[i], len(names[i : i + chunk]) - 1), src, env)
    run_setup("git clone -q --bare origin-work origin.git", root, env)
    shutil.rmtree(src)
    return os.path.join(root, "origin.git")


# ---------------------------------------------------------------- cases

CASES = {}


def case(name, **kw):
    kw["name"] = name
    CASES[name] = kw
    return kw


def py_tools(work, env):
    """A venv with the python tools (set-up, not recorded)."""
    venv = os.path.join(work, "pyvenv")
    if not os.path.exists(os.path.join(venv, "bin", "flake8")):
        run_setup("%s -m venv %s" % (sys.executable, venv), work, env)
        run_setup(
            "%s/bin/pip install -q pytest pytest-xdist pytest-cov flake8 mypy" % venv,
            work, env,
        )
    return venv


# ================================================================ python

SHOP_PRICING = '''\
import logging
from decimal import Decimal, ROUND_DOWN

log = logging.getLogger(__name__)


def apply_discount(price, percent):
    """Price after a percentage discount, to the cent."""
    price = Decimal(price)
    cut = (price * Decimal(percent) / 100).quantize(Decimal("0.01"), rounding=ROUND_DOWN)
    log.debug("discount %s%% on %s -> %s", percent, price, price - cut)
    return price - cut


def with_tax(price, rate):
    price = Decimal(price)
    return (price * (1 + Decimal(rate))).quantize(Decimal("0.01"))
'''

SHOP_INVENTORY = '''\
import logging

log = logging.getLogger(__name__)

STOCK = {"SKU-%04d" % i: (i * 7) % 50 for i in range(1, 200) if i != 42}


def level(sku):
    return STOCK[sku]


def reserve(sku, qty):
    if sku.endswith("2"):
        log.error("stock service timeout for %s, using cached levels", sku)
    have = level(sku)
    log.info("reserve %s x%d (have %d)", sku, qty, have)
    return have >= qty
'''

SHOP_ORDERS = '''\
import logging
from decimal import Decimal

from . import pricing

log = logging.getLogger(__name__)


def total(lines):
    t = sum((Decimal(p) * q for p, q in lines), Decimal("0"))
    log.info("order total %s over %d lines", t, len(lines))
    return t


def summary(lines, discount=0):
    t = total(lines)
    return {"lines": len(lines), "total": str(pricing.apply_discount(t, discount)), "currency": "EUR"}
'''


def shop_tests(n_modules=8, per=60, fail_discount=True, fail_reserve=True, fail_summary=False):
    """Parametrized pytest modules for the `shop` package."""
    from decimal import Decimal, ROUND_DOWN

    files = {}
    topics = ["pricing", "inventory", "orders", "tax", "catalog", "shipping", "returns", "reports"][:n_modules]
    for m, topic in enumerate(topics):
        out = ["import logging", "from decimal import Decimal", "", "import pytest", "",
               "from shop import pricing, inventory, orders", "", "log = logging.getLogger('tests.%s')" % topic, "", ""]
        if topic == "pricing":
            cases = []
            for i in range(per):
                price = Decimal(10 + i * 3) + Decimal("0.99")
                pct = 5 + (i % 4) * 5
                cut = (price * pct / 100).quantize(Decimal("0.01"), rounding=ROUND_DOWN)
                cases.append((str(price), pct, str(price - cut)))
            if fail_discount:
                cases[37] = ("19.99", 15, "16.99")  # what rounding half-up would give
            out.append("@pytest.mark.parametrize('price,pct,expected', [")
            out += ["    (%r, %d, %r)," % c for c in cases]
            out += ["])", "def test_discount(price, pct, expected):",
                    "    assert pricing.apply_discount(price, pct) == Decimal(expected)", "", ""]
        elif topic == "inventory":
            skus = ["SKU-%04d" % (i + 1) for i in range(per) if fail_reserve or i != 41]
            out.append("@pytest.mark.parametrize('sku', %r)" % skus)
            out += ["def test_reserve(sku):",
                    "    log.info('checking %s', sku)",
                    "    assert inventory.reserve(sku, 0) is True", "", ""]
        elif topic == "orders":
            for i in range(per):
                lines = [("%d.50" % (j + 1), j + 1) for j in range(i % 6 + 1)]
                tot = sum(Decimal(p) * q for p, q in lines)
                exp = {"lines": len(lines), "total": str(tot), "currency": "EUR"}
                if fail_summary and i == 23:
                    exp["currency"] = "USD"
                out += ["def test_summary_%03d():" % i,
                        "    got = orders.summary(%r)" % lines,
                        "    assert got == %r" % exp, "", ""]
        else:
            for i in range(per):
                out += ["def test_%s_%03d():" % (topic, i),
                        "    assert pricing.with_tax('%d.00', '0.%02d') == Decimal('%s')" % (
                            i + 1, (m * 3 + i) % 25, (Decimal(i + 1) * (1 + Decimal("0.%02d" % ((m * 3 + i) % 25)))).quantize(Decimal("0.01"))),
                        "", ""]
        files["tests/test_%s.py" % topic] = "\n".join(out).rstrip() + "\n"
    files["tests/__init__.py"] = ""
    files["tests/conftest.py"] = "import logging\n\nlogging.getLogger('shop').setLevel(logging.DEBUG)\n"
    return files


def shop_files(**kw):
    files = {
        "shop/__init__.py": "",
        "shop/pricing.py": SHOP_PRICING,
        "shop/inventory.py": SHOP_INVENTORY,
        "shop/orders.py": SHOP_ORDERS,
        "pyproject.toml": dedent('''
            [project]
            name = "shop"
            version = "0.3.1"
            requires-python = ">=3.9"

            [build-system]
            requires = ["setuptools>=61"]
            build-backend = "setuptools.build_meta"

            [tool.setuptools]
            packages = ["shop"]

            [tool.pytest.ini_options]
            testpaths = ["tests"]
            log_level = "DEBUG"
        '''),
    }
    files.update(shop_tests(**kw))
    return files


def build_pytest_xdist(c, root, env, work):
    venv = py_tools(work, env)
    write_tree(root, shop_files())
    c["argv"] = [venv + "/bin/python", "-m", "pytest", "-n", "2", "-v", "-p", "no:cacheprovider",
                 "--cov=shop", "--cov-report=term-missing"]


case(
    "pytest_xdist_cov",
    tool="pytest (pytest-xdist, pytest-cov)",
    ecosystem="python",
    tty=False,
    position="near-end",
    description="pytest -n 2 -v with coverage on a generated package: 480 parametrized tests on two "
    "xdist workers ([gw0]/[gw1] lines), test_discount[19.99-15-16.99] (Decimal rounding) and "
    "test_reserve[SKU-0042] (KeyError, with captured DEBUG/INFO/ERROR log lines of the library) fail "
    "among them; the FAILURES section with `____ test_x ____` headers, then the coverage table and the "
    "short summary.",
    build=build_pytest_xdist,
    version="{py} -m pytest --version",
    must_keep=[
        "E       KeyError: 'SKU-0042'",
        "E       AssertionError: assert Decimal('17.00') == Decimal('16.99')",
        "FAILED tests/test_inventory.py::test_reserve[SKU-0042] - KeyError: 'SKU-0042'",
        "FAILED tests/test_pricing.py::test_discount[19.99-15-16.99] - AssertionError",
        "2 failed, 478 passed",
    ],
)


LEDGER_FILES_EXTRA = {
    "requirements-dev.txt": "pytest==8.3.3\npytest-timeout==2.3.1\niniconfig\npluggy\npackaging\n",
}


def build_pytest_x_ci(c, root, env, work):
    files = shop_files(fail_discount=False, fail_reserve=False, fail_summary=True)
    files.update(LEDGER_FILES_EXTRA)
    origin = make_origin(root, files, env)
    write(os.path.join(root, "ci.sh"), ci_env("test-py311") + "ORIGIN=%s\n" % origin + "set -e\n" + PREAMBLE + dedent('''
        echo "##[group]Install"
        %s -m venv .venv
        .venv/bin/python -m pip install --no-cache-dir -r requirements-dev.txt
        .venv/bin/python -m pip install --no-cache-dir --no-build-isolation -e . || .venv/bin/python -m pip install --no-cache-dir -e .
        .venv/bin/python -m pip list
        echo "##[endgroup]"
        echo "##[group]Test"
        .venv/bin/python -m pytest -x -p no:cacheprovider --timeout=60
    ''' % sys.executable))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = "src/.venv/bin/python -m pytest --version"


case(
    "pytest_x_ci_tty",
    tool="pytest",
    ecosystem="python",
    tty=True,
    position="near-end",
    description="A CI job in a terminal: runner banner, an environment dump, git clone --progress "
    "and checkout, a real pip install of the test requirements (pip's progress bars) and of the "
    "project (the first editable install, without build isolation, fails with a coloured pip "
    "`error: metadata-generation-failed` and is retried: a harmless error), then pytest -x (plain dots, colour): tests/test_orders.py::test_summary_023 fails on a "
    "dict comparison, pytest stops at that first failure and prints the `____ test_summary_023 ____` "
    "section and the short summary.",
    build=build_pytest_x_ci,
    must_keep=[
        "E         {'currency': 'EUR'} != {'currency': 'USD'}",
        ":128: AssertionError",
        "tests/test_orders.py::",
        "test_summary_023",
        " - AssertionError: assert {'currency': ...al': '101.50'} == {'currency': ...al': '101.50'}",
        "1 failed",
    ],
)


def build_pytest_q_middle(c, root, env, work):
    venv = py_tools(work, env)
    files = shop_files(n_modules=6, fail_discount=False, fail_reserve=False, fail_summary=False)
    files["tests/test_exports.py"] = dedent('''
        import json
        import os

        import pytest

        from shop import orders


        @pytest.fixture
        def report_dir():
            path = os.environ.get("SHOP_REPORT_DIR", "/var/lib/shop/reports")
            with open(os.path.join(path, "template.json")) as f:
                return json.load(f)


        def test_export_report(report_dir):
            assert report_dir["columns"]


        def test_export_totals():
            assert orders.summary([("2.50", 4)], discount=15)["total"] == "9.00"


        @pytest.mark.parametrize("n", range(40))
        def test_export_rows(n):
            assert orders.total([("1.00", n)]) == n
    ''')
    for i in range(150):
        files["shop/generated/m_%03d.py" % i] = "VALUE = %d\n\n\ndef get():\n    return VALUE * 2\n" % i
    files["shop/generated/__init__.py"] = ""
    write_tree(root, files)
    write(os.path.join(root, "ci.sh"), dedent('''
        py=%s
        status=0
        echo "--- vendor"
        $py -m pip download --no-cache-dir --no-deps -d vendor requests==2.32.3 idna==3.7 certifi==2024.8.30 urllib3==2.2.3 charset-normalizer==3.3.2 six==1.16.0 attrs==24.2.0
        echo "--- compile"
        $py -m compileall -f shop/generated/m_0[0-6]*.py
        echo "--- test"
        $py -m pytest -q -p no:cacheprovider || status=$?
        echo "--- build"
        $py -m pip wheel --no-cache-dir --no-deps -w dist .
        $py -m compileall -f shop tests
        ls -l dist vendor | sed 's/  */ /g'
        echo "--- done (tests exit $status)"
        exit $status
    ''' % (venv + "/bin/python")))
    c["argv"] = ["bash", "ci.sh"]


case(
    "pytest_q_middle",
    tool="pytest",
    ecosystem="python",
    tty=False,
    position="middle",
    description="A CI script on a pipe: a real pip download of 7 packages, compileall of 70 modules, "
    "then pytest -q (dots; one setup ERROR: a fixture whose file is missing; one FAILED: a string "
    "comparison), then it keeps going with a real pip wheel build, compileall of 150 modules and a listing, and exits with "
    "pytest's status: the failure sits in the middle of the log.",
    build=build_pytest_q_middle,
    version="{py} -m pytest --version",
    must_keep=[
        "E       FileNotFoundError: [Errno 2] No such file or directory: '/var/lib/shop/reports/template.json'",
        "E       AssertionError: assert '8.50' == '9.00'",
        "FAILED tests/test_exports.py::test_export_totals - AssertionError: assert '8.50' == '9.00'",
        "ERROR tests/test_exports.py::test_export_report - FileNotFoundError",
        "1 failed, 399 passed, 1 error",
    ],
)


UNITTEST_CODE = '''\
import logging

log = logging.getLogger("inventory.sync")


def merge_levels(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    if len(out) > 3:
        log.warning("merging %d SKUs: large merge, consider batching", len(out))
    return out


def sorted_skus(levels):
    return sorted(levels, key=lambda k: (-levels[k], k))


def restock_plan(levels, minimum):
    return [k for k in sorted(levels) if levels[k] < minimum]
'''


def build_unittest(c, root, env, work):
    files = {"inventory/__init__.py": "", "inventory/levels.py": UNITTEST_CODE, "tests/__init__.py": ""}
    for m, topic in enumerate(["merge", "sorting", "restock", "audit", "sync", "report", "alerts", "warehouse"]):
        out = ["import logging", "import unittest", "", "from inventory.levels import merge_levels, sorted_skus, restock_plan", "",
               "logging.basicConfig(level=logging.INFO, format='%(levelname)s:%(name)s:%(message)s')", "", "",
               "class Test%s(unittest.TestCase):" % topic.capitalize()]
        for i in range(50):
            n = i % 7 + 1
            levels = {"SKU-%d" % k: (k * 13 + i) % 20 for k in range(n)}
            if topic == "sorting" and i == 31:
                out += ["    def test_order_%03d(self):" % i,
                        "        levels = %r" % levels,
                        "        self.assertEqual(sorted_skus(levels), %r)" % sorted(levels), ""]
            elif topic == "restock" and i == 12:
                out += ["    def test_plan_%03d(self):" % i,
                        "        levels = %r" % levels,
                        "        levels['SKU-0'] = None",
                        "        self.assertEqual(restock_plan(levels, 5), [])", ""]
            elif topic == "sorting":
                exp = sorted(levels, key=lambda k: (-levels[k], k))
                out += ["    def test_order_%03d(self):" % i, "        levels = %r" % levels,
                        "        self.assertEqual(sorted_skus(levels), %r)" % exp, ""]
            elif topic == "restock":
                out += ["    def test_plan_%03d(self):" % i, "        levels = %r" % levels,
                        "        self.assertEqual(restock_plan(levels, 5), %r)" % [k for k in sorted(levels) if levels[k] < 5], ""]
            else:
                exp = dict(levels)
                for k, v in levels.items():
                    exp[k] = exp.get(k, 0) + v
                out += ["    def test_%s_%03d(self):" % (topic, i), "        levels = %r" % levels,
                        "        self.assertEqual(merge_levels(levels, levels), %r)" % exp, ""]
        out += ["", "if __name__ == '__main__':", "    unittest.main()"]
        files["tests/test_%s.py" % topic] = "\n".join(out) + "\n"
    write_tree(root, files)
    c["argv"] = [sys.executable, "-m", "unittest", "discover", "-v", "-s", "tests", "-t", "."]


case(
    "unittest_verbose",
    tool="python -m unittest",
    ecosystem="python",
    tty=False,
    position="near-end",
    description="python -m unittest discover -v: 400 tests (`test_x (tests.test_y.TestY.test_x) ... ok`), "
    "with the library's WARNING log lines on stderr among them; one FAIL (assertEqual on two "
    "lists) and one ERROR (TypeError comparing None with int), their tracebacks after the ===== "
    "separator lines, then `FAILED (failures=1, errors=1)`.",
    build=build_unittest,
    version="%s --version" % sys.executable,
    must_keep=[
        "ERROR: test_plan_012 (tests.test_restock.TestRestock.test_plan_012)",
        "TypeError: '<' not supported between instances of 'NoneType' and 'int'",
        "FAIL: test_order_031 (tests.test_sorting.TestSorting.test_order_031)",
        "AssertionError: Lists differ: ['SKU-2', 'SKU-0', 'SKU-3', 'SKU-1'] != ['SKU-0', 'SKU-1', 'SKU-2', 'SKU-3']",
        "FAILED (failures=1, errors=1)",
    ],
)


def lint_project_files():
    files = {"src/billing/__init__.py": ""}
    for i in range(40):
        files["src/billing/mod_%02d.py" % i] = dedent('''
            """Billing helpers, part %d."""
            from dataclasses import dataclass


            @dataclass
            class Line%02d:
                sku: str
                qty: int
                price: float

                def total(self) -> float:
                    return self.qty * self.price


            def sum_lines(lines: list[Line%02d]) -> float:
                return sum(line.total() for line in lines)
        ''' % (i, i, i))
    files["src/billing/mod_07.py"] = files["src/billing/mod_07.py"].replace(
        "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    files["src/billing/mod_19.py"] += dedent('''


        def invoice_number(year: int, seq: int) -> str:
            return "INV-%d-%06d" % (year, seq) + suffix
    ''')
    files["src/billing/mod_23.py"] += dedent('''

        def describe(line: Line23) -> str:
            return f"{line.sku}: {line.qty} x {line.price:.2f} = {line.total():.2f} (including all applicable taxes and fees)"
    ''')
    files["src/billing/mod_31.py"] += "\n\ndef currency(code: str) -> int:  \n    return {'EUR': 978, 'USD': 840}[code]\n"
    return files


def build_flake8_ci(c, root, env, work):
    files = lint_project_files()
    files["setup.cfg"] = "[flake8]\nmax-line-length = 100\nexclude = .venv\n"
    files["requirements-lint.txt"] = "flake8==7.1.1\n"
    origin = make_origin(root, files, env)
    write(os.path.join(root, "ci.sh"), ci_env("lint") + "ORIGIN=%s\n" % origin + "set -e\n" + PREAMBLE + dedent('''
        echo "##[group]Install"
        %s -m venv .venv
        .venv/bin/python -m pip install --no-cache-dir -r requirements-lint.txt
        echo "##[endgroup]"
        .venv/bin/flake8 --version
        .venv/bin/flake8 --count --statistics --show-source src/
    ''' % sys.executable))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = "src/.venv/bin/flake8 --version"


case(
    "flake8_ci",
    tool="flake8",
    ecosystem="python",
    tty=False,
    position="end",
    description="A CI lint job on a pipe: runner banner, environment dump, git clone and checkout, a "
    "real pip install of flake8, then flake8 --count --statistics --show-source on 41 modules: an "
    "undefined name (F821), an unused import (F401), a long line (E501), trailing whitespace "
    "(W291) and a missing blank line (E302), with their source lines, then the statistics and count.",
    build=build_flake8_ci,
    version_lines=1,
    must_keep=[
        "src/billing/mod_19.py:18:42: F821 undefined name 'suffix'",
        "src/billing/mod_07.py:2:1: F401 'os' imported but unused",
        "src/billing/mod_19.py:17:1: E302 expected 2 blank lines, found 0",
        "src/billing/mod_23.py:18:101: E501 line too long (118 > 100 characters)",
        "src/billing/mod_31.py:19:32: W291 trailing whitespace",
    ],
)


def build_mypy(c, root, env, work):
    files = lint_project_files()
    files["src/billing/mod_07.py"] = files["src/billing/mod_07.py"].replace("import os\n", "")
    files["src/billing/mod_19.py"] = files["src/billing/mod_19.py"].replace(" + suffix", "")
    files["src/billing/mod_12.py"] += dedent('''


        def parse_qty(text: str) -> int:
            return text.strip()
    ''')
    files["src/billing/mod_28.py"] += dedent('''


        def first_sku(lines: list[Line28]) -> str:
            found = next((l for l in lines if l.qty > 0), None)
            return found.sku
    ''')
    files["src/billing/mod_33.py"] += dedent('''


        def apply(line: Line33, factor: float) -> Line33:
            return Line33(line.sku, line.qty * factor, line.price)
    ''')
    write_tree(root, files)
    write(os.path.join(root, "ci.sh"), dedent('''
        set -e
        %s -m venv .venv
        .venv/bin/python -m pip install --no-cache-dir mypy==1.11.2
        .venv/bin/mypy --version
        .venv/bin/mypy --strict --pretty src/billing
    ''' % sys.executable))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = ".venv/bin/mypy --version"


case(
    "mypy_strict",
    tool="mypy",
    ecosystem="python",
    tty=False,
    position="end",
    description="A script on a pipe: a real pip install of mypy into a fresh venv, then mypy --strict "
    "--pretty on 41 modules with 3 type errors (return type, Optional attribute access, float "
    "argument for an int field), each with its code frame, and the `Found 3 errors` line.",
    build=build_mypy,
    must_keep=[
        "src/billing/mod_33.py:18: error: Argument 2 to \"Line33\" has incompatible type \"float\"; expected",
        "src/billing/mod_28.py:19: error: Item \"None\" of \"Line28 | None\" has no attribute \"sku\"",
        "src/billing/mod_12.py:18: error: Incompatible return value type (got \"str\", expected \"int\")",
        "Found 3 errors in 3 files (checked 41 source files)",
    ],
)


def build_pip_resolution(c, root, env, work):
    write(os.path.join(root, "requirements.txt"), dedent('''
        # service requirements (pinned by hand)
        requests==2.31.0
        idna==3.7
        certifi==2024.8.30
        charset-normalizer==3.3.2
        attrs==24.2.0
        six==1.16.0
        python-dateutil==2.9.0.post0
        urllib3==1.20
        botocore==1.35.0
    '''))
    run_setup("%s -m venv venv" % sys.executable, root, env)
    c["argv"] = [os.path.join(root, "venv", "bin", "pip"), "install", "--no-cache-dir", "-r", "requirements.txt"]
    c["version_cmd"] = "venv/bin/pip --version"


case(
    "pip_resolution_impossible",
    tool="pip",
    ecosystem="python",
    tty=False,
    position="near-end",
    description="pip install -r requirements.txt into a fresh venv, on a pipe: pip collects and "
    "downloads 9 pinned requirements and their dependencies, then gives up: requests 2.31.0 "
    "needs urllib3>=1.21.1 but urllib3==1.20 is pinned -> `The conflict is caused by:`, "
    "ResolutionImpossible, then pip's upgrade notice.",
    build=build_pip_resolution,
    must_keep=[
        "ERROR: Cannot install -r requirements.txt (line 2) and urllib3==1.20 because these package versions have conflicting dependencies.",
        "    requests 2.31.0 depends on urllib3<3 and >=1.21.1",
        "ERROR: ResolutionImpossible",
    ],
)


def build_uv(c, root, env, work):
    venv = os.path.join(work, "uvtool")
    if not os.path.exists(os.path.join(venv, "bin", "uv")):
        run_setup("%s -m venv %s && %s/bin/pip install -q uv" % (sys.executable, venv, venv), work, env)
    write(os.path.join(root, "requirements.in"), "flask==3.0.0\nwerkzeug<3.0\ngunicorn\nrequests\n")
    write(os.path.join(root, "ci.sh"), dedent('''
        set -e
        export UV_CACHE_DIR="$PWD/uv-cache"
        uv=%s/bin/uv
        $uv --version
        $uv venv .venv
        $uv pip install --python .venv/bin/python rich pytest httpx numpy
        $uv pip compile requirements.in -o requirements.txt
    ''' % venv))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = venv + "/bin/uv --version"


case(
    "uv_pip_compile_conflict",
    tool="uv",
    ecosystem="python",
    tty=True,
    position="end",
    description="In a terminal: uv venv, a real uv pip install of 4 packages (uv's progress bars "
    "redrawn in place with cursor-up ESC[nA and ESC[2K) and then uv pip compile of requirements that cannot "
    "be satisfied (flask==3.0.0 with werkzeug<3.0): uv's `No solution found when resolving "
    "dependencies` explanation.",
    build=build_uv,
    must_keep=[
        "No solution found when resolving dependencies",
        "Because flask==3.0.0 depends on werkzeug>=3.0.0 and you require flask==3.0.0, we can",
        "And because you require werkzeug<3.0, we can conclude that your requirements are",
    ],
)


LOGGING_APP = r'''
"""A batch job: 300 batches of customer records, logged as a service logs."""
import logging
import random
import sys
import threading
import time

logging.basicConfig(
    level=logging.DEBUG,
    format="%(asctime)s %(levelname)-8s [%(threadName)s] %(name)s: %(message)s",
    stream=sys.stdout,
)
log = logging.getLogger("billing.job")
pool = logging.getLogger("sqlalchemy.pool.impl.QueuePool")
http = logging.getLogger("urllib3.connectionpool")
creds = logging.getLogger("botocore.credentials")
cache = logging.getLogger("billing.cache")

rng = random.Random(7)
BATCHES = 300


def transform(rec):
    return {"id": rec["customer_id"], "cents": int(round(rec["amount"] * 100)), "region": rec.get("region", "eu")}


def records(batch):
    for i in range(25):
        rec = {"customer_id": "C%05d" % (batch * 100 + i), "amount": rng.uniform(1, 500)}
        if batch == 143 and i == 13:
            rec = {"customer": "C%05d" % (batch * 100 + i), "amount": 12.5}
        yield rec


def run_batch(batch):
    log.info("batch %04d: start (%d records)", batch, 25)
    creds.debug("Looking for credentials via: env, shared-credentials-file, instance-metadata")
    if batch % 6 == 3:
        http.warning("Retrying (Retry(total=2, connect=None, read=None, redirect=None, status=None)) "
                     "after connection broken by 'ReadTimeoutError(\"HTTPSConnectionPool(host='metrics.internal', port=443): Read timed out. (read timeout=2)\")': /v1/push")
    if batch % 9 == 4:
        pool.error("Exception during reset or similar")
        pool.debug("Connection <connection object at 0x7f3a2c%04x; closed: 0> checked in", batch)
    out = []
    for n, rec in enumerate(records(batch)):
        row = transform(rec)
        out.append(row)
        log.debug("batch %04d: row %02d -> %s", batch, n, row)
    cache.info("batch %04d: cache hit ratio %.2f", batch, rng.uniform(0.6, 0.99))
    if batch % 11 == 5:
        cache.warning("batch %04d: cache eviction storm (1024 keys evicted in 0.2s)", batch)
    log.info("batch %04d: wrote %d rows", batch, len(out))
    return len(out)


def main():
    log.info("job billing-nightly starting: %d batches, worker threads 1", BATCHES)
    failed = []
    rows = 0
    for batch in range(1, BATCHES + 1):
        try:
            rows += run_batch(batch)
        except Exception:
            log.exception("batch %04d failed", batch)
            failed.append(batch)
        time.sleep(0.01)
    for i in range(60):
        logging.getLogger("billing.shutdown").debug("flushing writer %02d: 0 pending", i)
    log.info("job finished: %d rows, %d of %d batches ok, %d failed (%s)", rows, BATCHES - len(failed), BATCHES, len(failed), failed)
    return 1 if failed else 0


if __name__ == "__main__":
    threading.current_thread().name = "job-main"
    sys.exit(main())
'''


def build_logging_app(c, root, env, work):
    write(os.path.join(root, "job.py"), LOGGING_APP)
    c["argv"] = [sys.executable, "-u", "job.py"]


case(
    "python_logging_batch",
    tool="python3 (logging)",
    ecosystem="python",
    tty=False,
    position="middle",
    description="A Python batch job that logs as services do (timestamp, level, thread, logger) at "
    "DEBUG (about 1 MB): 300 batches with harmless WARNING and ERROR lines from library loggers "
    "(urllib3 retries, a SQLAlchemy pool `ERROR ... Exception during reset or similar`); batch 143 "
    "fails with a "
    "KeyError logged by log.exception (traceback) in the middle, the job carries on and exits 1 "
    "after its summary.",
    build=build_logging_app,
    version="%s --version" % sys.executable,
    must_keep=[
        "billing.job: batch 0143 failed",
        "KeyError: 'customer_id'",
        "1 failed ([143])",
    ],
)


def build_linkchecker(c, root, env, work):
    site = os.path.join(root, "site")
    sections = ["guide", "api", "tutorial", "ops"]
    pages = []
    for s in sections:
        for i in range(20):
            pages.append("%s/page_%02d.html" % (s, i))
    for p in pages:
        s, fn = p.split("/")
        i = int(fn[5:7])
        links = ['<a href="../index.html">home</a>', '<a href="../css/site.css">css</a>']
        links += ['<a href="page_%02d.html">next %d</a>' % ((i + k) % 20, k) for k in range(1, 8)]
        links += ['<a href="../%s/page_%02d.html">%s</a>' % (o, i, o) for o in sections if o != s]
        if p == "guide/page_07.html":
            links.append('<a href="instal.html">installation</a>')
        if p == "api/page_13.html":
            links.append('<img src="../img/diagram-v2.png" alt="diagram">')
        if p == "ops/page_04.html":
            links.append('<a href="../tutorial/page_21.html">part 21</a>')
        write(os.path.join(site, p), "<!DOCTYPE html>\n<html><head><title>%s</title>"
              '<link rel="stylesheet" href="../css/site.css"></head>\n<body>\n<h1>%s</h1>\n%s\n</body></html>\n'
              % (p, p, "\n".join("<p>%s</p>" % link for link in links)))
    write(os.path.join(site, "css/site.css"), "body { font-family: sans-serif; }\n")
    write(os.path.join(site, "index.html"), "<!DOCTYPE html>\n<html><head><title>Docs</title></head><body>\n%s\n</body></html>\n"
          % "\n".join('<p><a href="%s">%s</a></p>' % (p, p) for p in pages))
    c["argv"] = ["linkchecker", "--verbose", "--no-status", "--threads", "1", "site/index.html"]


case(
    "linkchecker_site",
    tool="linkchecker",
    ecosystem="html",
    tty=False,
    position="near-end",
    description="linkchecker --verbose over a generated static site of 81 pages, on a pipe (a "
    "harmless `WARNING … Running as root user` logger line first; every URL checked once, "
    "printed as a block of `URL`/`Name`/`Parent URL`/`Real URL`/`Result` lines): 85 URLs, the 3 "
    "broken ones (a missing page, a missing image, a page number past the end) checked last, "
    "then the statistics and `3 errors found.`",
    build=build_linkchecker,
    version="linkchecker --version 2>/dev/null | head -n 1",
    must_keep=[
        "Result     Error: URLError: <urlopen error [Errno 2] No such file or directory: '/project/linkchecker_site/site/guide/instal.html'>",
        "Result     Error: URLError: <urlopen error [Errno 2] No such file or directory: '/project/linkchecker_site/site/img/diagram-v2.png'>",
        "Result     Error: URLError: <urlopen error [Errno 2] No such file or directory: '/project/linkchecker_site/site/tutorial/page_21.html'>",
        "0 warnings found. 3 errors found.",
    ],
)

# ================================================================ c


def c_module(name, i, extra=""):
    return dedent('''
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include "netutil.h"

        /* %(name)s: part %(i)d of the generated library */
        int %(name)s_checksum(const unsigned char *buf, size_t len)
        {
            unsigned int acc = %(i)du;
            for (size_t k = 0; k < len; k++)
                acc = acc * 31u + buf[k];
            return (int)(acc & 0x7fffffff);
        }

        size_t %(name)s_count(const char *s, char c)
        {
            size_t n = 0;
            for (; *s; s++)
                n += (*s == c);
            return n;
        }
    ''' % {"name": name, "i": i}) + extra


NET_NAMES = ["addr", "buf", "cidr", "conn", "dns", "frame", "hdr", "host", "http", "ipv4", "ipv6", "json",
             "kv", "list", "log", "mac", "mime", "opt", "path", "pool", "port", "proto", "query", "queue",
             "route", "sock", "str", "tcp", "time", "tls", "token", "udp", "uri", "url", "utf8", "vec"]


def build_make_gcc(c, root, env, work):
    files = {"include/netutil.h": "#ifndef NETUTIL_H\n#define NETUTIL_H\n#include <stddef.h>\n"
             "struct url { const char *scheme; const char *host; int port; const char *path; };\n"
             "int parse_url(const char *text, struct url *out);\n#endif\n"}
    srcs = []
    for i, n in enumerate(NET_NAMES):
        for part in ("a", "b", "c"):
            name = "%s_%s" % (n, part)
            extra = ""
            if name == "log_a":
                extra = "\nint log_level(void)\n{\n    int unused_flags = 3;\n    return 2;\n}\n"
            if name == "time_b":
                extra = "\nlong time_diff(long a, long b)\n{\n    if (a > b)\n        return a - b;\n}\n"
            if name == "proto_a":
                extra = dedent('''

                    int parse_url(const char *text, struct url *out)
                    {
                        const char *sep = strstr(text, "://");
                        if (!sep)
                            return -1;
                        out->scheme = strndup(text, sep - text);
                        out->host = sep + 3;
                        out->port = default_port(out->scheme);
                        char *colon = strchr(out->host, ':');
                        if (colon)
                            out->port = atoi(colon + 1);
                        out->path = strchr(out->host, '/');
                        out->query = strchr(out->host, '?');
                        return out->port;
                    }

                    int url_is_secure(const struct url *u)
                    {
                        return strcmp(u->scheme, "https") == 0 || u->port == "443";
                    }
                ''')
            files["src/%s.c" % name] = c_module(name, i, extra)
            srcs.append(name)
    files["src/Makefile"] = dedent('''
        CC ?= gcc
        CFLAGS ?= -O2 -g -Wall -Wextra -std=c11 -D_GNU_SOURCE -I../include
        SRCS := $(wildcard *.c)
        OBJS := $(patsubst %.c,../build/obj/%.o,$(SRCS))

        all: ../build/libnetutil.a

        ../build/libnetutil.a: $(OBJS)
        \tar rcs $@ $^

        ../build/obj/%.o: %.c ../include/netutil.h
        \t@mkdir -p ../build/obj
        \t$(CC) $(CFLAGS) -c $< -o $@
    ''').replace("\\t", "\t")
    files["Makefile"] = "all:\n\t$(MAKE) -C src all\n\nclean:\n\trm -rf build\n"
    write_tree(root, files)
    c["argv"] = ["make", "-k", "-j1"]


case(
    "make_gcc_keep_going",
    tool="make + gcc",
    ecosystem="c",
    tty=False,
    position="middle",
    description="make -k -j1 on a generated C library of 108 files (recursive make, one full gcc "
    "command line per file, a few harmless -Wall warnings); src/proto_a.c has an implicit "
    "declaration and pointer/integer comparison warnings and a `no member named` error; make carries on with the remaining files "
    "and ends with `Target 'all' not remade because of errors` and make's Error lines.",
    build=build_make_gcc,
    version="gcc --version",
    must_keep=[
        "proto_a.c:34:8: error: ‘struct url’ has no member named ‘query’",
        "make[1]: *** [Makefile:13: ../build/obj/proto_a.o] Error 1",
        "make[1]: Target 'all' not remade because of errors.",
    ],
)


def build_clang_tty(c, root, env, work):
    files = {"include/netutil.h": "#ifndef NETUTIL_H\n#define NETUTIL_H\n#include <stddef.h>\n"
             "struct frame { unsigned char *data; size_t len; int kind; };\n#endif\n"}
    for i, n in enumerate(NET_NAMES[:28]):
        extra = ""
        if n == "mime":
            extra = "\nstatic const char *unused_table[] = {\"text/plain\", \"text/html\"};\n"
        if n == "opt":
            extra = dedent('''

                int opt_decode(struct frame *f, const char *text)
                {
                    f->len = strlen(text);
                    f->data = text;
                    f->kind = frame_kind(text);
                    return f->len > 0 ? 0 : -1;
                }

                int opt_first(const struct frame *f)
                {
                    return f->data[0] + f->checksum;
                }
            ''')
        files["src/%s.c" % n] = c_module(n, i, extra)
    files["Makefile"] = dedent('''
        CC = clang
        CFLAGS = -O2 -g -Wall -Wextra -std=c11 -Iinclude
        SRCS := $(sort $(wildcard src/*.c))
        OBJS := $(patsubst src/%.c,obj/%.o,$(SRCS))

        libframe.a: $(OBJS)
        \tar rcs $@ $^

        obj/%.o: src/%.c include/netutil.h
        \t@mkdir -p obj
        \t$(CC) $(CFLAGS) -c $< -o $@
    ''').replace("\\t", "\t")
    write_tree(root, files)
    c["argv"] = ["make", "-j1"]


case(
    "make_clang_tty",
    tool="make + clang",
    ecosystem="c",
    tty=True,
    position="end",
    description="make -j1 in a terminal with CC=clang on 28 generated files: clang's coloured "
    "diagnostics (bold file:line:col, green carets) for a harmless unused-variable warning, then "
    "in src/opt.c an implicit function declaration, a const-discarding assignment warning and an "
    "invalid pointer/integer operand error; make stops there with its Error 1 line.",
    build=build_clang_tty,
    version="clang --version",
    must_keep=[
        "src/opt.c:32:28: ",
        "error: ",
        "no member named 'checksum' in 'struct frame'",
        "2 warnings and 1 error generated.",
        "make: *** [Makefile:11: obj/opt.o] Error 1",
    ],
)


def build_cmake_ctest(c, root, env, work):
    files = {}
    lib = []
    for i, n in enumerate(NET_NAMES[:24]):
        files["lib/%s.c" % n] = c_module(n, i).replace('#include "netutil.h"', '#include "dates.h"')
        lib.append("lib/%s.c" % n)
    files["lib/dates.c"] = dedent('''
        #include "dates.h"

        static int is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

        int days_in_month(int y, int m)
        {
            static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
            return m == 2 && is_leap(y) ? 29 : d[m - 1];
        }

        /* ISO week 1 starts on the Monday of the week that holds January 4th. */
        struct date iso_week_start(int year, int week)
        {
            int jan4_dow = day_of_week(year, 1, 4); /* 0 = Monday */
            struct date d = {year, 1, 4 - jan4_dow + (week - 1) * 7};
            while (d.day > days_in_month(d.year, d.month)) {
                d.day -= days_in_month(d.year, d.month);
                if (++d.month > 12) { d.month = 1; d.year++; }
            }
            return d;
        }

        int day_of_week(int y, int m, int d)
        {
            static const int t[] = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4};
            if (m < 3) y -= 1;
            return (y + y / 4 - y / 100 + y / 400 + t[m - 1] + d + 6) % 7;
        }
    ''')
    files["lib/dates.h"] = dedent('''
        #ifndef DATES_H
        #define DATES_H
        #include <stddef.h>
        struct date { int year, month, day; };
        int days_in_month(int y, int m);
        int day_of_week(int y, int m, int d);
        struct date iso_week_start(int year, int week);
        #endif
    ''')
    lib.append("lib/dates.c")
    files["tests/unit.c"] = dedent('''
        #include <assert.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include "dates.h"

        static void check_month(int n)
        {
            int y = 2000 + n, m = n % 12 + 1;
            int d = days_in_month(y, m);
            printf("days_in_month(%d, %d) = %d\\n", y, m, d);
            assert(d >= 28 && d <= 31);
        }

        static void check_week(int year)
        {
            struct date d = iso_week_start(year, 1);
            printf("iso_week_start(%d, 1) = %04d-%02d-%02d\\n", year, d.year, d.month, d.day);
            assert(day_of_week(d.year, d.month, d.day) == 0);
            assert(d.day >= 1);
        }

        int main(int argc, char **argv)
        {
            int n = argc > 1 ? atoi(argv[1]) : 0;
            if (n < 30)
                check_month(n);
            else
                check_week(1990 + n);
            puts("ok");
            return 0;
        }
    ''')
    files["CMakeLists.txt"] = dedent('''
        cmake_minimum_required(VERSION 3.16)
        project(dates C)
        set(CMAKE_C_STANDARD 11)
        add_library(dates %s)
        target_include_directories(dates PUBLIC lib)
        add_executable(unit tests/unit.c)
        target_link_libraries(unit dates)
        enable_testing()
        foreach(n RANGE 0 47)
          if(n LESS 30)
            add_test(NAME month_${n} COMMAND unit ${n})
          else()
            math(EXPR y "1990 + ${n}")
            add_test(NAME iso_week_${y} COMMAND unit ${n})
          endif()
        endforeach()
    ''' % " ".join(lib))
    write_tree(root, files)
    write(os.path.join(root, "ci.sh"), dedent('''
        set -e
        cmake --version
        cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug
        cmake --build build -j1
        cd build
        ctest --output-on-failure
    '''))
    c["argv"] = ["bash", "ci.sh"]


case(
    "cmake_ctest_fail",
    tool="cmake + ctest",
    ecosystem="c",
    tty=False,
    position="near-end",
    description="cmake configure, cmake --build (make's `[ 40%] Building C object` lines for 26 "
    "files) and ctest --output-on-failure with 48 tests on a pipe: the ISO-week tests whose "
    "week starts in the previous year hit an assert() (`Assertion ... failed`, Subprocess "
    "aborted) and their output is shown; then `The following tests FAILED:` and `Errors while "
    "running CTest`.",
    build=build_cmake_ctest,
    version="cmake --version",
    must_keep=[
        "check_week: Assertion `d.day >= 1' failed.",
        "83% tests passed, 8 tests failed out of 48",
        "31 - iso_week_2020 (Subprocess aborted)",
        "Errors while running CTest",
    ],
)


ASAN_PROG = r'''
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A ring buffer of lines; push() copies a line into a slot of `width` bytes. */
struct ring { char *slots; size_t width, count, head; };

static struct ring *ring_new(size_t count, size_t width)
{
    struct ring *r = calloc(1, sizeof *r);
    r->slots = malloc(count * width);
    r->width = width;
    r->count = count;
    return r;
}

static void ring_push(struct ring *r, const char *line)
{
    char *slot = r->slots + (r->head % r->count) * r->width;
    size_t n = strlen(line);
    memcpy(slot, line, n);
    slot[n] = '\0';   /* off by one when n == width */
    r->head++;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct ring *r = ring_new(64, 32);
    char line[64];
    for (int i = 0; i < 600; i++) {
        int width = i == 511 ? 32 : 24;
        snprintf(line, sizeof line, "%-*.*s", width, width, "record");
        memcpy(line, "rec", 3);
        snprintf(line + 3, 8, "%05d", i);
        line[8] = ' ';
        ring_push(r, line);
        printf("pushed %03d: slot %02zu len %zu\n", i, (r->head - 1) % r->count, strlen(line));
    }
    printf("done: %zu lines\n", r->head);
    return 0;
}
'''


def build_asan(c, root, env, work):
    write(os.path.join(root, "ring.c"), ASAN_PROG)
    write(os.path.join(root, "run.sh"), "set -e\ngcc -g -O0 -fsanitize=address -fno-omit-frame-pointer -o ring ring.c\n./ring\n")
    c["argv"] = ["bash", "run.sh"]


case(
    "asan_heap_overflow",
    tool="gcc AddressSanitizer",
    ecosystem="c",
    tty=False,
    position="near-end",
    description="A C ring buffer built with gcc -fsanitize=address: 511 `pushed NNN` lines, then "
    "a line exactly as long as a slot makes ring_push write its terminating NUL one byte past "
    "the heap block: the AddressSanitizer report (heap-buffer-overflow, WRITE of size 1, stack "
    "of the write and of the allocation, shadow bytes legend, SUMMARY) and exit 1.",
    build=build_asan,
    version="gcc --version",
    must_keep=[
        "ERROR: AddressSanitizer: heap-buffer-overflow on address",
        "WRITE of size 1 at",
        "in ring_push /project/asan_heap_overflow/ring.c:23",
        "SUMMARY: AddressSanitizer: heap-buffer-overflow /project/asan_heap_overflow/ring.c:23 in ring_push",
    ],
)


SEGV_PROG = r'''
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node { const char *key; struct node *next; };

static const char *lookup(struct node *head, const char *key)
{
    for (struct node *n = head; ; n = n->next)   /* no end-of-list check */
        if (strcmp(n->key, key) == 0)
            return n->key;
}

int main(int argc, char **argv)
{
    static struct node nodes[200];
    char *keys[200];
    for (int i = 0; i < 200; i++) {
        keys[i] = malloc(16);
        snprintf(keys[i], 16, "key-%03d", i);
        nodes[i].key = keys[i];
        nodes[i].next = i + 1 < 200 ? &nodes[i + 1] : NULL;
    }
    for (int i = 0; i < 260; i++) {
        char k[16];
        snprintf(k, sizeof k, "key-%03d", i < 180 ? i * 7 % 200 : 200 + i);
        printf("[test_lookup %03d] %s -> %s\n", i, k, lookup(nodes, k));
        fflush(stdout);
    }
    return 0;
}
'''


def build_segfault(c, root, env, work):
    write(os.path.join(root, "src/list_test.c"), SEGV_PROG)
    write(os.path.join(root, "ci/run-tests.sh"), dedent('''
        #!/bin/bash
        set -euo pipefail
        trap 'rc=$?; echo "::group::cleanup"; ls -la build | sed "s/  */ /g"; echo "exit code $rc"; echo "::endgroup::"' EXIT
        mkdir -p build
        gcc -O0 -g -Wall -o build/list_test src/list_test.c
        echo "running build/list_test"
        ./build/list_test
        echo "all tests passed"
    '''))
    c["argv"] = ["bash", "ci/run-tests.sh"]


case(
    "segfault_test_binary",
    tool="bash + gcc (SIGSEGV)",
    ecosystem="c",
    tty=False,
    position="near-end",
    description="A CI test script (bash, set -euo pipefail) that builds and runs a C test binary: "
    "180 `[test_lookup NNN]` lines, then a lookup of a key that is not in the list walks off its "
    "end and the binary dies of SIGSEGV; bash reports `Segmentation fault` with the command line, "
    "and the EXIT trap prints a cleanup listing after it.",
    build=build_segfault,
    version="bash --version",
    must_keep=[
        "Segmentation fault      ./build/list_test",
    ],
)


# ================================================================ go


def build_go_test(c, root, env, work):
    pkgs = ["auth", "billing", "catalog", "config", "events", "geo", "ledger", "mailer", "qty", "render", "search", "stock"]
    files = {"go.mod": "module example.com/warehouse\n\ngo 1.19\n"}
    for p in pkgs:
        files["%s/%s.go" % (p, p)] = dedent('''
            package %(p)s

            import (
            \t"errors"
            \t"strconv"
            \t"strings"
            )

            // ParseQuantity parses a quantity such as "12" or " 7 ".
            func ParseQuantity(s string) (int, error) {
            \tn, err := strconv.Atoi(strings.TrimSpace(s))
            \tif err != nil {
            \t\treturn 0, err
            \t}
            \tif n < 0 {
            \t\treturn -n, nil
            \t}
            \treturn n, nil
            }

            // Label joins parts with a dash.
            func Label(parts ...string) string { return strings.Join(parts, "-") }

            var ErrEmpty = errors.New("empty")
        ''' % {"p": p}).replace("\\t", "\t")
        if p != "qty":
            files["%s/%s.go" % (p, p)] = files["%s/%s.go" % (p, p)].replace("\tif n < 0 {\n\t\treturn -n, nil\n\t}\n", "")
        tests = ["package %s" % p, "", "import (", "\t\"fmt\"", "\t\"testing\"", ")", ""]
        for i in range(30):
            tests += [
                "func TestLabel%02d(t *testing.T) {" % i,
                "\tgot := Label(\"%s\", fmt.Sprint(%d))" % (p, i),
                "\tt.Logf(\"label %q\", got)",
                "\tif got != \"%s-%d\" {" % (p, i),
                "\t\tt.Fatalf(\"Label = %q\", got)",
                "\t}",
                "}",
                "",
            ]
        tests += [
            "func TestParseQuantity(t *testing.T) {",
            "\tcases := []struct {",
            "\t\tname, in string",
            "\t\twant     int",
            "\t\twantErr  bool",
            "\t}{",
            "\t\t{\"plain\", \"12\", 12, false},",
            "\t\t{\"spaces\", \" 7 \", 7, false},",
            "\t\t{\"zero\", \"0\", 0, false},",
            "\t\t{\"negative\", \"-3\", 0, true},",
            "\t\t{\"word\", \"many\", 0, true},",
            "\t}",
            "\tfor _, tc := range cases {",
            "\t\tt.Run(tc.name, func(t *testing.T) {",
            "\t\t\tgot, err := ParseQuantity(tc.in)",
            "\t\t\tif (err != nil) != tc.wantErr {",
            "\t\t\t\tt.Fatalf(\"ParseQuantity(%q) = %d, %v; want error: %v\", tc.in, got, err, tc.wantErr)",
            "\t\t\t}",
            "\t\t\tif got != tc.want {",
            "\t\t\t\tt.Errorf(\"ParseQuantity(%q) = %d, want %d\", tc.in, got, tc.want)",
            "\t\t\t}",
            "\t\t})",
            "\t}",
            "}",
            "",
        ]
        if p != "qty":
            tests = [t.replace('{"negative", "-3", 0, true},', '{"negative", "-3", -3, false},') for t in tests]
        files["%s/%s_test.go" % (p, p)] = "\n".join(tests)
    write_tree(root, files)
    c["argv"] = ["go", "test", "-p", "1", "-v", "./..."]


case(
    "go_test_v_fail",
    tool="go test",
    ecosystem="go",
    tty=False,
    position="middle",
    description="go test -p 1 -v ./... on a generated module of 12 packages (31 tests each, "
    "`=== RUN`/`--- PASS`/t.Logf lines): in package qty, TestParseQuantity/negative fails "
    "(`--- FAIL`, the t.Fatalf message with file:line); `FAIL example.com/warehouse/qty` sits "
    "in the middle and the packages after it pass; the last line is FAIL.",
    build=build_go_test,
    version="go version",
    must_keep=[
        "qty_test.go:264: ParseQuantity(\"-3\") = 3, <nil>; want error: true",
        "--- FAIL: TestParseQuantity/negative (0.00s)",
        "FAIL\texample.com/warehouse/qty\t",
    ],
)


def build_go_build(c, root, env, work):
    files = {"go.mod": "module example.com/billing\n\ngo 1.19\n",
             "cmd/billing/main.go": dedent('''
                 package main

                 import (
                 \t"fmt"
                 \t"os"

                 \t"example.com/billing/ledger"
                 )

                 func main() {
                 \tl := ledger.New()
                 \tl.Add("rent", 120000)
                 \tfmt.Fprintln(os.Stdout, l.Total())
                 }
             ''').replace("\\t", "\t"),
             "ledger/ledger.go": dedent('''
                 package ledger

                 import (
                 \t"encoding/json"
                 \t"sort"
                 )

                 type Entry struct {
                 \tName  string `json:"name"`
                 \tCents int64  `json:"cents"`
                 }

                 type Ledger struct{ entries []Entry }

                 func New() *Ledger { return &Ledger{} }

                 func (l *Ledger) Add(name string, cents int64) { l.entries = append(l.entries, Entry{name, cents}) }

                 // Total in whole currency units.
                 func (l *Ledger) Total() int {
                 \tvar total float64
                 \tfor _, e := range l.entries {
                 \t\ttotal += float64(e.Cents) / 100
                 \t}
                 \treturn total
                 }

                 func (l *Ledger) Sorted() []Entry {
                 \tout := append([]Entry(nil), l.entries...)
                 \tsort.Slice(out, func(i, j int) bool { return out[i].Cents < out[j].Cents })
                 \treturn roundCents(out)
                 }
             ''').replace("\\t", "\t")}
    for i, n in enumerate(["audit", "export", "fx", "invoice", "report", "tax"]):
        files["%s/%s.go" % (n, n)] = dedent('''
            package %s

            import (
            \t"encoding/json"
            \t"fmt"
            \t"net/http"
            \t"strings"
            \t"time"
            )

            func Handler(w http.ResponseWriter, r *http.Request) {
            \tenc := json.NewEncoder(w)
            \t_ = enc.Encode(map[string]string{"at": time.Now().UTC().Format(time.RFC3339), "path": strings.TrimPrefix(r.URL.Path, "/")})
            }

            func Name() string { return fmt.Sprintf("%s-%%d", %d) }
        ''' % (n, n, i)).replace("\\t", "\t")
    origin = make_origin(root, files, env)
    write(os.path.join(root, "ci.sh"), ci_env("build-go") + "ORIGIN=%s\n" % origin + "set -e\n" + PREAMBLE + dedent('''
        echo "##[group]Go"
        go version
        go env | grep -v '^GOGCCFLAGS='
        echo "##[endgroup]"
        go build -p 1 -v ./...
    '''))
    c["argv"] = ["bash", "ci.sh"]


case(
    "go_build_ci",
    tool="go build",
    ecosystem="go",
    tty=False,
    position="end",
    description="A CI build job on a pipe: banner, environment dump, git clone and checkout, go "
    "version and go env, then go build -p 1 -v ./... (which lists each package it builds): "
    "package ledger fails to compile with an unused "
    "import, a float64 returned as int and an undefined function, under `# example.com/billing/ledger`.",
    build=build_go_build,
    version="go version",
    must_keep=[
        "# example.com/billing/ledger",
        "ledger/ledger.go:4:2: imported and not used: \"encoding/json\"",
        "ledger/ledger.go:25:9: cannot use total (variable of type float64) as type int in return statement",
        "ledger/ledger.go:31:9: undefined: roundCents",
    ],
)

# ================================================================ node

JS_MODULES = ["cart", "checkout", "coupon", "currency", "customer", "delivery", "discount", "inventory",
              "invoice", "ledger", "loyalty", "order", "payment", "pricing", "product", "refund",
              "report", "review", "search", "session", "shipping", "stock", "tax", "user", "wishlist"]


def js_module(name, i, esm=False):
    body = dedent('''
        /* %(name)s: generated module %(i)d */
        function label(id) {
          return '%(name)s-' + String(id).padStart(4, '0');
        }

        function total(items) {
          return items.reduce((sum, it) => sum + it.price * it.qty, 0);
        }

        function summarize(items, currency = 'EUR') {
          const t = total(items);
          if (t > 1000) {
            console.warn('%(name)s: large order total %%d, flagging for review', t);
          }
          return { count: items.length, total: Math.round(t * 100) / 100, currency };
        }
    ''' % {"name": name, "i": i})
    if esm:
        return body + "\nexport { label, total, summarize };\n"
    return body + "\nmodule.exports = { label, total, summarize };\n"


def js_cases(name, n, bad=None):
    """(title, code) pairs of simple assertions; `bad` = (index, code) replaces one."""
    out = []
    for k in range(n):
        items = [{"price": (k + j) % 17 + 0.5, "qty": j + 1} for j in range(k % 4 + 1)]
        t = sum(it["price"] * it["qty"] for it in items)
        if k % 3 == 0:
            out.append(("label %d" % k, "label(%d)" % k, repr("%s-%04d" % (name, k))))
        elif k % 3 == 1:
            out.append(("total of %d items" % len(items), "total(%s)" % json.dumps(items), repr(t)))
        else:
            out.append(("summary %d" % k, "summarize(%s)" % json.dumps(items),
                        json.dumps({"count": len(items), "total": round(t * 100) / 100, "currency": "EUR"})))
    if bad:
        out[bad[0]] = bad[1]
    return out


def build_jest(c, root, env, work):
    files = {"package.json": json.dumps({
        "name": "storefront", "version": "2.4.0", "private": True,
        "scripts": {"test": "jest --ci --verbose --coverage --maxWorkers=2"},
        "jest": {"testEnvironment": "node", "coverageReporters": ["text", "text-summary"]},
    }, indent=2) + "\n"}
    for i, n in enumerate(JS_MODULES):
        files["src/%s.js" % n] = js_module(n, i)
        bad = None
        if n == "discount":
            bad = (14, ("summary normalizes the currency code",
                        'summarize([{"price": 19.99, "qty": 3}, {"price": 5.25, "qty": 2}], "eur")',
                        '{"count": 2, "total": 70.47, "currency": "EUR"}'))
        if n == "ledger":
            bad = (7, ("total of 3 items", 'total([{"price": 0.1, "qty": 1}, {"price": 0.2, "qty": 1}])', "0.3"))
        lines = ["const { label, total, summarize } = require('../src/%s');" % n, "",
                 "describe('%s', () => {" % n]
        for title, expr, exp in js_cases(n, 18, bad):
            matcher = "toEqual" if exp.startswith("{") else "toBe"
            lines += ["  test('%s', () => {" % title, "    expect(%s).%s(%s);" % (expr, matcher, exp), "  });", ""]
        lines += ["  test('big order warns', () => {",
                  "    expect(summarize([{ price: 600, qty: 2 }]).total).toBe(1200);", "  });", "});", ""]
        files["__tests__/%s.test.js" % n] = "\n".join(lines)
    write_tree(root, files)
    run_setup("npm install --silent --save-dev jest@30", root, env)
    c["argv"] = ["npm", "test"]
    c["version_cmd"] = "echo jest $(npx jest --version) / npm $(npm --version) / node $(node --version)"


case(
    "jest_npm_test",
    tool="jest (via npm test)",
    ecosystem="node",
    tty=False,
    position="near-end",
    description="npm test running jest --ci --verbose --coverage on 25 suites of 19 tests, on a pipe: "
    "a PASS/FAIL header and a ✓ line per test, console.warn blocks from the code under test "
    "(harmless), two failing tests (a toEqual object diff in discount, a float toBe in ledger) "
    "with their code frames, then the coverage table and `Summary of all failing tests` with "
    "the same failures again and the totals (npm 11 adds no epilogue of its own here).",
    build=build_jest,
    must_keep=[
        "● ledger › total of 3 items",
        "Received: 0.30000000000000004",
        "● discount › summary normalizes the currency code",
        "+   \"currency\": \"eur\",",
        "Tests:       2 failed, 473 passed, 475 total",
    ],
)


def build_vitest(c, root, env, work):
    files = {"package.json": json.dumps({"name": "storefront-esm", "version": "1.0.0", "private": True,
                                         "type": "module"}, indent=2) + "\n"}
    for i, n in enumerate(JS_MODULES[:20]):
        files["src/%s.js" % n] = js_module(n, i, esm=True)
        bad = None
        if n == "invoice":
            bad = (9, ("label pads to four digits", "label(12345)", "'invoice-1234'"))
        lines = ["import { describe, it, expect } from 'vitest';",
                 "import { label, total, summarize } from '../src/%s.js';" % n, "",
                 "describe('%s', () => {" % n]
        for title, expr, exp in js_cases(n, 20, bad):
            matcher = "toEqual" if exp.startswith("{") else "toBe"
            lines += ["  it('%s', async () => {" % title, "    await new Promise((r) => setTimeout(r, 15));",
                      "    expect(%s).%s(%s);" % (expr, matcher, exp), "  });", ""]
        lines += ["});", ""]
        files["test/%s.test.js" % n] = "\n".join(lines)
    write_tree(root, files)
    run_setup("npm install --silent --save-dev vitest@4", root, env)
    c["argv"] = ["npx", "vitest", "run", "--no-file-parallelism"]
    c["version_cmd"] = "npx vitest --version"


case(
    "vitest_tty",
    tool="vitest",
    ecosystem="node",
    tty=True,
    position="near-end",
    description="vitest run in a terminal on 20 test files × 20 tests (each test waits 15 ms so that "
    "the live reporter redraws its progress block with cursor-up/erase-line sequences); "
    "invoice > `label pads to four digits` fails (expected 'invoice-12345' to be 'invoice-1234') "
    "with vitest's coloured diff and code frame, then the Test Files/Tests summary.",
    build=build_vitest,
    must_keep=[
        " FAIL ",
        "label pads to four digits",
        ": expected 'invoice-12345' to be 'invoice-1234' // Object.is equality",
        "test/invoice.test.js:",
        "52:26",
    ],
)


def build_mocha(c, root, env, work):
    files = {"package.json": json.dumps({"name": "orders-api", "version": "0.9.0", "private": True}, indent=2) + "\n"}
    for i, n in enumerate(JS_MODULES):
        files["lib/%s.js" % n] = js_module(n, i)
        lines = ["const assert = require('node:assert');", "const { label, total, summarize } = require('../lib/%s');" % n, "",
                 "describe('%s', function () {" % n]
        groups = [("label()", 0), ("total()", 1), ("summarize()", 2)]
        cases = js_cases(n, 15)
        for gname, mod in groups:
            lines.append("  describe('%s', function () {" % gname)
            for k, (title, expr, exp) in enumerate(cases):
                if k % 3 != mod:
                    continue
                fn = "deepStrictEqual" if exp.startswith("{") else "strictEqual"
                if n == "refund" and gname == "summarize()" and k == 8:
                    expr, exp = 'summarize([{"price": 10, "qty": 2}], "USD")', '{"count": 1, "total": 20, "currency": "EUR"}'
                    title = "keeps the currency of the refund"
                if n == "coupon" and gname == "label()" and k == 6:
                    expr, exp, title = "label('SPRING')", "'coupon-spring'", "lower-cases coupon codes"
                lines += ["    it('%s', function () {" % title, "      assert.%s(%s, %s);" % (fn, expr, exp), "    });"]
            lines.append("  });")
        lines += ["});", ""]
        files["test/%s.spec.js" % n] = "\n".join(lines)
    write_tree(root, files)
    run_setup("npm install --silent --save-dev mocha@11", root, env)
    c["argv"] = ["npx", "mocha", "--reporter", "spec", "test/*.spec.js"]
    c["version_cmd"] = "echo mocha $(npx mocha --version)"


case(
    "mocha_spec",
    tool="mocha",
    ecosystem="node",
    tty=False,
    position="end",
    description="mocha --reporter spec on 25 spec files (375 tests, nested describe blocks, a ✔ "
    "line per test) on a pipe: 2 failing, "
    "marked `1)` and `2)` in the list; at the end `373 passing`, `2 failing` and each failure "
    "(`1) coupon`, `label()`, `lower-cases coupon codes:`) with its AssertionError and diff.",
    build=build_mocha,
    must_keep=[
        "1) coupon",
        "lower-cases coupon codes:",
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
        "2) refund",
        "keeps the currency of the refund:",
        "2 failing",
    ],
)


def build_tape(c, root, env, work):
    files = {"package.json": json.dumps({"name": "geo-utils", "version": "3.1.0", "private": True}, indent=2) + "\n"}
    lines = ["const test = require('tape');", ""]
    for i, n in enumerate(JS_MODULES[:16]):
        files["lib/%s.js" % n] = js_module(n, i)
        lines.append("const m%d = require('./lib/%s');" % (i, n))
    lines.append("")
    for i, n in enumerate(JS_MODULES[:16]):
        lines.append("test('%s', (t) => {" % n)
        for title, expr, exp in js_cases(n, 14):
            fn = "deepEqual" if exp.startswith("{") else "equal"
            if n == "inventory" and title == "label 9":
                exp = "'inventory-09'"
                title = "label keeps two digits"
            lines.append("  t.%s(m%d.%s, %s, '%s');" % (fn, i, expr, exp, title))
        lines += ["  t.end();", "});", ""]
    files["test.js"] = "\n".join(lines)
    write_tree(root, files)
    run_setup("npm install --silent --save-dev tape@5", root, env)
    c["argv"] = ["node", "test.js"]
    c["version_cmd"] = "echo tape $(node -p \"require('tape/package.json').version\") / node $(node --version)"


case(
    "tape_tap",
    tool="tape",
    ecosystem="node",
    tty=False,
    position="middle",
    description="node test.js with tape: 16 tests of 14 assertions as TAP (`ok N label 3`), one "
    "`not ok 108 label keeps two digits` with its YAML block (operator, expected, actual, at) in "
    "the middle, then the `# tests 224 / # pass 223 / # fail 1` trailer.",
    build=build_tape,
    must_keep=[
        "not ok 108 label keeps two digits",
        "      'inventory-09'",
        "      'inventory-0009'",
        "# fail  1",
    ],
)


def build_eslint(c, root, env, work):
    files = {"package.json": json.dumps({"name": "dashboard", "version": "5.0.0", "private": True,
                                         "type": "module"}, indent=2) + "\n",
             "eslint.config.js": dedent('''
                 import js from '@eslint/js';
                 import globals from 'globals';

                 export default [
                   js.configs.recommended,
                   {
                     languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
                     rules: { eqeqeq: 'warn', 'no-console': 'warn', 'prefer-const': 'error' },
                   },
                 ];
             ''')}
    for i, n in enumerate(JS_MODULES + ["widget_%02d" % k for k in range(15)]):
        src = js_module(n, i, esm=True)
        if n == "payment":
            src += "\nexport function charge(card, amount) {\n  let fee = 0.3;\n  const unused = card.last4;\n  return amount + fee + surcharge;\n}\n"
        if n == "search":
            src += "\nexport function matches(q, s) {\n  if (q == null) return false;\n  return s.includes(q);\n}\n"
        if n == "session":
            src += "\nexport function expired(s) {\n  console.log('checking', s.id);\n  return s.expires < Date.now();\n}\n"
        if n == "widget_07":
            src += "\nexport function render(el) {\n  switch (el.kind) {\n    case 'a':\n      const x = 1;\n      return x;\n  }\n}\n"
        files["src/%s.js" % n] = src
    write_tree(root, files)
    run_setup("npm install --silent --save-dev eslint@9 @eslint/js@9 globals", root, env)
    c["argv"] = ["npx", "eslint", "--max-warnings", "0", "src"]
    c["version_cmd"] = "echo eslint $(npx eslint --version)"


case(
    "eslint_stylish",
    tool="eslint",
    ecosystem="node",
    tty=False,
    position="middle",
    description="eslint (flat config, recommended rules + eqeqeq/no-console as warnings) on 40 "
    "files, stylish formatter on a pipe: `console.warn` warnings of every module (no-console), "
    "and the errors: `surcharge` is not defined (no-undef), an unused variable, a let that "
    "should be const, a lexical declaration in a case block; then `✖ N problems (M errors, K "
    "warnings)`.",
    build=build_eslint,
    must_keep=[
        "21:7   error    'fee' is never reassigned. Use 'const' instead  prefer-const",
        "22:9   error    'unused' is assigned a value but never used     no-unused-vars",
        "23:25  error    'surcharge' is not defined                      no-undef",
        "23:7  error    Unexpected lexical declaration in case block  no-case-declarations",
        "✖ 46 problems (4 errors, 42 warnings)",
    ],
)


def build_prettier(c, root, env, work):
    files = {"package.json": json.dumps({"name": "marketing-site", "version": "1.2.0", "private": True,
                                         "scripts": {"format:check": "prettier --check ."}}, indent=2) + "\n",
             ".prettierrc": '{ "singleQuote": true }\n'}
    for i, n in enumerate(JS_MODULES):
        src = js_module(n, i)
        if n in ("checkout", "refund", "wishlist"):
            src = src.replace("  return items.reduce((sum, it) => sum + it.price * it.qty, 0);",
                              "  return items.reduce( (sum,it)=>sum + it.price*it.qty , 0 )")
        files["src/%s.js" % n] = src
        files["content/%s.json" % n] = json.dumps({"title": n, "order": i}, indent=2) + "\n"
    files["content/shipping.json"] = '{"title":"shipping","order":20,  "tags":["a","b"]}\n'
    origin = make_origin(root, files, env)
    write(os.path.join(root, "ci.sh"), ci_env("format") + "ORIGIN=%s\n" % origin + "set -e\n" + PREAMBLE + dedent('''
        echo "##[group]npm install"
        node --version
        npm --version
        npm install --loglevel=http --no-save prettier@3.3.3
        echo "##[endgroup]"
        npm run format:check
    '''))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = "cd src && echo prettier $(npx prettier --version)"


case(
    "prettier_check_ci",
    tool="prettier",
    ecosystem="node",
    tty=False,
    position="end",
    description="A CI format job on a pipe: banner, environment dump, git clone and checkout, npm "
    "install --loglevel=http (one `npm http fetch GET 200` line per request) of prettier, then "
    "npm run format:check: `[warn]` for the 4 files that are not formatted and `Code style "
    "issues found in 4 files` (npm 11 adds nothing after a failed script).",
    build=build_prettier,
    must_keep=[
        "[warn] content/shipping.json",
        "[warn] src/checkout.js",
        "[warn] src/refund.js",
        "[warn] src/wishlist.js",
        "[warn] Code style issues found in 4 files. Run Prettier with --write to fix.",
    ],
)


def build_npm_eresolve(c, root, env, work):
    write(os.path.join(root, "package.json"), json.dumps({
        "name": "legacy-admin", "version": "0.1.0", "private": True,
        "dependencies": {"react": "^18.2.0", "react-dom": "17.0.2", "react-router-dom": "^6.22.0", "axios": "^1.6.0"},
    }, indent=2) + "\n")
    c["argv"] = ["npm", "install"]
    c["version_cmd"] = "echo npm $(npm --version) / node $(node --version)"


case(
    "npm_eresolve",
    tool="npm",
    ecosystem="node",
    tty=False,
    position="start",
    description="npm install on a pipe in a project that asks for react ^18 and react-dom 17.0.2: "
    "npm's ERESOLVE report (Found: react@18…, Could not resolve dependency: peer react@\"17.0.2\" "
    "from react-dom@17.0.2, the --force/--legacy-peer-deps advice) and the log-file lines.",
    build=build_npm_eresolve,
    must_keep=[
        "npm error code ERESOLVE",
        "npm error ERESOLVE unable to resolve dependency tree",
        "npm error Found: react@18.3.1",
        "npm error peer react@\"17.0.2\" from react-dom@17.0.2",
    ],
)


def build_pnpm(c, root, env, work):
    tools = os.path.join(work, "pnpm-tool")
    if not os.path.exists(os.path.join(tools, "node_modules", ".bin", "pnpm")):
        os.makedirs(tools, exist_ok=True)
        write(os.path.join(tools, "package.json"), '{"name":"t","version":"1.0.0","private":true}\n')
        run_setup("npm install --silent pnpm@9", tools, env)
    write(os.path.join(root, "package.json"), json.dumps({"name": "web-app", "version": "1.0.0", "private": True}, indent=2) + "\n")
    write(os.path.join(root, "ci.sh"), dedent('''
        set -e
        pnpm=%s/node_modules/.bin/pnpm
        $pnpm --version
        $pnpm config set store-dir "$PWD/.pnpm-store"
        $pnpm add express@4 lodash chalk@4 dayjs uuid commander
        $pnpm add -D typescript@5 @types/node@20 left-pad@^9.0.0
    ''' % tools))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = "echo pnpm $(%s/node_modules/.bin/pnpm --version)" % tools


case(
    "pnpm_add_tty",
    tool="pnpm",
    ecosystem="node",
    tty=True,
    position="near-end",
    description="pnpm in a terminal: a pnpm add of 6 packages with an empty store (pnpm's live "
    "`Progress: resolved N, reused N, downloaded N, added N` line redrawn in place, the "
    "dependencies list), then pnpm add -D of a left-pad version that does not exist: "
    "ERR_PNPM_NO_MATCHING_VERSION with the latest release and a hint, and the progress line "
    "drawn again after it.",
    build=build_pnpm,
    must_keep=[
        "ERR_PNPM_NO_MATCHING_VERSION",
        "No matching version found for left-pad@^9.0.0",
        "The latest release of left-pad is \"1.3.0\".",
    ],
)


def build_yarn(c, root, env, work):
    tools = os.path.join(work, "yarn-tool")
    if not os.path.exists(os.path.join(tools, "node_modules", ".bin", "yarn")):
        os.makedirs(tools, exist_ok=True)
        write(os.path.join(tools, "package.json"), '{"name":"t","version":"1.0.0","private":true}\n')
        run_setup("npm install --silent yarn@1", tools, env)
    registry = run_setup("npm config get registry", root, env).strip()
    write(os.path.join(root, ".yarnrc"), 'registry "%s"\n' % registry)
    write(os.path.join(root, "package.json"), json.dumps({
        "name": "reports-ui", "version": "0.4.0", "private": True,
        "dependencies": {"express": "^4.19.0", "lodash": "^4.17.21", "dayjs": "^1.11.0", "classnames": "^2.5.0",
                         "left-pad": "^9.0.0"},
    }, indent=2) + "\n")
    c["argv"] = [tools + "/node_modules/.bin/yarn", "install", "--verbose", "--cache-folder", os.path.join(root, ".yarn-cache")]
    c["version_cmd"] = "echo yarn $(%s/node_modules/.bin/yarn --version)" % tools


case(
    "yarn_install_verbose",
    tool="yarn (classic)",
    ecosystem="node",
    tty=False,
    position="end",
    description="yarn install --verbose (yarn 1) on a pipe: `verbose` lines with timings for every "
    "registry request while it resolves 5 dependencies, then `error Couldn't find any versions "
    "for \"left-pad\" that matches \"^9.0.0\"` and the `info Visit … for documentation` line.",
    build=build_yarn,
    must_keep=[
        "error Couldn't find any versions for \"left-pad\" that matches \"^9.0.0\"",
    ],
)


def build_markdownlint(c, root, env, work):
    files = {".markdownlint.json": '{ "default": true, "MD013": { "line_length": 120 } }\n',
             "package.json": json.dumps({"name": "handbook", "version": "1.0.0", "private": True}, indent=2) + "\n"}
    for i in range(30):
        body = ["# Chapter %d" % i, "", "Intro text for chapter %d." % i, "", "## Setup", "",
                "1. Install the tools.", "2. Run the checks.", "", "## Details", "", "Some details."]
        if i == 4:
            body[4:6] = ["## Setup"]
        if i == 11:
            body += ["", "```", "make docs", "```"]
        if i == 19:
            body += ["", "See [the guide](guide.md) ", "", "", "Trailing section."]
        if i == 23:
            body[0] = "Chapter 23\n=========="
            body += ["", "* item", "+ other item"]
        files["docs/chapter_%02d.md" % i] = "\n".join(body) + "\n"
    origin = make_origin(root, files, env)
    write(os.path.join(root, "ci.sh"), ci_env("docs-lint") + "ORIGIN=%s\n" % origin + "set -e\n" + PREAMBLE + dedent('''
        echo "##[group]npm install"
        npm install --loglevel=http --no-save markdownlint-cli@0.41.0
        echo "##[endgroup]"
        npx markdownlint --version
        npx markdownlint 'docs/**/*.md'
    '''))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = "cd src && echo markdownlint-cli $(npx markdownlint --version)"


case(
    "markdownlint_ci",
    tool="markdownlint-cli",
    ecosystem="markdown",
    tty=False,
    position="end",
    description="A CI docs job on a pipe: banner, environment dump, git clone and checkout, npm "
    "install --loglevel=http of markdownlint-cli (one fetch line per request), then markdownlint "
    "on 30 chapters: MD022 (heading without blank line), MD040 (fence without language), MD009/"
    "MD012 (trailing space, blank lines), MD003/MD004 (heading and list styles).",
    build=build_markdownlint,
    must_keep=[
        "docs/chapter_04.md:5 MD022/blanks-around-headings",
        "docs/chapter_11.md:14 MD040/fenced-code-language",
        "docs/chapter_19.md:14:26 MD009/no-trailing-spaces",
        "docs/chapter_23.md:6 MD003/heading-style",
        "docs/chapter_23.md:16:1 MD004/ul-style",
    ],
)

# ================================================================ ruby


def ruby_lib(name, i):
    return dedent('''
        # frozen_string_literal: true

        module Shop
          # %(cls)s: generated class %(i)d
          class %(cls)s
            attr_reader :items

            def initialize(items = [])
              @items = items
            end

            def total
              items.sum { |price, qty| price * qty }
            end

            def label(id)
              format('%(name)s-%%04d', id)
            end
          end
        end
    ''' % {"cls": "".join(p.capitalize() for p in name.split("_")), "name": name, "i": i})


RB_NAMES = JS_MODULES[:12]


def build_rspec(c, root, env, work):
    files = {"lib/shop.rb": "".join("require_relative 'shop/%s'\n" % n for n in RB_NAMES),
             ".rspec": "--require spec_helper\n",
             "spec/spec_helper.rb": "require 'shop'\n\nRSpec.configure do |c|\n  c.order = :defined\nend\n"}
    for i, n in enumerate(RB_NAMES):
        cls = n.capitalize()
        files["lib/shop/%s.rb" % n] = ruby_lib(n, i)
        lines = ["RSpec.describe Shop::%s do" % cls]
        for g, what in (("#label", "label"), ("#total", "total")):
            lines.append("  describe '%s' do" % g)
            for k in range(13):
                if what == "label":
                    exp = "'%s-%04d'" % (n, k)
                    code = "expect(described_class.new.label(%d)).to eq(%s)" % (k, exp)
                    title = "formats id %d" % k
                else:
                    items = [[j + 1, k % 3 + 1] for j in range(k % 5 + 1)]
                    code = "expect(described_class.new(%s).total).to eq(%d)" % (items, sum(a * b for a, b in items))
                    title = "sums %d line items" % len(items)
                if n == "cart" and what == "total" and k == 9:
                    code = "expect(described_class.new([[0.1, 3]]).total).to eq(0.3)"
                    title = "sums prices with cents"
                if n == "invoice" and what == "label" and k == 4:
                    code = "expect { described_class.new.label(nil) }.to raise_error(ArgumentError, /id is required/)"
                    title = "rejects a missing id"
                lines += ["    it '%s' do" % title, "      %s" % code, "    end", ""]
            lines.append("  end")
        lines += ["end", ""]
        files["spec/%s_spec.rb" % n] = "\n".join(lines)
    write_tree(root, files)
    c["argv"] = ["rspec", "--format", "documentation"]
    c["version_cmd"] = "rspec --version | tr '\\n' ' '"


case(
    "rspec_documentation",
    tool="rspec",
    ecosystem="ruby",
    tty=True,
    position="end",
    description="rspec --format documentation in a terminal (green/red example lines) on 12 spec "
    "files, 312 examples: `sums prices with cents` fails on a float (expected: 0.3, got: "
    "0.30000000000000004) and `rejects a missing id` gets a TypeError instead of ArgumentError; "
    "the Failures section, `312 examples, 2 failures` and the `rspec ./spec/…:NN` rerun lines "
    "at the very end.",
    build=build_rspec,
    must_keep=[
        "1) Shop::Cart#total sums prices with cents",
        "       got: 0.30000000000000004",
        "2) Shop::Invoice#label rejects a missing id",
        "expected ArgumentError with message matching /id is required/, got #<TypeError: can't convert nil into Integer>",
        "312 examples, 2 failures",
        "rspec ./spec/cart_spec.rb:93",
    ],
)


def build_minitest(c, root, env, work):
    files = {"lib/shop.rb": "".join("require_relative 'shop/%s'\n" % n for n in RB_NAMES),
             "Rakefile": dedent('''
                 require 'rake/testtask'

                 Rake::TestTask.new(:test) do |t|
                   t.libs << 'test' << 'lib'
                   t.test_files = FileList['test/**/*_test.rb']
                   t.warning = false
                 end

                 task default: :test
             ''')}
    for i, n in enumerate(RB_NAMES):
        cls = n.capitalize()
        files["lib/shop/%s.rb" % n] = ruby_lib(n, i)
        lines = ["require 'minitest/autorun'", "require 'shop'", "", "class %sTest < Minitest::Test" % cls]
        for k in range(25):
            items = [[j + 1, k % 3 + 1] for j in range(k % 5 + 1)]
            body = "assert_equal %d, Shop::%s.new(%s).total" % (sum(a * b for a, b in items), cls, items)
            name = "test_total_%02d" % k
            if n == "invoice" and k == 17:
                name, body = "test_total_with_cents", "assert_equal 0.3, Shop::Invoice.new([[0.1, 1], [0.2, 1]]).total"
            if n == "currency" and k == 3:
                name, body = "test_rate_for_unknown_region", "assert_equal 0, { 'eu' => 20 }.fetch('mars')"
            if k % 4 == 0:
                body2 = "assert_equal '%s-%04d', Shop::%s.new.label(%d)" % (n, k, cls, k)
                lines += ["  def test_label_%02d" % k, "    %s" % body2, "  end", ""]
            lines += ["  def %s" % name, "    %s" % body, "  end", ""]
        lines += ["end", ""]
        files["test/%s_test.rb" % n] = "\n".join(lines)
    write_tree(root, files)
    c["argv"] = ["rake", "test", "TESTOPTS=-v --seed=4242"]
    c["version_cmd"] = "ruby -e 'require \"minitest\"; puts \"minitest #{Minitest::VERSION} (ruby #{RUBY_VERSION})\"'; rake --version"
    c["version_lines"] = 2


case(
    "minitest_rake",
    tool="minitest (via rake test)",
    ecosystem="ruby",
    tty=False,
    position="near-end",
    description="rake test TESTOPTS='-v --seed=4242' on 12 minitest files, on a pipe: one line per "
    "test (`InvoiceTest#test_total_02 = 0.00 s = .`), then `1) Failure:` "
    "(InvoiceTest#test_total_with_cents, Expected: 0.3 / Actual: 0.30000000000000004) and `2) "
    "Error:` (CurrencyTest#test_rate_for_unknown_region, KeyError), the runs/assertions line, and "
    "rake's epilogue (`rake aborted!`, `Command failed with status (1)`, "
    "`Tasks: TOP => test`).",
    build=build_minitest,
    must_keep=[
        "InvoiceTest#test_total_with_cents [/project/minitest_rake/test/invoice_test.rb:94]:",
        "  Actual: 0.30000000000000004",
        "CurrencyTest#test_rate_for_unknown_region:",
        "KeyError: key not found: \"mars\"",
        "384 runs, 383 assertions, 1 failures, 1 errors, 0 skips",
    ],
)


def build_rubocop(c, root, env, work):
    files = {".rubocop.yml": "AllCops:\n  NewCops: disable\n  SuggestExtensions: false\n  TargetRubyVersion: 3.1\n"}
    for i, n in enumerate(JS_MODULES):
        src = ruby_lib(n, i)
        if n == "coupon":
            src = src.replace("    def label(id)\n", "    def label(id)\n      unused = id * 2\n")
        if n == "payment":
            src = src.replace("      items.sum { |price, qty| price * qty }\n",
                              "      items.sum { |price, qty| price * qty }\n    rescue Exception => e\n      raise e\n")
        if n == "search":
            src = src.replace("    def label(id)\n", "    def matches?(q, s)\n      return s.include?(q) if q != nil and s\n    end\n\n    def label(id)\n")
        if n == "session":
            src = src.replace("# frozen_string_literal: true\n\n", "")
        files["lib/shop/%s.rb" % n] = src
    write_tree(root, files)
    c["argv"] = ["rubocop", "--format", "progress", "--display-style-guide", "lib"]
    c["version_cmd"] = "echo rubocop $(rubocop --version)"


case(
    "rubocop_progress",
    tool="rubocop",
    ecosystem="ruby",
    tty=False,
    position="end",
    description="rubocop --format progress on 25 files, on a pipe: the progress line of one "
    "character per file, then the offenses with code frames: Lint/UselessAssignment, "
    "Lint/RescueException, Style/AndOr, Style/NonNilCheck, Style/FrozenStringLiteralComment, and "
    "`25 files inspected, N offenses detected`.",
    build=build_rubocop,
    must_keep=[
        "lib/shop/coupon.rb:17:7: W: Lint/UselessAssignment: Useless assignment to variable - unused.",
        "lib/shop/payment.rb:14:5: W: Lint/RescueException: Avoid rescuing the Exception class.",
        "lib/shop/search.rb:17:40: C: [Correctable] Style/AndOr: Use && instead of and.",
        "lib/shop/session.rb:1:1: C: [Correctable] Style/FrozenStringLiteralComment: Missing frozen string literal comment.",
        "25 files inspected, 9 offenses detected",
    ],
)


def build_bundler(c, root, env, work):
    write_tree(root, {
        "Gemfile": dedent('''
            source 'https://rubygems.org'

            gem 'rake'
            gem 'rspec', '~> 3.12'
            gem 'rubocop', '1.39.0'
            gem 'shop_core', path: 'gems/shop_core'
            gem 'legacy_reports', path: 'gems/legacy_reports'
        '''),
        "gems/shop_core/shop_core.gemspec": dedent('''
            Gem::Specification.new do |s|
              s.name = 'shop_core'
              s.version = '2.1.0'
              s.summary = 'Shop core'
              s.authors = ['Shop team']
              s.files = []
              s.add_dependency 'minitest', '~> 5.17'
              s.add_dependency 'rake', '>= 13'
            end
        '''),
        "gems/legacy_reports/legacy_reports.gemspec": dedent('''
            Gem::Specification.new do |s|
              s.name = 'legacy_reports'
              s.version = '0.9.3'
              s.summary = 'Legacy reports'
              s.authors = ['Shop team']
              s.files = []
              s.add_dependency 'minitest', '>= 5.10', '< 5.16'
            end
        '''),
    })
    c["argv"] = ["bundle", "install", "--local", "--verbose"]
    c["env"] = {"BUNDLE_USER_HOME": os.path.join(root, ".bundle-home")}
    c["version_cmd"] = "bundle --version"


case(
    "bundler_resolution",
    tool="bundler",
    ecosystem="ruby",
    tty=False,
    position="start",
    description="bundle install --local --verbose (installed gems only: no network) of a Gemfile "
    "with two path gems that need minitest ~> 5.17 and minitest < 5.16 (both versions are "
    "installed), on a pipe: the `Don't run Bundler as root` warning, then `Bundler could not find "
    "compatible versions for gem \"minitest\"` with the two requirements, printed twice, and "
    "bundler's 30-line Ruby backtrace after it.",
    build=build_bundler,
    must_keep=[
        "Bundler could not find compatible versions for gem \"minitest\":",
        "    legacy_reports was resolved to 0.9.3, which depends on",
        "      minitest (>= 5.10, < 5.16)",
        "    shop_core was resolved to 2.1.0, which depends on",
        "      minitest (~> 5.17)",
    ],
)


# ================================================================ php


def build_phpunit(c, root, env, work):
    files = {"src/autoload.php": "<?php\nspl_autoload_register(function ($c) {\n"
             "    $f = __DIR__ . '/' . str_replace(['App\\\\', '\\\\'], ['', '/'], $c) . '.php';\n"
             "    if (is_file($f)) { require $f; }\n});\n",
             "phpunit.xml": dedent('''
                 <?xml version="1.0" encoding="UTF-8"?>
                 <phpunit bootstrap="src/autoload.php" colors="false">
                   <testsuites>
                     <testsuite name="unit"><directory>tests</directory></testsuite>
                   </testsuites>
                 </phpunit>
             ''')}
    for i, n in enumerate(JS_MODULES[:12]):
        cls = n.capitalize()
        files["src/%s.php" % cls] = dedent('''
            <?php
            namespace App;

            final class %(cls)s
            {
                /** @param array<array{0: float, 1: int}> $items */
                public function __construct(private array $items = []) {}

                public function total(): float
                {
                    $t = 0.0;
                    foreach ($this->items as [$price, $qty]) {
                        $t += $price * $qty;
                    }
                    return round($t, 2);
                }

                public function label(int $id): string
                {
                    return sprintf('%(name)s-%%04d', $id);
                }
            }
        ''' % {"cls": cls, "name": n})
        lines = ["<?php", "namespace App\\Tests;", "", "use App\\%s;" % cls, "use PHPUnit\\Framework\\TestCase;", "",
                 "final class %sTest extends TestCase" % cls, "{"]
        prov = []
        for k in range(30):
            items = [[j + 0.5, k % 3 + 1] for j in range(k % 4 + 1)]
            prov.append("            'order %02d' => [%s, %s]," % (k, json.dumps(items), repr(round(sum(a * b for a, b in items), 2))))
        if n == "coupon":
            prov[21] = "            'order 21' => [[[19.99, 3], [0.015, 2]], 60.01],"
        lines += ["    public static function orders(): array", "    {", "        return ["] + prov + ["        ];", "    }", "",
                  "    /** @dataProvider orders */",
                  "    public function testTotal(array $items, float $expected): void",
                  "    {", "        $this->assertSame($expected, (new %s($items))->total());" % cls, "    }", ""]
        for k in range(10):
            exp = "%s-%04d" % (n, k)
            if n == "invoice" and k == 7:
                lines += ["    public function testLabelRejectsNegativeIds(): void", "    {",
                          "        $this->expectException(\\InvalidArgumentException::class);",
                          "        (new %s())->label(-7);" % cls, "    }", ""]
                continue
            lines += ["    public function testLabel%02d(): void" % k, "    {",
                      "        $this->assertSame('%s', (new %s())->label(%d));" % (exp, cls, k), "    }", ""]
        lines += ["}", ""]
        files["tests/%sTest.php" % cls] = "\n".join(lines)
    write_tree(root, files)
    c["argv"] = ["phpunit", "--debug"]
    c["version_cmd"] = "phpunit --version"


case(
    "phpunit_debug",
    tool="phpunit",
    ecosystem="php",
    tty=False,
    position="end",
    description="phpunit --debug (a `Test 'App\\Tests\\XTest::testY' started` / `ended` pair per "
    "test) on 12 classes with data providers, 480 tests, on a pipe: `There were 2 failures:` — "
    "`1) App\\Tests\\CouponTest::testTotal with data set \"order 21\"` (Failed asserting that 60.0 "
    "is identical to 60.01.) and `2) App\\Tests\\InvoiceTest::testLabelRejectsNegativeIds` "
    "(Failed asserting that exception of type … is thrown), then FAILURES! and the counts.",
    build=build_phpunit,
    must_keep=[
        "1) App\\Tests\\CouponTest::testTotal with data set \"order 21\"",
        "Failed asserting that 60.0 is identical to 60.01.",
        "2) App\\Tests\\InvoiceTest::testLabelRejectsNegativeIds",
        "Failed asserting that exception of type \"InvalidArgumentException\" is thrown.",
        "Tests: 480, Assertions: 480, Failures: 2.",
    ],
)


# ================================================================ elixir


def elixir_project(root, compile_error=False):
    files = {"mix.exs": dedent('''
        defmodule Shop.MixProject do
          use Mix.Project

          def project do
            [app: :shop, version: "0.7.0", elixir: "~> 1.14", deps: []]
          end

          def application do
            [extra_applications: [:logger]]
          end
        end
    '''), "test/test_helper.exs": "ExUnit.start(capture_log: false)\n",
        "config/config.exs": "import Config\nconfig :logger, :console, format: \"$time [$level] $message\\n\"\n"}
    for i, n in enumerate(JS_MODULES[:14]):
        mod = "Shop." + n.capitalize()
        body = dedent('''
            defmodule %(mod)s do
              @moduledoc "Generated module %(i)d."
              require Logger

              def total(items) do
                Enum.reduce(items, 0, fn {price, qty}, acc -> acc + price * qty end)
              end

              def label(id) when is_integer(id) do
                if rem(id, 7) == 3, do: Logger.warning("%(n)s: id #{id} is reserved, labelling anyway")
                if rem(id, 11) == 5, do: Logger.error("%(n)s: audit sink unavailable (retrying in 5s)")
                "%(n)s-" <> String.pad_leading(Integer.to_string(id), 4, "0")
              end
            end
        ''' % {"mod": mod, "i": i, "n": n})
        if compile_error and n == "order":
            body = body.replace("    Enum.reduce(items, 0, fn {price, qty}, acc -> acc + price * qty end)",
                                "    subtotal = 0\n    Enum.reduce(items, 0, fn {price, qty}, acc -> acc + price * qty end)\n    |> round_cents()\n    |> totl()")
            body = body.replace("  def label(id)", "  defp round_cents(x), do: Float.round(x / 1, 2)\n\n  def label(id)")
        if compile_error and n in ("cart", "invoice"):
            body = body.replace("  def total(items) do", "  def total(items, opts \\\\ []) do")
        files["lib/shop/%s.ex" % n] = body
        tests = ["defmodule %sTest do" % mod, "  use ExUnit.Case, async: false", "  alias %s, as: M" % mod, ""]
        for k in range(22):
            items = [(j + 1, k % 3 + 1) for j in range(k % 4 + 1)]
            ex = "[" + ", ".join("{%d, %d}" % it for it in items) + "]"
            exp = sum(a * b for a, b in items)
            if n == "invoice" and k == 13:
                ex, exp = "[{0.1, 3}]", "0.3"
            tests += ['  test "total of %d items (case %d)" do' % (len(items), k), "    assert M.total(%s) == %s" % (ex, exp), "  end", ""]
            label = '"%s-%04d"' % (n, k)
            if n == "customer" and k == 9:
                label = '"customer-009"'
            tests += ['  test "label %d" do' % k, "    assert M.label(%d) == %s" % (k, label), "  end", ""]
        tests += ["end", ""]
        files["test/%s_test.exs" % n] = "\n".join(tests)
    write_tree(root, files)


def build_exunit(c, root, env, work):
    elixir_project(root)
    c["argv"] = ["mix", "test", "--trace", "--seed", "0"]
    c["env"] = {"MIX_ENV": "test", "MIX_HOME": os.path.join(work, "mix-home"), "HEX_OFFLINE": "1"}
    c["version_cmd"] = "elixir --version | tail -n 1"


case(
    "exunit_trace",
    tool="ExUnit (mix test)",
    ecosystem="elixir",
    tty=False,
    position="middle",
    description="mix test --trace --seed 0 on a generated mix project (14 modules, 616 tests), on a "
    "pipe: `Compiling 14 files (.ex)`, then every test by name with its time, Logger lines "
    "(`[warning]`/`[error]` from the code under test, harmless) among them; two failures shown "
    "where they happen (`1) test label 9 (Shop.CustomerTest)`, `2) test total of 2 items (case 13) "
    "(Shop.InvoiceTest)`: Assertion with == failed, left/right), and `616 tests, 2 failures` at the end.",
    build=build_exunit,
    must_keep=[
        "1) test total of 2 items (case 13) (Shop.InvoiceTest)",
        "left:  0.30000000000000004",
        "2) test label 9 (Shop.CustomerTest)",
        "left:  \"customer-0009\"",
        "616 tests, 2 failures",
    ],
)


def build_elixir_compile(c, root, env, work):
    elixir_project(root, compile_error=True)
    c["argv"] = ["mix", "compile", "--verbose"]
    c["env"] = {"MIX_ENV": "dev", "MIX_HOME": os.path.join(work, "mix-home"), "HEX_OFFLINE": "1"}
    c["version_cmd"] = "elixir --version | tail -n 1"


case(
    "elixir_compile_error",
    tool="mix compile (elixirc)",
    ecosystem="elixir",
    tty=False,
    position="end",
    description="mix compile of a project where Shop.Order calls a function that does not exist "
    "(and has an unused variable): `warning:` blocks, then `== Compilation error in file "
    "lib/shop/order.ex ==` and `** (CompileError) … undefined function totl/1`.",
    build=build_elixir_compile,
    must_keep=[
        "== Compilation error in file lib/shop/order.ex ==",
        "** (CompileError) lib/shop/order.ex:9: undefined function totl/1",
    ],
)


# ================================================================ erlang


def erlang_files(suite=False):
    files = {}
    mods = [n for n in JS_MODULES[:12]]
    for n in mods:
        files["src/%s.erl" % n] = dedent('''
            -module(%(n)s).
            -export([total/1, label/1, reserve/2]).

            total(Items) -> lists:foldl(fun({P, Q}, Acc) -> Acc + P * Q end, 0, Items).

            label(Id) -> lists:flatten(io_lib:format("%(n)s-~4..0B", [Id])).

            reserve(Stock, Qty) when Qty =< Stock -> {ok, Stock - Qty};
            reserve(_Stock, _Qty) -> {error, out_of_stock}.
        ''' % {"n": n})
    files["src/inventory.erl"] = files["src/inventory.erl"].replace(
        "reserve(Stock, Qty) when Qty =< Stock", "reserve(Stock, Qty) when Qty < Stock")
    files["src/ledger.erl"] = files["src/ledger.erl"].replace("-export([", "-export([unused_helper/0, ") + \
        "\nunused_helper() -> Unused = 1, ok.\n"
    if not suite:
        for n in mods:
            lines = ["-module(%s_tests)." % n, "-include_lib(\"eunit/include/eunit.hrl\").", ""]
            for k in range(25):
                items = [(j + 1, k % 3 + 1) for j in range(k % 4 + 1)]
                exp = sum(a * b for a, b in items)
                lines.append("total_%02d_test() -> ?assertEqual(%d, %s:total([%s]))." % (
                    k, exp, n, ", ".join("{%d, %d}" % it for it in items)))
                exp_label = "%s-%04d" % (n, k)
                lines.append("label_%02d_test() -> ?assertEqual(\"%s\", %s:label(%d))." % (k, exp_label, n, k))
            lines.append("reserve_all_test() -> ?assertEqual({ok, 0}, %s:reserve(5, 5))." % n)
            files["test/%s_tests.erl" % n] = "\n".join(lines) + "\n"
    else:
        for n in mods:
            s = n + "_SUITE"
            cases = ["reserve_%02d" % k for k in range(12)] + ["label_%02d" % k for k in range(12)]
            lines = ["-module(%s)." % s, "-include_lib(\"common_test/include/ct.hrl\").",
                     "-compile(export_all).", "-compile(nowarn_export_all).", "",
                     "all() -> [%s]." % ", ".join(cases), "",
                     "init_per_suite(Config) -> ct:pal(\"starting ~p\", [?MODULE]), Config.",
                     "end_per_suite(_Config) -> ok.", ""]
            for k in range(12):
                lines.append("reserve_%02d(_Config) -> {ok, Left} = %s:reserve(%d, %d), ct:pal(\"left ~p\", [Left]), ok." % (k, n, 20, k if k != 11 else 20))
                lines.append("label_%02d(_Config) -> \"%s-%04d\" = %s:label(%d), ok." % (k, n, k, n, k))
            files["test/%s.erl" % s] = "\n".join(lines) + "\n"
    return files, mods


def build_eunit(c, root, env, work):
    files, mods = erlang_files()
    write_tree(root, files)
    mod_list = ",".join("%s_tests" % m for m in mods)
    write(os.path.join(root, "ci.sh"), dedent('''
        set -e
        mkdir -p ebin
        for f in src/*.erl test/*.erl; do
          echo "erlc $f"
          erlc -Wall -o ebin "$f"
        done
        erl -noshell -pa ebin -eval 'case eunit:test([%s], [verbose]) of ok -> halt(0); _ -> halt(1) end.'
    ''' % mod_list))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = "erl -noshell -eval 'io:format(\"Erlang/OTP ~s~n\", [erlang:system_info(otp_release)]), halt().'"


case(
    "eunit_verbose",
    tool="EUnit (erl)",
    ecosystem="erlang",
    tty=False,
    position="middle",
    description="erlc of 24 modules (one -Wall warning for an unused variable) then "
    "eunit:test(…, [verbose]) on 12 test modules, 612 tests, on a pipe: a line per test; "
    "inventory_tests:reserve_all_test fails in the middle with `*failed*` and the "
    "`**error:{assertEqual,[{module,…},{expected,{ok,0}},{value,{error,out_of_stock}}]}` block; "
    "`Failed: 1.  Skipped: 0.  Passed: 611.` at the end.",
    build=build_eunit,
    must_keep=[
        "inventory_tests: reserve_all_test...*failed*",
        "in function inventory_tests:reserve_all_test/0 (test/inventory_tests.erl, line 54)",
        "{expected,{ok,0}},",
        "{value,{error,out_of_stock}}]}",
        "Failed: 1.  Skipped: 0.  Passed: 611.",
    ],
)


def build_common_test(c, root, env, work):
    files, mods = erlang_files(suite=True)
    write_tree(root, files)
    write(os.path.join(root, "ci.sh"), dedent('''
        set -e
        mkdir -p ebin logs
        erlc -o ebin src/*.erl
        ct_run -noshell -pa ebin -dir test -logdir logs -cover_stop false
    '''))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = "erl -noshell -eval 'io:format(\"Erlang/OTP ~s~n\", [erlang:system_info(otp_release)]), halt().'"


case(
    "common_test_suites",
    tool="Common Test (ct_run)",
    ecosystem="erlang",
    tty=False,
    position="middle",
    description="ct_run on 12 generated suites of 24 cases (ct:pal output of every suite, the "
    "per-suite progress) on a pipe: inventory_SUITE:reserve_11 fails with "
    "`{badmatch,{error,out_of_stock}}`, shown in a `- - - - -` block, then `TEST COMPLETE, 287 "
    "ok, 1 failed of 288 test cases` and the log-file lines.",
    build=build_common_test,
    must_keep=[
        "inventory_SUITE:reserve_11 failed on line 33",
        "Reason: {badmatch,{error,out_of_stock}}",
        "*** FAILED test case 180 of 288 ***",
        "TEST COMPLETE, 287 ok, 1 failed of 288 test cases",
    ],
)


# ================================================================ haskell


def build_ghc(c, root, env, work):
    names = ["Types", "Money", "Time", "Config", "Log", "Csv", "Json", "Lexer", "Tokens", "Ast",
             "Parser", "Pretty", "Eval", "Report", "Cache", "Http", "Store", "Api"]
    files = {}
    for i, n in enumerate(names):
        prev = names[i - 1] if i else None
        lines = ["module Shop.%s" % n, "  ( name%s" % n, "  , weight%s" % n, "  , describe%s" % n, "  ) where", ""]
        if prev:
            lines += ["import Shop.%s (name%s)" % (prev, prev)]
        lines += ["import Data.List (sortOn, intercalate)", "import qualified Data.Map as Map", "",
                  "name%s :: String" % n, "name%s = \"%s\"" % (n, n.lower()), "",
                  "weight%s :: Int -> Int" % n, "weight%s x = x * %d + length name%s" % (n, i + 1, n), "",
                  "describe%s :: [(String, Int)] -> String" % n,
                  "describe%s kvs = intercalate \", \" [k ++ \"=\" ++ show v | (k, v) <- sortOn snd kvs]" % n]
        if n == "Parser":
            lines += ["", "data Item = Item { itemName :: String, itemQty :: Int } deriving (Show, Eq)", "",
                      "parseItem :: String -> Either String Item",
                      "parseItem line =",
                      "  case words line of",
                      "    [n, q] -> Right (Item n q)",
                      "    _ -> Left (\"bad item: \" ++ line)",
                      "", "totalQty :: [Item] -> Int",
                      "totalQty = sum . map itemQty . Map.elems . Map.fromList . map (\\i -> (itemName i, i))"]
        files["src/Shop/%s.hs" % n] = "\n".join(lines) + "\n"
    files["app/Main.hs"] = "module Main (main) where\n\n" + "".join("import Shop.%s\n" % n for n in names) + \
        "\nmain :: IO ()\nmain = putStrLn (describeApi [(nameApi, weightApi 3)])\n"
    write_tree(root, files)
    os.makedirs(os.path.join(root, "build"), exist_ok=True)
    c["argv"] = ["ghc", "--make", "-Wall", "-isrc", "-outputdir", "build", "-o", "build/shop", "app/Main.hs"]
    c["version_cmd"] = "ghc --version"


case(
    "ghc_make_error",
    tool="ghc --make",
    ecosystem="haskell",
    tty=False,
    position="end",
    description="ghc --make -Wall on 19 generated modules, on a pipe: `[ N of 19] Compiling "
    "Shop.X ( src/Shop/X.hs, build/Shop/X.o )` lines with -Wall warnings (unused imports) among "
    "them; Shop.Parser fails: `src/Shop/Parser.hs:NN:CC: error:` with the `• Couldn't match type` "
    "explanation and code frame on the following lines.",
    build=build_ghc,
    must_keep=[
        "[11 of 19] Compiling Shop.Parser",
        "src/Shop/Parser.hs:25:29: error:",
        "• Couldn't match type ‘[Char]’ with ‘Int’",
        "• In the second argument of ‘Item’, namely ‘q’",
        "25 |     [n, q] -> Right (Item n q)",
    ],
)


# ================================================================ perl


def build_prove(c, root, env, work):
    files = {}
    for i, n in enumerate(JS_MODULES[:15]):
        pkg = "Shop::" + n.capitalize()
        files["lib/Shop/%s.pm" % n.capitalize()] = dedent('''
            package %(pkg)s;
            use strict;
            use warnings;

            sub new { my ($class, %%args) = @_; return bless { items => $args{items} || [] }, $class }

            sub total {
                my ($self) = @_;
                my $t = 0;
                $t += $_->[0] * $_->[1] for @{ $self->{items} };
                return $t;
            }

            sub label { my ($self, $id) = @_; return sprintf '%(n)s-%%04d', $id }

            1;
        ''' % {"pkg": pkg, "n": n})
        lines = ["use strict;", "use warnings;", "use Test::More tests => 30;", "use %s;" % pkg, ""]
        for k in range(30):
            if k % 2:
                items = [(j + 1, k % 3 + 1) for j in range(k % 4 + 1)]
                exp = sum(a * b for a, b in items)
                if n == "invoice" and k == 11:
                    lines.append("is(%s->new(items => [[10, 2], [5, -1]])->total, 20, 'total ignores returned items');" % pkg)
                    continue
                lines.append("is(%s->new(items => [%s])->total, %d, 'total %d');" % (
                    pkg, ", ".join("[%d, %d]" % it for it in items), exp, k))
            else:
                lines.append("is(%s->new->label(%d), '%s-%04d', 'label %d');" % (pkg, k, n, k, k))
            if k == 20:
                lines.append("diag('checking %s edge cases');" % n)
        files["t/%02d-%s.t" % (i, n)] = "\n".join(lines) + "\n"
    write_tree(root, files)
    c["argv"] = ["prove", "-v", "-Ilib", "t/"]
    c["version_cmd"] = "prove --version"


case(
    "prove_verbose",
    tool="prove (Test::More)",
    ecosystem="perl",
    tty=False,
    position="middle",
    description="prove -v -Ilib t/ on 15 Test::More files of 30 tests, on a pipe: `ok N - …` for "
    "every test and a diag line per file; in t/08-invoice.t `not ok 12 - total ignores returned items` with the "
    "`#   Failed test` / got / expected diagnostics, `Dubious, test returned 1`, `Failed 1/30 "
    "subtests`; then the Test Summary Report and `Result: FAIL`.",
    build=build_prove,
    must_keep=[
        "not ok 12 - total ignores returned items",
        "#   Failed test 'total ignores returned items'",
        "#          got: '15'",
        "#     expected: '20'",
        "Dubious, test returned 1 (wstat 256, 0x100)",
        "t/08-invoice.t  (Wstat: 256 (exited 1) Tests: 30 Failed: 1)",
    ],
)


def build_perlcritic(c, root, env, work):
    files = {}
    for i, n in enumerate(JS_MODULES):
        src = dedent('''
            package Shop::%(cls)s;
            use strict;
            use warnings;

            our $VERSION = '1.0%(i)02d';

            sub new { my ($class, %%args) = @_; return bless {%%args}, $class }

            sub total {
                my ($self) = @_;
                my $t = 0;
                for my $it (@{ $self->{items} || [] }) { $t += $it->[0] * $it->[1] }
                return $t;
            }

            1;
        ''' % {"cls": n.capitalize(), "i": i})
        if n == "ledger":
            src = src.replace("use strict;\nuse warnings;\n", "")
        if n == "report":
            src = src.replace("    return $t;\n}", "    return $t;\n}\n\nsub dump_to {\n    my ($self, $file) = @_;\n    open FH, \">$file\" or die;\n    print FH $self->total;\n    close FH;\n}")
        if n == "search":
            src = src.replace("    return $t;\n}", "    return $t;\n}\n\nsub find {\n    my ($self, $q) = @_;\n    my @hits = grep { $_ =~ /$q/ } @{ $self->{names} };\n    return eval \"scalar(\\@hits)\";\n}")
        files["lib/Shop/%s.pm" % n.capitalize()] = src
    write_tree(root, files)
    c["argv"] = ["perlcritic", "--severity", "4", "lib"]
    c["version_cmd"] = "echo perlcritic $(perlcritic --version)"


case(
    "perlcritic_lib",
    tool="perlcritic",
    ecosystem="perl",
    tty=False,
    position="middle",
    description="perlcritic --severity 4 on 25 modules, on a pipe: `source OK` for most files and, "
    "among them, the violations of three (no strictures, bareword file handle and two-argument "
    "open, stringy eval, each with its PBP page and severity).",
    build=build_perlcritic,
    must_keep=[
        "lib/Shop/Search.pm: Expression form of \"eval\" at line 19, column 12.",
        "lib/Shop/Report.pm: Bareword file handle opened at line 18, column 5.",
        "lib/Shop/Report.pm: Two-argument \"open\" used at line 18, column 5.",
        "lib/Shop/Ledger.pm: Code before strictures are enabled at line 3, column 1.",
    ],
)


# ================================================================ lua


LUA_RUNNER = r'''
-- A small test runner: every case is run in pcall and reported as TAP;
-- the final "integration" stage is not protected.
package.path = "./src/?.lua;" .. package.path
local tree = require("tree")

local n = 0
local function ok(cond, name)
  n = n + 1
  print((cond and "ok " or "not ok ") .. n .. " - " .. name)
end

for i = 1, 320 do
  local t = tree.build(i % 9 + 1)
  ok(tree.count(t) == i % 9 + 1, ("count of a tree of %d nodes"):format(i % 9 + 1))
  if i % 40 == 0 then
    io.stderr:write(("WARN tree cache evicted %d entries\n"):format(i))
  end
end

print("# integration: parsing the full document")
local doc = tree.parse({ "root", { "section", { "para" }, { "para" } }, { "appendix" } })
print("# nodes: " .. tree.count(doc))
print("1.." .. n)
'''

LUA_TREE = r'''
local M = {}

function M.build(n)
  local root = { name = "root", children = {} }
  for i = 2, n do
    root.children[#root.children + 1] = { name = "n" .. i, children = {} }
  end
  return root
end

function M.count(node)
  local c = 1
  for _, ch in ipairs(node.children) do
    c = c + M.count(ch)
  end
  return c
end

local function convert(spec)
  local node = { name = spec[1] }
  for i = 2, #spec do
    node.children[#node.children + 1] = convert(spec[i])
  end
  return node
end

function M.parse(spec)
  return convert(spec)
end

return M
'''


def build_lua(c, root, env, work):
    write(os.path.join(root, "run_tests.lua"), LUA_RUNNER)
    write(os.path.join(root, "src/tree.lua"), LUA_TREE)
    c["argv"] = ["lua5.4", "run_tests.lua"]
    c["version_cmd"] = "lua5.4 -v"


case(
    "lua_traceback",
    tool="lua5.4",
    ecosystem="lua",
    tty=False,
    position="end",
    description="lua5.4 run_tests.lua, a hand-rolled TAP runner, on a pipe: 320 `ok N - …` lines "
    "with a few `WARN` lines on stderr, then the integration stage dies: `lua5.4: "
    "./src/tree.lua:23: attempt to get length of a nil value (field 'children')` and the `stack "
    "traceback:` with its [C] and file:line frames.",
    build=build_lua,
    must_keep=[
        "lua5.4: ./src/tree.lua:23: attempt to get length of a nil value (field 'children')",
        "stack traceback:",
        "run_tests.lua:22: in main chunk",
    ],
)

# ================================================================ rust


def rust_lib_body(n_fns=40):
    out = []
    for i in range(n_fns):
        out += ["/// Weight of item kind %d." % i,
                "pub fn weight_%02d(qty: u32) -> u64 {" % i,
                "    u64::from(qty) * %d + %d" % (i + 1, i), "}", ""]
    return out


def build_cargo_build_error(c, root, env, work):
    files = {"Cargo.toml": dedent('''
        [package]
        name = "orders-service"
        version = "0.4.2"
        edition = "2021"

        [dependencies]
        serde = { version = "1", features = ["derive"] }
        serde_json = "1"
        itoa = "1"
        memchr = "2"
    ''')}
    body = ["use serde::{Deserialize, Serialize};", "", "#[derive(Debug, Serialize, Deserialize)]",
            "pub struct Order {", "    pub id: u64,", "    pub customer: String,", "    pub cents: i64,", "}", ""]
    body += rust_lib_body(30)
    body += ["pub fn parse_order(text: &str) -> Result<Order, serde_json::Error> {",
             "    serde_json::from_str(text)", "}", "",
             "pub fn total_cents(orders: &[Order]) -> u64 {",
             "    let mut total = 0;",
             "    for o in orders {",
             "        total += o.cents;",
             "    }",
             "    total",
             "}", "",
             "pub fn describe(o: &Order) -> String {",
             "    let mut buf = itoa::Buffer::new();",
             "    format!(\"{}: {}\", o.customer, buf.format(o.cents))",
             "}", "",
             "pub fn find_sep(line: &[u8]) -> Option<usize> {",
             "    memchr::memchr(b';', line).or_else(|| fallback_sep(line))",
             "}", ""]
    files["src/lib.rs"] = "\n".join(body)
    write_tree(root, files)
    c["argv"] = ["cargo", "build", "-j1"]
    c["env"] = {"CARGO_TARGET_DIR": os.path.join(root, "target")}
    c["version_cmd"] = "cargo --version"


case(
    "cargo_build_error",
    tool="cargo build (rustc)",
    ecosystem="rust",
    tty=False,
    position="end",
    description="cargo build -j1 on a pipe of a crate with serde (derive), serde_json, itoa and "
    "memchr: `Compiling …` for each dependency (proc-macro2, quote, syn, serde_derive, …), then "
    "rustc's errors in src/lib.rs: E0308 mismatched types (an i64 total returned as u64) and E0425 "
    "(cannot find function `fallback_sep`), with code frames and `help:` notes, and `error: could "
    "not compile `orders-service``.",
    build=build_cargo_build_error,
    must_keep=[
        "error[E0308]: mismatched types",
        "expected `u64`, found `i64`",
        "error[E0425]: cannot find function `fallback_sep` in this scope",
        "error: could not compile `orders-service` (lib) due to 2 previous errors",
    ],
)


def build_clippy(c, root, env, work):
    files = {"Cargo.toml": '[package]\nname = "ledger-tools"\nversion = "1.2.0"\nedition = "2021"\n\n[dependencies]\n'}
    body = rust_lib_body(20)
    body += ["pub fn sum_all(v: &Vec<u64>) -> u64 {",
             "    let mut s = 0;",
             "    for i in 0..v.len() {",
             "        s += v[i];",
             "    }",
             "    return s;",
             "}", "",
             "pub fn names(list: &[String]) -> Vec<String> {",
             "    list.iter().map(|n| n.clone()).collect::<Vec<String>>().clone()",
             "}", "",
             "pub fn is_empty_name(name: &String) -> bool {",
             "    name.len() == 0",
             "}", ""]
    files["src/lib.rs"] = "\n".join(body)
    write_tree(root, files)
    c["argv"] = ["cargo", "clippy", "-j1", "--", "-D", "warnings"]
    c["env"] = {"CARGO_TARGET_DIR": os.path.join(root, "target")}
    c["version_cmd"] = "cargo clippy --version"


case(
    "cargo_clippy_deny",
    tool="cargo clippy",
    ecosystem="rust",
    tty=True,
    position="end",
    description="cargo clippy -- -D warnings in a terminal on a small crate: clippy's coloured "
    "lints turned into errors (identity_op, needless_return, ptr_arg, needless_range_loop, "
    "map_clone, len_zero), each behind cargo's `Building [ ] 0/1` progress line redrawn with CR "
    "and ESC[K, with code frames, `help:` suggestions and links, then `could not compile` and the "
    "error count.",
    build=build_clippy,
    must_keep=[
        ": unneeded `return` statement",
        ": the loop variable `i` is only used to index `v`",
        ": writing `&Vec` instead of `&[_]` involves a new object where a slice will do",
        ": length comparison to zero",
        ": could not compile `ledger-tools` (lib) due to 8 previous errors",
    ],
)


def build_cargo_nff(c, root, env, work):
    files = {"Cargo.toml": '[package]\nname = "inventory-core"\nversion = "0.9.0"\nedition = "2021"\n\n[dependencies]\nitoa = "1"\n'}
    body = rust_lib_body(20)
    body += ["pub fn reserve(stock: u32, qty: u32) -> Result<u32, String> {",
             "    if qty < stock { Ok(stock - qty) } else { Err(format!(\"out of stock: have {stock}, want {qty}\")) }",
             "}", "", "#[cfg(test)]", "mod tests {", "    use super::*;"]
    for i in range(60):
        body += ["    #[test]", "    fn weight_case_%02d() {" % i,
                 "        assert_eq!(weight_%02d(%d), %d);" % (i % 20, i, i * (i % 20 + 1) + i % 20), "    }"]
    body += ["}", ""]
    files["src/lib.rs"] = "\n".join(body)
    for t, n in (("api", 40), ("reserve", 40), ("snapshot", 120)):
        lines = ["use inventory_core::*;", ""]
        for i in range(n):
            if t == "reserve" and i == 23:
                lines += ["#[test]", "fn reserve_exact_stock() {",
                          "    let left = reserve(5, 5).expect(\"reserving the whole stock should work\");",
                          "    assert_eq!(left, 0);", "}", ""]
                continue
            lines += ["#[test]", "fn %s_%02d() {" % (t, i),
                      "    assert!(reserve(%d, %d).is_ok());" % (i + 10, i % 10), "}", ""]
        files["tests/%s.rs" % t] = "\n".join(lines)
    write_tree(root, files)
    c["argv"] = ["cargo", "test", "-j1", "--no-fail-fast"]
    c["env"] = {"CARGO_TARGET_DIR": os.path.join(root, "target")}
    c["version_cmd"] = "cargo --version"


case(
    "cargo_test_no_fail_fast",
    tool="cargo test",
    ecosystem="rust",
    tty=False,
    position="middle",
    description="cargo test -j1 --no-fail-fast on a pipe: a crate with 60 unit tests and three "
    "integration-test files (api and reserve of 40 tests, snapshot of 120); "
    "tests/reserve.rs::reserve_exact_stock panics (an expect() on `out of stock: have 5, want 5`), "
    "the snapshot tests and the doc-tests still run after it, and cargo ends with `error: 1 target failed:` / "
    "``--test reserve``.",
    build=build_cargo_nff,
    must_keep=[
        "test reserve_exact_stock ... FAILED",
        "panicked at tests/reserve.rs:120:30:",
        "reserving the whole stock should work: \"out of stock: have 5, want 5\"",
        "error: test failed, to rerun pass `--test reserve`",
        "error: 1 target failed:",
        "    `--test reserve`",
    ],
)


# ================================================================ java / scala


MAVEN_SETTINGS = dedent('''
    <settings>
      <localRepository>%s</localRepository>
      <mirrors>
        <mirror><id>debian</id><mirrorOf>*</mirrorOf><url>file:///usr/share/maven-repo</url></mirror>
      </mirrors>
      <profiles>
        <profile>
          <id>debian-repo</id>
          <repositories>
            <repository><id>central</id><url>file:///usr/share/maven-repo</url>
              <releases><checksumPolicy>ignore</checksumPolicy></releases></repository>
          </repositories>
          <pluginRepositories>
            <pluginRepository><id>central</id><url>file:///usr/share/maven-repo</url>
              <releases><checksumPolicy>ignore</checksumPolicy></releases></pluginRepository>
          </pluginRepositories>
        </profile>
      </profiles>
      <activeProfiles><activeProfile>debian-repo</activeProfile></activeProfiles>
    </settings>
''')


def java_project(root, pkg_dir="src/main/java/com/shop", test_dir="src/test/java/com/shop", classes=20, fails=(),
                 log_totals=False):
    files = {}
    for i in range(classes):
        cls = JS_MODULES[i % len(JS_MODULES)].capitalize() + ("" if i < len(JS_MODULES) else str(i))
        files["%s/%s.java" % (pkg_dir, cls)] = dedent('''
            package com.shop;

            import java.util.List;
            import java.util.logging.Logger;

            public final class %(cls)s {
                private static final Logger LOG = Logger.getLogger(%(cls)s.class.getName());

                public static double total(List<double[]> items) {
                    double t = 0;
                    for (double[] it : items) {
                        t += it[0] * it[1];
                    }
                    if (t > 1000) {
                        LOG.warning("large total " + t + " in %(cls)s");
                    }%(info)s
                    return t;
                }

                public static String label(int id) {
                    return String.format("%(low)s-%%04d", id);
                }
            }
        ''' % {"cls": cls, "low": cls.lower(),
               "info": "\n        LOG.info(\"total of \" + items.size() + \" items: \" + t);" if log_totals else ""})
        lines = ["package com.shop;", "", "import static org.junit.Assert.assertEquals;", "",
                 "import java.util.Arrays;", "import org.junit.Test;", "", "public class %sTest {" % cls]
        for k in range(15):
            if k % 2:
                exp = "%s-%04d" % (cls.lower(), k)
                if (cls, k) in fails:
                    exp = "%s-%d" % (cls.lower(), k)
                lines += ["    @Test", "    public void label%02d() {" % k,
                          "        assertEquals(\"%s\", %s.label(%d));" % (exp, cls, k), "    }", ""]
            else:
                items = [(j + 0.5, k % 3 + 1) for j in range(k % 4 + 1)]
                exp = sum(a * b for a, b in items)
                if (cls, k) in fails:
                    items = [(0.1, 1), (0.2, 1)]
                    exp = 0.3
                    lines += ["    @Test", "    public void totalOfCents%02d() {" % k,
                              "        assertEquals(%r, %s.total(Arrays.asList(%s)), 0.0);" % (
                                  exp, cls, ", ".join("new double[] {%r, %r}" % it for it in items)), "    }", ""]
                    continue
                if k == 12:
                    items = [(600.0, 2)]
                    exp = 1200.0
                lines += ["    @Test", "    public void total%02d() {" % k,
                          "        assertEquals(%r, %s.total(Arrays.asList(%s)), 1e-9);" % (
                              exp, cls, ", ".join("new double[] {%r, %r}" % it for it in items)), "    }", ""]
        lines += ["}", ""]
        files["%s/%sTest.java" % (test_dir, cls)] = "\n".join(lines)
    return files


def build_maven(c, root, env, work):
    files = java_project(root, classes=40, fails={("Discount", 4), ("Refund", 7)}, log_totals=True)
    files["pom.xml"] = dedent('''
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>com.shop</groupId>
          <artifactId>shop-core</artifactId>
          <version>3.2.0-SNAPSHOT</version>
          <properties>
            <maven.compiler.source>11</maven.compiler.source>
            <maven.compiler.target>11</maven.compiler.target>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
          </properties>
          <dependencies>
            <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
          </dependencies>
          <build>
            <plugins>
              <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.0</version></plugin>
              <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.10.1</version></plugin>
              <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.3</version></plugin>
            </plugins>
          </build>
        </project>
    ''')
    files["settings.xml"] = MAVEN_SETTINGS % os.path.join(root, "m2")
    write_tree(root, files)
    c["argv"] = ["mvn", "-B", "--no-transfer-progress", "-s", "settings.xml", "test"]
    c["version_cmd"] = "mvn -B -v 2>/dev/null | grep -o 'Apache Maven [0-9.]*'"


case(
    "maven_surefire_fail",
    tool="maven (surefire)",
    ecosystem="java",
    tty=False,
    position="middle",
    description="mvn -B --no-transfer-progress test on a pipe (Debian's Maven repository, "
    "file:///usr/share/maven-repo, standing in for Maven Central): the lifecycle lines, the "
    "compile, then surefire on 40 test classes whose code logs every total with "
    "java.util.logging (a date line and an `INFO:` line each, and harmless `WARNING: large total` "
    "ones): DiscountTest.totalOfCents04 and RefundTest.label07 fail (`<<< FAILURE!`, "
    "AssertionError / ComparisonFailure expected/but was); Results, `Tests run: 600, Failures: 2`, "
    "BUILD FAILURE and Maven's [ERROR] epilogue.",
    build=build_maven,
    must_keep=[
        "label07(com.shop.RefundTest)",
        "org.junit.ComparisonFailure: expected:<refund-[]7> but was:<refund-[000]7>",
        "java.lang.AssertionError: expected:<0.3> but was:<0.30000000000000004>",
        "[ERROR]   DiscountTest.totalOfCents04:31 expected:<0.3> but was:<0.30000000000000004>",
        "[ERROR] Tests run: 600, Failures: 2, Errors: 0, Skipped: 0",
        "There are test failures.",
    ],
)


def build_gradle(c, root, env, work):
    files = java_project(root, classes=18, fails={("Checkout", 9)})
    files["build.gradle"] = dedent('''
        apply plugin: 'java'

        sourceCompatibility = 11
        targetCompatibility = 11

        repositories {
            maven { url 'file:///usr/share/maven-repo' }
        }

        dependencies {
            testCompile 'junit:junit:4.13.2'
        }

        test {
            testLogging {
                events 'passed', 'failed'
                exceptionFormat 'full'
            }
        }
    ''')
    files["settings.gradle"] = "rootProject.name = 'shop-gradle'\n"
    write_tree(root, files)
    c["argv"] = ["gradle", "--offline", "--no-daemon", "--console=rich", "test"]
    c["env"] = {"GRADLE_USER_HOME": os.path.join(root, "gradle-home")}
    c["version_cmd"] = "gradle --version --offline 2>/dev/null | grep '^Gradle'"


case(
    "gradle_test_tty",
    tool="gradle",
    ecosystem="java",
    tty=True,
    position="near-end",
    description="gradle --console=rich test in a terminal (Gradle 4.4 from Debian, offline, JUnit "
    "from Debian's Maven repository): the rich console's progress area redrawn with cursor-up "
    "sequences, a `PASSED` line per test, CheckoutTest > label09 FAILED with the full "
    "ComparisonFailure, `270 tests completed, 1 failed`, then `FAILURE: Build failed with an "
    "exception.`, `Execution failed for task ':test'.` and the `* Try:` epilogue.",
    build=build_gradle,
    must_keep=[
        "com.shop.CheckoutTest > label09 ",
        "org.junit.ComparisonFailure: expected:<checkout-[]9> but was:<checkout-[000]9>",
        "270 tests completed, 1 failed",
        "Execution failed for task ':test'.",
        "There were failing tests.",
    ],
)


def build_scalac(c, root, env, work):
    files = {}
    for i, n in enumerate(JS_MODULES[:16]):
        cls = n.capitalize()
        src = dedent('''
            package shop

            final case class %(cls)sItem(sku: String, qty: Int, price: BigDecimal)

            object %(cls)s {
              def total(items: Seq[%(cls)sItem]): BigDecimal = items.map(i => i.price * i.qty).sum
              def label(id: Int): String = f"%(n)s-$id%%04d"
            }
        ''' % {"cls": cls, "n": n})
        if n == "delivery":
            src = src.replace("  def label(id: Int)", "  def etaDays(zone: String): Int = zone match {\n    case \"eu\" => 2\n    case \"us\" => \"five\"\n  }\n\n  def label(id: Int)")
        if n == "discount":
            src = src.replace("  def label(id: Int)", "  def apply(items: Seq[DiscountItem], pct: Int): BigDecimal = total(items) * (100 - pct) / 100 + shipping\n\n  def label(id: Int)")
        files["src/main/scala/shop/%s.scala" % cls] = src
    origin = make_origin(root, files, env)
    write(os.path.join(root, "ci.sh"), ci_env("scala-build") + "ORIGIN=%s\n" % origin + "set -e\n" + PREAMBLE + dedent('''
        echo "##[group]Compile"
        java -version
        scalac -version
        mkdir -p out
        scalac -deprecation -feature -d out src/main/scala/shop/*.scala
    '''))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = "scalac -version 2>&1"


case(
    "scalac_ci",
    tool="scalac",
    ecosystem="scala",
    tty=False,
    position="end",
    description="A CI build job on a pipe: banner, environment dump, git clone and checkout, java "
    "-version and scalac -version, then scalac (2.11, Debian) on 16 files: a type mismatch "
    "(found String(\"five\"), required Int) and `not found: value shipping`, each with its line "
    "and caret, and `two errors found`.",
    build=build_scalac,
    must_keep=[
        "src/main/scala/shop/Delivery.scala:9: error: type mismatch;",
        " found   : String(\"five\")",
        " required: Int",
        "src/main/scala/shop/Discount.scala:7: error: not found: value shipping",
        "two errors found",
    ],
)


# ================================================================ r


def build_r_check(c, root, env, work):
    pkg = os.path.join(root, "shopr")
    files = {"DESCRIPTION": dedent('''
        Package: shopr
        Type: Package
        Title: Order Totals for a Small Shop
        Version: 0.3.0
        Authors@R: person("Shop", "Team", email = "team@example.invalid", role = c("aut", "cre"))
        Description: Computes order totals and labels for a small shop, with tests.
        License: MIT + file LICENSE
        Encoding: UTF-8
        Suggests: testthat (>= 3.0.0)
        Config/testthat/edition: 3
    '''), "LICENSE": "YEAR: 2025\nCOPYRIGHT HOLDER: Shop Team\n",
        "NAMESPACE": "export(order_total)\nexport(order_label)\nexport(apply_discount)\n",
        "R/orders.R": dedent('''
            #' Total of an order
            #' @param price,qty numeric vectors
            order_total <- function(price, qty) sum(price * qty)

            order_label <- function(id) sprintf("order-%04d", id)

            apply_discount <- function(total, pct) {
              round(total * (1 - pct / 100), 1)
            }
        '''),
        "man/orders.Rd": dedent(r'''
            \name{order_total}
            \alias{order_total}
            \alias{order_label}
            \alias{apply_discount}
            \title{Order helpers}
            \usage{
            order_total(price, qty)
            order_label(id)
            apply_discount(total, pct)
            }
            \arguments{
            \item{price, qty}{numeric vectors}
            \item{id}{order number}
            \item{total}{a total}
            \item{pct}{a percentage}
            }
            \value{A number or a string.}
            \description{Helpers for orders.}
            \examples{
            order_total(c(1.5, 2), c(2, 3))
            order_label(7)
            apply_discount(100, 15)
            }
        '''),
        "tests/testthat.R": "library(testthat)\nlibrary(shopr)\n\ntest_check(\"shopr\")\n"}
    tests = []
    for k in range(60):
        tests += ['test_that("total %d", {' % k,
                  "  expect_equal(order_total(c(%d, 2), c(1, %d)), %d)" % (k, k % 5, k + 2 * (k % 5)), "})", ""]
        tests += ['test_that("label %d", {' % k, '  expect_equal(order_label(%d), "order-%04d")' % (k, k), "})", ""]
    tests += ['test_that("discount keeps cents", {', "  expect_equal(apply_discount(59.99, 10), 53.99)", "})", ""]
    files["tests/testthat/test-orders.R"] = "\n".join(tests)
    write_tree(pkg, files)
    write(os.path.join(root, "ci.sh"), dedent('''
        set -e
        R --version | head -n 1
        R CMD build --no-build-vignettes shopr
        _R_CHECK_FORCE_SUGGESTS_=false R CMD check --no-manual shopr_0.3.0.tar.gz
    '''))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = "R --version | head -n 1"


case(
    "r_cmd_check",
    tool="R CMD check (testthat)",
    ecosystem="r",
    tty=False,
    position="near-end",
    description="R CMD build and R CMD check --no-manual of a small package on a pipe: the `* "
    "checking …` lines (with a harmless warning that the CRAN index cannot be reached), then `* checking tests ...` → `Running "
    "‘testthat.R’` ERROR, `Running the tests in ‘tests/testthat.R’ failed.` and the last lines "
    "of testthat's output (`── Failure (test-orders.R:…): discount keeps cents ──`, "
    "`apply_discount(59.99, 10)` (`actual`) not equal to 53.99 (`expected`), `[ FAIL 1 | … ]`), "
    "then `Status: 1 ERROR`.",
    build=build_r_check,
    must_keep=[
        "Running the tests in ‘tests/testthat.R’ failed.",
        "── Failure ('test-orders.R:482'): discount keeps cents",
        "apply_discount(59.99, 10) (`actual`) not equal to 53.99 (`expected`).",
        "Status: 1 ERROR",
    ],
)


# ================================================================ shell


def build_shellcheck(c, root, env, work):
    files = {}
    for i in range(18):
        files["scripts/task_%02d.sh" % i] = dedent('''
            #!/bin/bash
            set -euo pipefail
            # task %d: copy the build output
            src="build/out_%d"
            dest="${DEST_DIR:-/srv/app}"
            mkdir -p "$dest"
            cp -r "$src"/. "$dest"/
            echo "task %d done"
        ''' % (i, i, i))
    files["scripts/deploy.sh"] = dedent('''
        #!/bin/bash
        TARGET=$1
        rm -rf $TARGET/*
        for f in $(ls build/*.tar.gz); do
          tar xzf $f -C "$TARGET"
        done
        cd releases
        echo "deployed to $TARGET" > status.txt
    ''')
    files["scripts/backup.sh"] = dedent('''
        #!/bin/sh
        source ./config.env
        if [ $COUNT == 0 ]; then
          echo "nothing to back up"
        fi
        echo "Backing up `date`"
        read name
        [[ -n "$name" ]] && echo "$name"
    ''')
    write_tree(root, files)
    c["argv"] = ["bash", "-c", "shellcheck --version && shellcheck -x scripts/*.sh"]
    c["version_cmd"] = "echo ShellCheck $(shellcheck --version | sed -n 's/^version: //p')"


case(
    "shellcheck_scripts",
    tool="shellcheck",
    ecosystem="shell",
    tty=False,
    position="middle",
    description="shellcheck on 20 scripts on a pipe (18 clean, which print nothing): for backup.sh and deploy.sh the "
    "`In scripts/x.sh line N:` blocks with carets and SC codes (SC2115 rm -rf $VAR/*, SC2045 "
    "iterating over ls, SC2164 cd without ||, SC3046 source in sh, SC3014 == in test, …), then "
    "the `For more information:` list of wiki links.",
    build=build_shellcheck,
    must_keep=[
        "In scripts/deploy.sh line 4:",
        "SC2045 (error): Iterating over ls output is fragile. Use globs.",
        "SC2115 (warning): Use \"${var:?}\" to ensure this never expands to /* .",
        "SC2164 (warning): Use 'cd ... || exit' or 'cd ... || return' in case cd fails.",
        "SC3046 (warning): In POSIX sh, 'source' in place of '.' is undefined.",
        "SC3014 (warning): In POSIX sh, == in place of = is undefined.",
    ],
)


def build_bash_set_ex(c, root, env, work):
    files = {"Makefile": "all:\n\tmkdir -p build\n\tfor i in $$(seq 1 40); do echo \"object $$i\" > build/obj_$$i.o; done\n",
             "VERSION": "1.4.2\n", "README.md": "# app\n"}
    for i in range(30):
        files["src/mod_%02d.c" % i] = "int mod_%02d(void) { return %d; }\n" % (i, i)
    origin = make_origin(root, files, env)
    write(os.path.join(root, "ci.sh"), ci_env("package") + "ORIGIN=%s\n" % origin + "set -e\n" + PREAMBLE + dedent('''
        echo "##[group]Fetch build dependencies"
        mkdir -p debs && cd debs
        apt-get download jq libjq1 libonig5 zstd xz-utils bzip2 file libmagic1 libmagic-mgc pigz
        ls -l | sed 's/  */ /g'
        cd ..
        echo "##[endgroup]"
        cleanup() {
          rc=$?
          echo "##[group]Cleanup (exit $rc)"
          rm -rf staging
          du -sh build debs 2>/dev/null || true
          echo "##[endgroup]"
        }
        trap cleanup EXIT
        set -x
        version=$(cat VERSION)
        make
        mkdir -p staging/app-$version/lib
        for o in build/*.o; do
          cp "$o" staging/app-$version/lib/
        done
        sha256sum staging/app-$version/lib/*.o > staging/app-$version/SHA256SUMS
        cp build/app-$version.jar staging/app-$version/
        tar czf dist/app-$version.tar.gz -C staging app-$version
        echo "packaged app-$version"
    '''))
    c["argv"] = ["bash", "ci.sh"]
    c["version_cmd"] = "bash --version | head -n 1"


case(
    "bash_set_ex_ci",
    tool="bash",
    ecosystem="shell",
    tty=False,
    position="near-end",
    description="A CI packaging job (bash, set -e, then set -x) on a pipe: banner, environment "
    "dump, git clone and checkout, a real apt-get download of 10 .deb files (`Get:N …` lines), "
    "then the traced packaging steps (make, 40 cp lines, "
    "sha256sum) until `cp build/app-1.4.2.jar …` fails with `cannot stat`; set -e stops the "
    "script and the EXIT trap prints its traced cleanup after the error.",
    build=build_bash_set_ex,
    must_keep=[
        "+ cp build/app-1.4.2.jar staging/app-1.4.2/",
        "cp: cannot stat 'build/app-1.4.2.jar': No such file or directory",
    ],
)


def build_php_lint(c, root, env, work):
    files = {}
    for i, n in enumerate(JS_MODULES):
        cls = n.capitalize()
        src = "<?php\ndeclare(strict_types=1);\n\nnamespace App;\n\nfinal class %s\n{\n    public function label(int $id): string\n    {\n        return sprintf('%s-%%04d', $id);\n    }\n}\n" % (cls, n)
        if n == "loyalty":
            src = src.replace("        return sprintf(", "        $points = match ($id % 3) {\n            0 => 10,\n            1 => 20\n            2 => 30,\n        };\n        return sprintf(")
        files["src/%s.php" % cls] = src
    write_tree(root, files)
    c["argv"] = ["bash", "-c", "php --version | head -n 1; status=0; for f in src/*.php; do php -l \"$f\" || status=1; done; exit $status"]
    c["version_cmd"] = "php --version | head -n 1"


case(
    "php_lint_loop",
    tool="php -l",
    ecosystem="php",
    tty=False,
    position="middle",
    description="A lint loop on a pipe running php -l on 25 classes: `No syntax errors detected in "
    "src/X.php` for each, and in the middle `PHP Parse error:  syntax error, unexpected integer "
    "\"2\", expecting \"}\" in src/Loyalty.php on line 13` (a match arm without its comma) and "
    "`Errors parsing src/Loyalty.php`.",
    build=build_php_lint,
    must_keep=[
        "PHP Parse error:  syntax error, unexpected integer \"2\", expecting \"}\" in src/Loyalty.php on line 13",
        "Errors parsing src/Loyalty.php",
    ],
)


# ================================================================ main


def version_of(c, work, env):
    cmd = c.get("version_cmd") or c.get("version")
    if not cmd:
        return ""
    cmd = cmd.replace("{py}", os.path.join(work, "pyvenv", "bin", "python"))
    try:
        out = run_setup(cmd, c.get("cwd") or work, env)
    except Exception as e:  # noqa: BLE001
        return "unknown (%s)" % e
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    return " ".join(lines[: c.get("version_lines", 1)])


def entry(c, data, old=None, rc=None, command=None, cwd=None, version=None):
    st = R.stats(data)
    e = {
        "file": "logs/%s.log" % c["name"],
        "description": c["description"],
        "command": command if command is not None else old["command"],
        "cwd": cwd if cwd is not None else old["cwd"],
        "tty": c["tty"],
        "tool": c["tool"],
        "version": version if version is not None else old["version"],
        "ecosystem": c["ecosystem"],
        "exit_status": rc if rc is not None else old["exit_status"],
        "bytes": len(data),
        "lines": data.count(b"\n"),
        "line_endings": R.line_endings(data),
        "invalid_utf8": not R.is_utf8(data),
        "failure_position": c["position"],
        "must_keep": c["must_keep"],
        "progress": dict(st, has_cr_redraws=st["cr_redraws"] > 0, has_ansi=st["esc_bytes"] > 0),
    }
    return e


def load_manifest():
    with open(MANIFEST) as f:
        return json.load(f)


def save_manifest(manifest):
    manifest["logs"] = dict(sorted(manifest["logs"].items()))
    with open(MANIFEST, "w") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")


def check_labels(c, data):
    missing = [s for s in c["must_keep"] if s.encode() not in data]
    if not c["must_keep"]:
        sys.stderr.write("  NOTE: %s has no must_keep yet\n" % c["name"])
    if missing:
        sys.stderr.write("  WARNING: must_keep not found in %s: %r\n" % (c["name"], missing))


def relabel(names):
    manifest = load_manifest()
    for name in names:
        c = CASES[name]
        path = os.path.join(LOGS, name + ".log")
        if name not in manifest["logs"] or not os.path.exists(path):
            sys.stderr.write("%s: not recorded yet\n" % name)
            continue
        with open(path, "rb") as f:
            data = f.read()
        check_labels(c, data)
        manifest["logs"][name] = entry(c, data, old=manifest["logs"][name])
    save_manifest(manifest)


def record(names, workdir=None):
    os.nice(19) if os.nice(0) < 19 else None
    work = workdir or tempfile.mkdtemp(prefix="dory-tools-")
    os.makedirs(work, exist_ok=True)
    work = os.path.realpath(work)
    env = base_env(work)
    scrub = ToolScrubber(work, env)
    manifest = load_manifest()
    try:
        for name in names:
            c = CASES[name]
            sys.stderr.write("== %s\n" % name)
            root = os.path.join(work, name)
            shutil.rmtree(root, ignore_errors=True)
            os.makedirs(root)
            c["cwd"] = root
            c["build"](c, root, env, work)
            runner = R.run_tty if c["tty"] else R.run_pipe
            cenv = dict(env, **c.get("env", {}))
            rc, data = runner(c["argv"], c["cwd"], cenv, timeout=c.get("timeout", 1800))
            data = scrub(data)
            with open(os.path.join(LOGS, name + ".log"), "wb") as f:
                f.write(data)
            check_labels(c, data)
            version = scrub(version_of(c, work, cenv).encode()).decode()
            manifest["logs"][name] = entry(
                c, data, rc=rc, command=R.shown(c["argv"], scrub),
                cwd=scrub(c["cwd"].encode()).decode(), version=version,
            )
            save_manifest(manifest)
            sys.stderr.write("  exit %s, %d bytes, %d lines\n" % (rc, len(data), data.count(b"\n")))
    finally:
        if not workdir:
            shutil.rmtree(work, ignore_errors=True)


def main(argv):
    workdir = None
    if "--workdir" in argv:
        i = argv.index("--workdir")
        workdir = argv[i + 1]
        del argv[i : i + 2]
    if "--list" in argv:
        for n, c in CASES.items():
            print("%-28s %-10s %s" % (n, c["ecosystem"], c["tool"]))
        return 0
    if "--versions" in argv:
        # re-ask the versions of recorded cases (needs the --workdir they were recorded in)
        names = [a for a in argv if not a.startswith("--")] or list(CASES)
        work = os.path.realpath(workdir)
        env = base_env(work)
        scrub = ToolScrubber(work, env)
        manifest = load_manifest()
        for name in names:
            c = CASES[name]
            c["cwd"] = os.path.join(work, name)
            os.makedirs(c["cwd"], exist_ok=True)
            c["build"](c, c["cwd"], env, work)  # sets version_cmd (and rewrites the project files)
            manifest["logs"][name]["version"] = scrub(version_of(c, work, dict(env, **c.get("env", {}))).encode()).decode()
        save_manifest(manifest)
        return 0
    if "--relabel" in argv:
        names = [a for a in argv if not a.startswith("--")] or list(CASES)
        relabel(names)
        return 0
    names = list(CASES) if "--all" in argv else [a for a in argv if not a.startswith("--")]
    unknown = [n for n in names if n not in CASES]
    if unknown or not names:
        sys.stderr.write("unknown or no case: %r (see --list)\n" % unknown)
        return 2
    record(names, workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
