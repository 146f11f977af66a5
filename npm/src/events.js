// The events of one `feed`/`finish` of a reader or a follower, read out of
// wasm memory as layout.js (and bindings/wasm/src/layout.rs) define them:
// output events from their numeric records and the data buffer, the other
// events from the side document's arrays, in order.

import { copyOut } from "#platform";
import { LAYOUT, RECORD_END, RECORD_F64S, RECORD_START, RECORD_TAG, RESULT_RECORDS, TAG_STDERR, TAG_STDOUT } from "./layout.js";
import { memoryBuffer } from "./memory.js";

const EMPTY = new Uint8Array(0);
const OTHER = LAYOUT.other;

/**
 * The event of a record tagged "other": `e` is its side array (name, then
 * the fields of LAYOUT.other[name]); its `bytes` fields are taken from
 * `data` from `at` on. Returns the event and where the next bytes start.
 */
function otherEvent(e, data, at) {
  const fields = OTHER[e[0]];
  if (fields === undefined || !Object.prototype.hasOwnProperty.call(OTHER, e[0]) || e.length !== fields.length + 1) {
    throw new Error(`dory-wire: unknown event ${JSON.stringify(e)} (binding mismatch)`);
  }
  const event = { type: e[0] };
  for (let k = 0; k < fields.length; k++) {
    const value = e[k + 1];
    if (fields[k][1] === "bytes") {
      event[fields[k][0]] = data.subarray(at, at + value);
      at += value;
    } else {
      event[fields[k][0]] = value;
    }
  }
  return [event, at];
}

/**
 * Builds the event objects of the last `feed`/`finish` of `inner`, which
 * returned `n` (`records * RESULT_RECORDS + hasSide`). Output events are
 * read in place in wasm memory, their bytes copied out once for the call;
 * `side` is the side document (null when the call had none).
 */
export function buildEvents(inner, n, side) {
  const records = (n - (n % RESULT_RECORDS)) / RESULT_RECORDS;
  if (records === 0) return [];
  const metaPtr = inner.meta_ptr();
  const dataPtr = inner.data_ptr();
  const dataLen = inner.data_len();
  // No wasm call below: the views stay valid (memory cannot grow meanwhile).
  const buffer = memoryBuffer();
  const meta = new Float64Array(buffer, metaPtr, records * RECORD_F64S);
  const data = dataLen === 0 ? EMPTY : copyOut(new Uint8Array(buffer, dataPtr, dataLen));
  const own = data.buffer;
  const base = data.byteOffset;
  const raw = side === null ? null : side.events;
  const events = new Array(records);
  let at = 0;
  let other = 0;
  for (let i = 0, j = 0; i < records; i++, j += RECORD_F64S) {
    const tag = meta[j + RECORD_TAG];
    if (tag === TAG_STDOUT || tag === TAG_STDERR) {
      const start = meta[j + RECORD_START];
      const end = meta[j + RECORD_END];
      const len = end - start;
      events[i] = { type: "output", stream: tag === TAG_STDOUT ? "stdout" : "stderr", data: new Uint8Array(own, base + at, len), start, end };
      at += len;
    } else {
      [events[i], at] = otherEvent(raw[other++], data, at);
    }
  }
  return events;
}
