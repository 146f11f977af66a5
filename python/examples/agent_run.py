"""One call for agents: run a noisy command, hand the model a bounded result,
keep the rest, and find the line that matters by its line number.

The command prints a 20,000-line build log (about 1 MB) on stdout, warnings
on stderr, one line that matters in the middle of stdout and an error on
stderr before stdout goes on. `computer.run` follows it through whatever the
connection does, bounds stdout, stderr and both combined to 60 lines / 4 KiB,
and saves each view in full as it streams. The failing line from the middle
is kept (the default keep patterns know `FATAL: `), with its line number in
the saved output. Against a server that cuts responses, the result is the
same as against a clean one.

    DORY_URL=http://127.0.0.1:8080 python agent_run.py [SPILL_DIR]
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from dory_wire.client import Client, SpillDirectory

COMMAND = r"""awk 'BEGIN {
  for (i = 1; i <= 20000; i++) {
    printf "[%05d] compiling module_%d.c ... ok\n", i, i
    if (i % 2500 == 0 && i < 15000)
      printf "warning: module_%d.c: unused variable\n", i > "/dev/stderr"
    if (i == 12345) print "FATAL: checksum mismatch in shard 7431 (expected 9f2c, got 11e0)"
    if (i == 15000) printf "error: 1 module failed to build\n" > "/dev/stderr"
  }
}'"""


def main() -> int:
    spill_dir = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="dory-spill-"))
    )
    reconnects = 0

    def on_reconnect(record: object) -> None:
        nonlocal reconnects
        reconnects += 1

    with Client() as client:
        computer = client.computers.get("demo")
        result = computer.run(
            COMMAND,
            max_lines=60,
            max_bytes=4096,
            spill=SpillDirectory(spill_dir),
            hint="read the full output with sed",
            on_reconnect=on_reconnect,
        )
    combined = result.combined
    print(
        f"exit {result.exit_code}, {combined.total_bytes} bytes in {combined.total_lines} lines, "
        f"followed through {reconnects} reconnects; "
        f"the model sees {len(combined.text.encode())} bytes:"
    )
    print("-" * 72)
    print(combined.text, end="")
    print("-" * 72)
    assert len(combined.text.encode()) <= 4096
    assert combined.truncated
    assert "error: 1 module failed to build" in combined.text, (
        "stderr's end is kept in the combined view"
    )
    # The notices are listed apart (combined.notices); the last line says how
    # the process ended (kind "end").
    kinds = [notice.kind for notice in combined.notices]
    assert kinds == ["omitted", "kept", "stderr", "end"], kinds
    assert combined.text.endswith(f"[... exit code {result.exit_code} ...]\n"), combined.text
    # The line that matters, from the omitted middle, kept as `N:line` after
    # the notice.
    kept = re.search(r"^(\d+):(FATAL: .*)$", combined.text, re.M)
    assert kept, "the failing line from the middle is kept"
    number, line = int(kept.group(1)), kept.group(2)
    # N is the line's number in the saved output: sed -n 'Np' finds it there.
    saved = Path(combined.spill_path).read_bytes().splitlines()[number - 1].decode()
    print(f"kept from the middle: line {number}; line {number} of {combined.spill_path}:")
    print(f"  {saved}")
    assert saved == line == "FATAL: checksum mismatch in shard 7431 (expected 9f2c, got 11e0)"
    return 0


if __name__ == "__main__":
    sys.exit(main())
