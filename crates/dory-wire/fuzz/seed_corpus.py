#!/usr/bin/env python3
"""Seed the fuzz corpora from the shared vectors (tests/vectors/**/*.json).

Writes `corpus/<target>/seed-<hash>` files in the input layouts documented in
`src/reader.rs`, `src/document.rs` and `src/preview.rs` (a fixed header, then
the body or preview input). Idempotent: a seed's name is the hash of its
content, so running it again adds nothing. Standard library only.

Usage: seed_corpus.py <vectors-dir> <corpus-dir>
"""

import base64
import hashlib
import json
import pathlib
import struct
import sys

# Keep in step with src/reader.rs.
ENDPOINTS = ["exec", "process_output", "setup_logs", "document"]
STATUSES = [200, 201, 204, 206, 299, 400, 404, 409, 410, 500, 502, 503, 100, 301, 199, 300]
CONTENT_TYPES = [
    "application/x-ndjson",
    "application/json",
    "application/x-ndjson; charset=utf-8",
    "Application/JSON ; charset=UTF-8",
    " application/x-ndjson ",
    "text/plain",
    "",
    "text/html",
    "application/jsonl",
    "application/x-ndjson;",
    ";application/json",
    "APPLICATION/X-NDJSON",
]
PROCESS_IDS = [None, "p_1", "p_2", ""]
# Keep in step with src/document.rs.
DOC_STATUSES = [200, 201, 400, 404, 409, 410, 422, 500, 503, 299]
DOC_CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/x-ndjson",
    "text/html",
]
U32 = 0xFFFFFFFF
U64 = 0xFFFFFFFFFFFFFFFF


def body_of(vector, key="body"):
    if key + "_b64" in vector:
        return base64.b64decode(vector[key + "_b64"])
    return vector.get(key, "").encode("utf-8")


def content_type_index(table, content_type):
    if content_type in table:
        return table.index(content_type)
    media = (content_type or "").split(";")[0].strip().lower()
    for i, candidate in enumerate(table):
        if candidate.split(";")[0].strip().lower() == media:
            return i
    return table.index("text/plain")


def offset_field(value):
    """(u32 value, counted-from-the-top flag) for a cursor offset."""
    if value <= U32:
        return value, False
    if U64 - value <= U32:
        return U64 - value, True
    return U32, False


def reader_seed(vector, split_seed):
    status = vector.get("status", 200)
    if status in STATUSES:
        status_byte, raw = STATUSES.index(status), 0
    else:
        status_byte, raw = 0x80, status & 0xFFFF
    header_id = vector.get("process_id_header")
    pid = PROCESS_IDS.index(header_id) if header_id in PROCESS_IDS else 1
    cursor = vector.get("cursor") or {}
    stdout, stdout_top = offset_field(int(cursor.get("stdout", 0)))
    stderr, stderr_top = offset_field(int(cursor.get("stderr", 0)))
    flags = (vector.get("gap_policy") == "skip") | (stdout_top << 3) | (stderr_top << 4)
    limit = vector.get("max_frame_bytes")
    frame_mode, frame_value = (0, 0) if limit is None else (2, min(int(limit), U32))
    header = struct.pack(
        "<BBHBBBBIIIH",
        ENDPOINTS.index(vector.get("endpoint", "exec")),
        status_byte,
        raw,
        content_type_index(CONTENT_TYPES, vector.get("content_type", "")),
        pid,
        flags,
        frame_mode,
        frame_value,
        stdout,
        stderr,
        split_seed,
    )
    assert len(header) == 22
    return header + body_of(vector)


def document_seed(vector):
    status = vector.get("status", 200)
    status_index = DOC_STATUSES.index(status) if status in DOC_STATUSES else 7
    header_id = vector.get("process_id_header")
    pid = PROCESS_IDS.index(header_id) if header_id in PROCESS_IDS else 1
    flags = pid | ((vector.get("gap_policy") == "skip") << 2)
    header = bytes(
        [
            ENDPOINTS.index(vector.get("endpoint", "exec")),
            status_index,
            content_type_index(DOC_CONTENT_TYPES, vector.get("content_type", "")),
            flags,
            0,  # raw body
            7,  # split seed
        ]
    )
    return header + body_of(vector)


def preview_seed(max_lines, max_bytes, spill, hint, split_seed, data):
    max_lines = max(0, min(int(max_lines), 1023))
    max_bytes = max(0, min(int(max_bytes), 8351))
    spill_byte = 0
    if isinstance(spill, dict):
        spill_byte = 1 if spill.get("fails") else 3
    hint_byte = 1 if hint else 0
    header = struct.pack("<HHBBBHB", max_lines, max_bytes, spill_byte, hint_byte, 0, split_seed, 4)
    assert len(header) == 10
    return header + data


def main():
    vectors_dir = pathlib.Path(sys.argv[1])
    corpus = pathlib.Path(sys.argv[2])
    seeds = {name: [] for name in ["reader", "document", "bounder", "streaming_bounder", "differential"]}
    for path in sorted(vectors_dir.rglob("*.json")):
        try:
            vectors = json.loads(path.read_text(encoding="utf-8")).get("vectors", [])
        except (ValueError, OSError) as error:
            print(f"seed_corpus: skipping {path}: {error}", file=sys.stderr)
            continue
        for vector in vectors:
            try:
                if vector.get("kind") == "decode":
                    seeds["reader"].append(reader_seed(vector, 0))
                    seeds["reader"].append(reader_seed(vector, 3))
                    json_body = "json" in vector.get("content_type", "").lower()
                    if json_body or vector.get("status", 200) >= 300:
                        seeds["document"].append(document_seed(vector))
                    body = body_of(vector)
                    for target in ("bounder", "streaming_bounder"):
                        seeds[target].append(preview_seed(5, 300, None, None, 9, body))
                elif vector.get("kind") == "preview":
                    data = body_of(vector, "input")
                    seed = preview_seed(
                        vector.get("max_lines", 20),
                        vector.get("max_bytes", 400),
                        vector.get("spill"),
                        vector.get("hint"),
                        11,
                        data,
                    )
                    seeds["bounder"].append(seed)
                    seeds["streaming_bounder"].append(seed)
            except (KeyError, ValueError, TypeError) as error:
                print(f"seed_corpus: skipping {vector.get('name')}: {error}", file=sys.stderr)
    # The differential target reads its input as generator choices: any bytes do.
    seeds["differential"] = [bytes(range(i, i + 64)) for i in range(0, 192, 16)]
    for target, items in seeds.items():
        out = corpus / target
        out.mkdir(parents=True, exist_ok=True)
        for item in items:
            name = "seed-" + hashlib.sha1(item).hexdigest()[:16]
            target_path = out / name
            if not target_path.exists():
                target_path.write_bytes(item)
    print("seed_corpus: " + ", ".join(f"{t} {len(s)}" for t, s in seeds.items()))


if __name__ == "__main__":
    main()
