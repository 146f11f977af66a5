"""Runs the README's Python component example as written, in the folder of
the built component, and checks that it prints the line the README shows
under it (`# ...`). Used by scripts/test-component.sh.

    python readme_example.py README.md target/component
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path


def main() -> int:
    readme, folder = Path(sys.argv[1]), Path(sys.argv[2])
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme.read_text(), flags=re.S) if "dory:wire/" in b]
    if len(blocks) != 1:
        print(f"readme example: expected one component example, found {len(blocks)}")
        return 1
    code = blocks[0]
    expected = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    out = io.StringIO()
    os.chdir(folder)
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(readme), "exec"), {"__name__": "__readme__"})
    printed = out.getvalue().splitlines()
    if printed != expected:
        print(f"readme example: printed {printed!r}, the README shows {expected!r}")
        return 1
    print("readme example: 1 passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
