"""A Python host of the dory-wire component on wasmtime-py (`pip install
wasmtime`): follows a process's output across a dropped connection, shows a
loss as an error value, and bounds a long output with the spill handshake.
scripts/test-component.sh checks that it prints host.expected.txt.

    python host.py [path/to/dory-wire.wasm]
"""

from __future__ import annotations

import sys
from pathlib import Path

from wasmtime import Engine, Store
from wasmtime.component import Component, Linker, Record, Variant

DEFAULT = Path(__file__).resolve().parents[2] / "target" / "component" / "dory-wire.wasm"

engine = Engine()
store = Store(engine)
component = Component.from_file(engine, str(sys.argv[1] if len(sys.argv) > 1 else DEFAULT))
instance = Linker(engine).instantiate(store, component)


def export(interface: str, name: str):
    """The function `name` of the interface `dory:wire/<interface>`."""
    iface = instance.get_export_index(store, f"dory:wire/{interface}@0.1.0")
    func = instance.get_func(store, instance.get_export_index(store, name, iface))
    return lambda *args: func(store, *args)


new_reader = export("decode", "[constructor]reader")
resume_json = export("decode", "[static]reader.resume-json")
open_ = export("decode", "[method]reader.open")
feed = export("decode", "[method]reader.feed")
finish = export("decode", "[method]reader.finish")
resume_state_json = export("decode", "[method]reader.resume-state-json")
bound = export("preview", "bound")
render = export("preview", "[method]pending-spill.render")
spill_id = export("preview", "[method]pending-spill.spill-id")


def options(**fields) -> Record:
    """A `reader-options` record; absent fields take the defaults."""
    out = Record()
    for name in ("cursor", "gap-policy", "max-frame-bytes", "liveness-timeout-ns", "strict"):
        setattr(out, name, fields.get(name.replace("-", "_")))
    return out


def show(prefix: str, event: Variant) -> None:
    e = event.payload
    if event.tag == "output":
        print(f"{prefix}: output {e.stream} [{e.start}, {e.end}) {e.data.hex()}")
    elif event.tag == "exit":
        print(f"{prefix}: exit {getattr(e, 'exit-code')}")
    else:
        print(f"{prefix}: {event.tag}")


def show_error(prefix: str, err: Record) -> None:
    print(f"{prefix}: {err.code} ({err.kind}, {getattr(err, 'class-name')}): {err.message}")
    for f in err.fields:
        value = f.value.payload
        if f.value.tag == "cursor":
            value = f"stdout={value.stdout} stderr={value.stderr}"
        print(f"{prefix}:   {f.name} = {value}")


# 1. The first connection drops in the middle of a frame; the second, resumed
#    from the saved state, re-sends from a chunk boundary and the overlap is trimmed.
bodies = [
    b'{"type":"stdout","data":"hello\\u0000","offset":6}\n{"type":"stdo',
    b'{"type":"stdout","data":"hello\\u0000","offset":6}\n'
    b'{"type":"stdout","data":"/w==","encoding":"base64","offset":7}\n'
    b'{"type":"stderr","data":"notice","offset":6}\n'
    b'{"type":"exit","exit_code":0,"timed_out":false}\n',
]
saved = None
for attempt, body in enumerate(bodies, 1):
    prefix = f"attempt {attempt}"
    if saved is None:
        reader = new_reader("process-output", options())
    else:
        reader = resume_json("process-output", saved, options())
    open_(reader, 200, "application/x-ndjson", None)
    for piece in (body[i : i + 7] for i in range(0, len(body), 7)):  # as the HTTP client yields them
        fed = feed(reader, piece)
        for event in fed.events:
            show(prefix, event)
        assert fed.error is None
    finished = finish(reader)
    for event in finished.events:
        show(prefix, event)
    end = finished.end  # wasmtime-py: the `end` Variant, or the `error` Record
    if end.tag == "disconnected":
        c = end.payload.cursor
        print(f"{prefix}: end disconnected ({end.payload.reason}), resume from stdout={c.stdout} stderr={c.stderr}")
        saved = resume_state_json(reader)
        print(f"saved: {saved}")
    else:
        print(f"{prefix}: end {end.tag} (exit code {getattr(end.payload, 'exit-code')})")
    reader.drop(store)

# 2. Lost output is an error value, never joined over silently.
cursor = Record()
cursor.stdout, cursor.stderr = 4096, 0
reader = new_reader("process-output", options(cursor=cursor))
open_(reader, 200, "application/x-ndjson", None)
fed = feed(reader, b'{"type":"gap","earliest_stdout_offset":1048576,"earliest_stderr_offset":0}\n')
show_error("gap", fed.error)
reader.drop(store)

# 3. A long output bounded to 6 lines and 300 bytes. The component asks for a
#    spill; the host saves the output (here it only names the file) and renders.
output = b"".join(b"step %d\n" % i for i in range(1, 1001))
outcome = bound(output, 6, 300, None)  # result<bounded, error>: Variant('ok', ...)
pending = outcome.payload
path = f"/tmp/spill/{spill_id(pending)}.txt"
preview = render(pending, Variant("saved", path), "read it with sed")
pending.drop(store)
print(f"preview: {getattr(preview, 'omitted-lines')} lines omitted, {len(preview.text.encode())} bytes")
print(preview.text, end="")
