// How the events of one `feed`/`finish` cross the wasm boundary: the
// JavaScript half of one definition. The Rust half, and the prose, are
// bindings/wasm/src/layout.rs: its constants and table, written out as
// `EVENT_LAYOUT_JSON`, which is byte for byte `JSON.stringify(LAYOUT)`. The
// module exports that document's FNV-1a hash (`event_layout_hash()`); the
// platform module compares it with this one's when the module is loaded
// (`checkLayout`), so a module built with another layout is refused at load,
// never misread; test/layout.test.mjs compares them too.
//
// A call returns `records * result.records + result.flagSide` (the flag: a
// side JSON document is waiting in `take_side()`). The `records` records are
// `record.f64s` numbers each, in wasm memory at `meta_ptr()`: the fields of
// `record.fields`. An output event's tag is `tags.stdout` or `tags.stderr`,
// its bytes the next `end - start` bytes of the data buffer (`data_ptr()`,
// `data_len()`); a record tagged `tags.other` is the next array of the side
// document's `events`: its name, then the fields of `other[name]` in order.
// A `bytes` field is a length: that many bytes of the data buffer, next in
// order (a result document's stdout, then its stderr).

/** The layout, in the shape and the key order of `EVENT_LAYOUT_JSON` (bindings/wasm/src/layout.rs). */
export const LAYOUT = Object.freeze({
  version: 2,
  result: Object.freeze({ records: 2, flagSide: 1 }),
  record: Object.freeze({ f64s: 3, fields: Object.freeze(["tag", "start", "end"]) }),
  tags: Object.freeze({ stdout: 0, stderr: 1, other: 2 }),
  // <generated from dory_wire::records by scripts/generate.sh: do not edit> layout
  other: Object.freeze({
    started: fields(["procId", "string"]),
    skipped: fields(["stream", "stream"], ["start", "u64"], ["end", "u64"]),
    heartbeat: fields(),
    exit: fields(["exitCode", "i64?"], ["timedOut", "bool"]),
    unknown: fields(["frameType", "string"]),
    identity: fields(["procId", "string"], ["status", "status"]),
    exec_result: fields(
      ["procId", "string"],
      ["stdout", "bytes"],
      ["stderr", "bytes"],
      ["stdoutTruncated", "bool"],
      ["stderrTruncated", "bool"],
      ["exitCode", "i64?"],
      ["timedOut", "bool"],
    ),
  }),
  // </generated> layout
});

function fields(...list) {
  return Object.freeze(list.map((f) => Object.freeze(f)));
}

/** Numbers per record, and the positions of its fields. */
export const RECORD_F64S = LAYOUT.record.f64s;
export const RECORD_TAG = LAYOUT.record.fields.indexOf("tag");
export const RECORD_START = LAYOUT.record.fields.indexOf("start");
export const RECORD_END = LAYOUT.record.fields.indexOf("end");
export const TAG_STDOUT = LAYOUT.tags.stdout;
export const TAG_STDERR = LAYOUT.tags.stderr;
/** The result of a call is `records * RESULT_RECORDS + flags`. */
export const RESULT_RECORDS = LAYOUT.result.records;

/** FNV-1a (32 bits) of the UTF-8 bytes of `text` (ASCII here): the module's `fnv1a`. */
export function fnv1a(text) {
  const bytes = new TextEncoder().encode(text);
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    hash ^= bytes[i];
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The hash of a layout's document (`JSON.stringify`: the key order is the document's). */
export function layoutHash(layout) {
  return fnv1a(JSON.stringify(layout));
}

/** The hash of LAYOUT: what `event_layout_hash()` of a matching module returns. */
export const LAYOUT_HASH = layoutHash(LAYOUT);

/**
 * Throws unless `moduleHash` (the module's `event_layout_hash()`) is the
 * hash of `layout` (by default this file's): a .wasm and a JavaScript layer
 * that do not match.
 */
export function checkLayout(moduleHash, layout = LAYOUT) {
  const ours = layout === LAYOUT ? LAYOUT_HASH : layoutHash(layout);
  if (moduleHash !== ours) {
    const hex = (n) => `0x${(n >>> 0).toString(16).padStart(8, "0")}`;
    throw new Error(
      `dory-wire: the WebAssembly module's event layout (${typeof moduleHash === "number" ? hex(moduleHash) : String(moduleHash)}) ` +
        `is not this JavaScript's (${hex(ours)}): a binding mismatch (bindings/wasm/src/layout.rs against npm/src/layout.js)`,
    );
  }
}
