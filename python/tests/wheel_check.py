"""Run by scripts/test-python.sh with the interpreter of a fresh venv into
which only the built wheel was installed: proves the wheel imports on its own,
has the exact tokenizers, and decodes and bounds the shared vectors (token
limits included). Usage: wheel_check.py <tests/vectors dir>."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path


def main() -> None:
    import dory_wire

    where = Path(dory_wire.__file__).resolve()
    assert "site-packages" in where.parts, f"dory_wire imported from {where}, not the wheel"
    # The wheel is built with the core's feature `tokens`.
    assert dory_wire.TOKENIZERS == ("o200k_base", "cl100k_base", "approx"), dory_wire.TOKENIZERS
    assert dory_wire.count_tokens("日本語のテキストです。", "cl100k_base") == 10
    vectors = sorted(Path(sys.argv[1]).rglob("*.json"))
    assert vectors, "no vectors"
    decoded = previewed = 0
    for path in vectors:
        for v in json.loads(path.read_text(encoding="utf-8"))["vectors"]:
            if v["kind"] == "decode" and v["expect"]["end"]["type"] != "error":
                body = base64.b64decode(v["body_b64"]) if "body_b64" in v else v["body"].encode()
                reader = dory_wire.Reader(
                    v["endpoint"],
                    cursor=v.get("cursor"),
                    gap_policy=v.get("gap_policy", "fail"),
                    max_frame_bytes=v.get("max_frame_bytes"),
                )
                reader.open(v["status"], v["content_type"], v.get("process_id_header"))
                events = list(dory_wire.iter_events(reader, [body]))
                assert len(events) == len(v["expect"]["events"]), v["name"]
                if "cursor" in v["expect"]:
                    assert reader.cursor.to_dict() == v["expect"]["cursor"], v["name"]
                decoded += 1
            elif v["kind"] == "preview" and "preview" in v["expect"] and "input" in v:
                if v.get("spill"):
                    continue
                p = dory_wire.bound(
                    v["input"],
                    max_lines=v["max_lines"],
                    max_bytes=v["max_bytes"],
                    keep=v.get("keep"),
                    terminal=v.get("terminal", False),
                    max_tokens=v.get("max_tokens"),
                    tokenizer=v.get("tokenizer"),
                )
                assert p.text == v["expect"]["preview"], v["name"]
                if "tokens" in v["expect"]:
                    assert p.tokens == v["expect"]["tokens"], v["name"]
                previewed += 1
    assert decoded, "no decode vector ran"
    assert previewed, "no preview vector ran"
    print(
        f"wheel {dory_wire.__version__} on Python {sys.version.split()[0]} at {where.parent}: "
        f"{decoded} decode and "
        f"{previewed} preview vectors ok"
    )


if __name__ == "__main__":
    main()
