"""One version for the three packages.

The single source of truth is `[workspace.package] version` in the root
Cargo.toml. The crates inherit it (`version.workspace = true`), the Python
package takes it from the binding crate (pyproject's `dynamic = ["version"]`,
filled in by maturin), and npm/package.json must repeat it because npm has no
way to read it. This check fails when any of them disagree, and when
CHANGELOG.md has no section for the version (or `Unreleased`).
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    errors: list[str] = []
    workspace = tomllib.loads((ROOT / "Cargo.toml").read_text())
    version = workspace["workspace"]["package"]["version"]

    for manifest in sorted(ROOT.glob("crates/*/Cargo.toml")) + sorted(
        ROOT.glob("bindings/*/Cargo.toml")
    ):
        parsed = tomllib.loads(manifest.read_text())
        package = parsed["package"]
        if package.get("version") != {"workspace": True}:
            errors.append(f"{manifest.relative_to(ROOT)}: version must be `version.workspace = true`")
        # A published crate's path dependency on a sibling names that sibling's version.
        core = parsed.get("dependencies", {}).get("dory-wire")
        if isinstance(core, dict) and "path" in core and package.get("publish", True) is not False:
            if core.get("version") != version:
                errors.append(
                    f"{manifest.relative_to(ROOT)}: dory-wire dependency version "
                    f"{core.get('version')!r}, Cargo.toml says {version!r}"
                )

    pyproject = tomllib.loads((ROOT / "python/pyproject.toml").read_text())
    if "version" in pyproject["project"] or "version" not in pyproject["project"].get("dynamic", []):
        errors.append("python/pyproject.toml: the version must be dynamic (taken from Cargo by maturin)")

    for path in ("npm/package.json", "npm/package-lock.json"):
        file = ROOT / path
        if not file.exists():
            continue
        data = json.loads(file.read_text())
        found = data.get("version")
        if found != version:
            errors.append(f"{path}: version {found!r}, Cargo.toml says {version!r}")
        root_entry = data.get("packages", {}).get("", {})
        if root_entry and root_entry.get("version") != version:
            errors.append(f"{path}: packages[''].version {root_entry.get('version')!r}, expected {version!r}")

    changelog_path = ROOT / "CHANGELOG.md"
    changelog = changelog_path.read_text() if changelog_path.exists() else ""
    if not re.search(rf"^## \[({re.escape(version)}|Unreleased)\]", changelog, re.M):
        errors.append(f"CHANGELOG.md: no '## [{version}]' or '## [Unreleased]' section")

    for line in errors:
        print(f"check_versions: {line}", file=sys.stderr)
    if not errors:
        print(f"check_versions: Cargo, pyproject and package.json agree on {version}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
