# Sourced by scripts/test-rust.sh and scripts/check.sh before cargo builds
# or lints the pyo3 binding (bindings/python, a workspace member): the
# interpreter settings `maturin develop` gives pyo3's build script
# (PYO3_PYTHON, PYO3_ENVIRONMENT_SIGNATURE), when .venv exists. pyo3 reruns
# its build script, and recompiles itself and the binding, whenever these
# (or, without them, PATH) differ from the last build's; with the same values
# clippy and maturin share one build of pyo3 instead of replacing each
# other's (about 25 s each time on 2 cores).
pyo3_env() {
    local root venv_python
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv_python="$root/.venv/bin/python"
    [[ -x "$venv_python" ]] || return 0
    export PYO3_PYTHON="$venv_python"
    PYO3_ENVIRONMENT_SIGNATURE="$("$venv_python" -c 'import platform, struct, sys; print("%s-%d.%d-%dbit" % (platform.python_implementation().lower(), sys.version_info[0], sys.version_info[1], struct.calcsize("P") * 8))')"
    export PYO3_ENVIRONMENT_SIGNATURE
}
pyo3_env
