#!/usr/bin/env python3
"""Check tests/corpus: manifest.json against logs/*.log (python3 stdlib only).

    python3 tests/corpus/check_corpus.py      # exits 1 and lists the problems

Checks: every manifest entry has its log, and every log is in the manifest;
every must_keep substring occurs in its log; the recorded byte count, exit
status type, UTF-8 validity and progress counts (CRs not before LF, CR
redraws, ESC bytes, in-place ANSI redraws) hold; no log, nor record.py, names a
path outside the project (/work/, /tmp/, /root/, /home/<someone> other than the
neutral /home/user) or this machine's hostname; every URL host in a log is a
scrubbed *.invalid one; each log is under 2 MB.
"""
import json
import os
import re
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_BYTES = 2 * 1024 * 1024
FORBIDDEN = [b"/work/", b"/tmp/", b"/root/"]


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
            problems.append("%s names %r" % (label, bad.decode()))
    for m in re.finditer(rb"/home/([A-Za-z0-9_.-]+)", data):
        if m.group(1) != b"user":
            problems.append("%s names /home/%s" % (label, m.group(1).decode("utf-8", "replace")))
            break
    if host_re is not None:
        m = host_re.search(data)
        if m:
            problems.append("%s contains the hostname %r at byte %d"
                            % (label, m.group(0).decode("utf-8", "replace"), m.start()))


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
        where = "%s:" % name
        for key in ("file", "command", "tool", "version", "exit_status", "must_keep", "progress"):
            if key not in e:
                problems.append("%s no %r in the manifest" % (where, key))
        rel = e.get("file", "logs/%s.log" % name)
        listed.add(os.path.normpath(rel))
        path = os.path.join(HERE, rel)
        if not os.path.isfile(path):
            problems.append("%s log %s is missing" % (where, rel))
            continue
        with open(path, "rb") as f:
            data = f.read()
        if len(data) == 0:
            problems.append("%s %s is empty" % (where, rel))
        if len(data) > MAX_BYTES:
            problems.append("%s %s is %d bytes (> 2 MB)" % (where, rel, len(data)))
        if "bytes" in e and e["bytes"] != len(data):
            problems.append("%s manifest says %d bytes, log has %d" % (where, e["bytes"], len(data)))
        if not isinstance(e.get("exit_status"), int):
            problems.append("%s exit_status is not an integer" % where)
        must = e.get("must_keep") or []
        if not must:
            problems.append("%s must_keep is empty" % where)
        for s in must:
            if s.encode("utf-8") not in data:
                problems.append("%s must_keep substring not in the log: %r" % (where, s))
        got = stats(data)
        prog = e.get("progress", {})
        for key, value in got.items():
            if key in prog and prog[key] != value:
                problems.append("%s progress %s: manifest says %r, log has %r"
                                % (where, key, prog[key], value))
        if "has_cr_redraws" in prog and prog["has_cr_redraws"] != (got["cr_redraws"] > 0):
            problems.append("%s has_cr_redraws is %r but the log has %d CR redraws"
                            % (where, prog["has_cr_redraws"], got["cr_redraws"]))
        if "has_ansi" in prog and prog["has_ansi"] != (got["esc_bytes"] > 0):
            problems.append("%s has_ansi is %r but the log has %d ESC bytes"
                            % (where, prog["has_ansi"], got["esc_bytes"]))
        if "invalid_utf8" in e:
            try:
                data.decode("utf-8")
                bad = False
            except UnicodeDecodeError:
                bad = True
            if e["invalid_utf8"] != bad:
                problems.append("%s invalid_utf8 is %r but the log %s valid UTF-8"
                                % (where, e["invalid_utf8"], "is not" if bad else "is"))
        check_private(rel, data, host_re, problems)
        for m in re.finditer(rb"[a-z][a-z0-9+.-]*://([A-Za-z0-9.-]+)", data):
            host = m.group(1).decode()
            if not host.endswith(".invalid"):
                problems.append("%s URL host %r is not scrubbed to a .invalid one" % (where, host))
                break
    logs_dir = os.path.join(HERE, "logs")
    for fn in sorted(os.listdir(logs_dir)) if os.path.isdir(logs_dir) else []:
        rel = os.path.normpath(os.path.join("logs", fn))
        if rel not in listed:
            problems.append("%s is not in manifest.json" % rel)
    for fn in ("record.py", "manifest.json"):
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
