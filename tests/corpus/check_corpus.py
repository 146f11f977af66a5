#!/usr/bin/env python3
"""Check tests/corpus: manifest.json against logs/*.log (python3 stdlib only).

    python3 tests/corpus/check_corpus.py      # exits 1 and lists the problems

Checks: every manifest entry has its log, and every log is in the manifest;
every entry names its ecosystem and a failure_position (end, near-end, middle
or start); every must_keep substring occurs in its log; the recorded byte
count, exit status type, UTF-8 validity and progress counts (CRs not before
LF, CR redraws, ESC bytes, in-place ANSI redraws) hold; no log, nor
record.py, record_tools.py or manifest.json, names a path outside the project
(the recording machine's work directory, /tmp/, /root/, /home/<someone> other
than the neutral /home/user) or this machine's hostname; every URL host in a
log is a scrubbed *.invalid one; each log is under 2 MB.
"""

import json
import os
import re
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_BYTES = 2 * 1024 * 1024
# The work directory is spelt in two parts: the repository must not name it.
FORBIDDEN = [b"/" + b"work/", b"/tmp/", b"/root/"]
POSITIONS = ("end", "near-end", "middle", "start")


def stats(data):
    # the same definitions as record.py's stats()
    return {
        "cr_not_before_lf": len(re.findall(rb"\r(?!\n)", data)),
        "cr_redraws": len(re.findall(rb"\r+(?=[^\r\n])", data)),
        "esc_bytes": data.count(b"\x1b"),
        "ansi_redraws": len(re.findall(rb"\x1b\[[0-9;]*[GKA]", data)),
    }


def hostname_re():
    names = {socket.gethostname(), socket.gethostname().split(".")[0]}
    names = {n for n in names if n and n != "localhost"}
    if not names:
        return None
    # as a word: a short hostname ("vm") may be part of other words
    alt = b"|".join(re.escape(n.encode()) for n in sorted(names, key=len, reverse=True))
    return re.compile(rb"(?<![A-Za-z0-9_.-])(?:" + alt + rb")(?![A-Za-z0-9_-])")


def check_private(label, data, host_re, problems):
    for bad in FORBIDDEN:
        if bad in data:
            problems.append(f"{label} names {bad.decode()!r}")
    for m in re.finditer(rb"/home/([A-Za-z0-9_.-]+)", data):
        if m.group(1) != b"user":
            problems.append("{} names /home/{}".format(label, m.group(1).decode("utf-8", "replace")))
            break
    if host_re is not None:
        m = host_re.search(data)
        if m:
            problems.append(
                "%s contains the hostname %r at byte %d" % (label, m.group(0).decode("utf-8", "replace"), m.start())
            )


def main():
    problems = []
    with open(os.path.join(HERE, "manifest.json")) as f:
        manifest = json.load(f)
    entries = manifest.get("logs")
    if not isinstance(entries, dict) or not entries:
        print("manifest.json: no logs")
        return 1
    host_re = hostname_re()
    listed = set()
    for name, e in sorted(entries.items()):
        where = f"{name}:"
        for key in ("file", "command", "tool", "version", "exit_status", "must_keep", "progress", "ecosystem",
                    "failure_position"):
            if key not in e:
                problems.append(f"{where} no {key!r} in the manifest")
        if "ecosystem" in e and not (isinstance(e["ecosystem"], str) and re.fullmatch(r"[a-z][a-z0-9+-]*", e["ecosystem"])):
            problems.append(f"{where} ecosystem {e['ecosystem']!r} is not a lower-case name")
        if "failure_position" in e and e["failure_position"] not in POSITIONS:
            problems.append(f"{where} failure_position {e['failure_position']!r} is not one of {', '.join(POSITIONS)}")
        rel = e.get("file", f"logs/{name}.log")
        listed.add(os.path.normpath(rel))
        path = os.path.join(HERE, rel)
        if not os.path.isfile(path):
            problems.append(f"{where} log {rel} is missing")
            continue
        with open(path, "rb") as f:
            data = f.read()
        if len(data) == 0:
            problems.append(f"{where} {rel} is empty")
        if len(data) > MAX_BYTES:
            problems.append("%s %s is %d bytes (> 2 MB)" % (where, rel, len(data)))
        if "bytes" in e and e["bytes"] != len(data):
            problems.append("%s manifest says %d bytes, log has %d" % (where, e["bytes"], len(data)))
        if not isinstance(e.get("exit_status"), int):
            problems.append(f"{where} exit_status is not an integer")
        must = e.get("must_keep") or []
        if not must:
            problems.append(f"{where} must_keep is empty")
        for s in must:
            if not isinstance(s, str) or not s.strip():
                problems.append(f"{where} must_keep has an empty or non-string entry: {s!r}")
            elif s.encode("utf-8") not in data:
                problems.append(f"{where} must_keep substring not in the log: {s!r}")
        got = stats(data)
        prog = e.get("progress", {})
        for key, value in got.items():
            if key in prog and prog[key] != value:
                problems.append(f"{where} progress {key}: manifest says {prog[key]!r}, log has {value!r}")
        if "has_cr_redraws" in prog and prog["has_cr_redraws"] != (got["cr_redraws"] > 0):
            problems.append(
                "%s has_cr_redraws is %r but the log has %d CR redraws"
                % (where, prog["has_cr_redraws"], got["cr_redraws"])
            )
        if "has_ansi" in prog and prog["has_ansi"] != (got["esc_bytes"] > 0):
            problems.append(
                "%s has_ansi is %r but the log has %d ESC bytes" % (where, prog["has_ansi"], got["esc_bytes"])
            )
        if "invalid_utf8" in e:
            try:
                data.decode("utf-8")
                bad = False
            except UnicodeDecodeError:
                bad = True
            if e["invalid_utf8"] != bad:
                problems.append(
                    "{} invalid_utf8 is {!r} but the log {} valid UTF-8".format(where, e["invalid_utf8"], "is not" if bad else "is")
                )
        check_private(rel, data, host_re, problems)
        for m in re.finditer(rb"[a-z][a-z0-9+.-]*://([A-Za-z0-9.-]+)", data):
            host = m.group(1).decode()
            if not host.endswith(".invalid"):
                problems.append(f"{where} URL host {host!r} is not scrubbed to a .invalid one")
                break
    logs_dir = os.path.join(HERE, "logs")
    for fn in sorted(os.listdir(logs_dir)) if os.path.isdir(logs_dir) else []:
        rel = os.path.normpath(os.path.join("logs", fn))
        if rel not in listed:
            problems.append(f"{rel} is not in manifest.json")
    for fn in ("record.py", "record_tools.py", "manifest.json"):
        path = os.path.join(HERE, fn)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                check_private(fn, f.read(), host_re, problems)
    if problems:
        for p in problems:
            print("check_corpus: " + p)
        print("check_corpus: %d problem(s)" % len(problems))
        return 1
    print("check_corpus: %d logs OK" % len(entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
