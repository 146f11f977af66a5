"""One call for agents: run a noisy command, hand the model a bounded result,
keep the rest, and read a hidden line back from the spill.

The command prints a 20,000-line build log (about 1 MB) on stdout, warnings
on stderr, one line that matters in the middle of stdout and an error on
stderr before stdout goes on. `computer.run` follows it through whatever the
connection does, bounds stdout, stderr and both combined to 60 lines / 4 KiB,
and saves each view in full as it streams. Against a server that cuts
responses, the result is the same as against a clean one.

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
    assert "FATAL" not in combined.text, "the line that matters is hidden in the middle"

    # The notice names the spill and the lines hidden: recover the line from it.
    notice = next(
        line
        for line in combined.text.splitlines()
        if line.startswith("[... ") and "omitted" in line
    )
    first, last = map(int, re.search(r"sed -n '(\d+),(\d+)p'", notice).groups())
    lines = Path(combined.spill_path).read_bytes().splitlines()[first - 1 : last]
    hidden = [line.decode() for line in lines if line.startswith(b"FATAL")]
    print(f"recovered from {combined.spill_path} (lines {first}-{last}):")
    print(f"  {hidden[0]}")
    assert hidden == ["FATAL: checksum mismatch in shard 7431 (expected 9f2c, got 11e0)"]
    return 0


if __name__ == "__main__":
    sys.exit(main())
