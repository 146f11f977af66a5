// Property test of the data string of compact frames, as the wasm build reads
// it (one pass per 16-byte block: the search for `"` and `\`, the copy and
// the byte range of the text check together; crates/dory-wire/src/json.rs,
// `string_into_ranged`): every frame decodes to what JSON.parse, a fatal
// TextDecoder and the protocol's rules give, or fails where they refuse.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import * as api from "dory-wire";

const RUNS = Number(process.env.DORY_FC_RUNS ?? 300);
const enc = new TextEncoder();

// Raw pieces of the string's JSON text: runs that cross 16-byte blocks,
// every escape, raw multi-byte text, and the bytes that must be refused.
const token = fc.oneof(
  { weight: 12, arbitrary: fc.nat({ max: 70 }).map((n) => enc.encode("abcdefghijklmnopqrstuvwxyz0123456789 !#$%&'()*+,-./:;<=>?@[]^_`{|}~".repeat(2).slice(0, n))) },
  { weight: 8, arbitrary: fc.constantFrom('\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\u0000", "\\ud83d\\ude00", "é", "😀", "漢字").map((s) => enc.encode(s)) },
  { weight: 1, arbitrary: fc.oneof(rawBad(), fc.constantFrom("\\ud800", "\\udc00", "\\q", "\\u12", "\\", '"').map((s) => enc.encode(s))) },
);

function rawBad() {
  return fc.constantFrom([0x01], [0x1f], [0x7f], [0xff], [0xc3], [0xed, 0xa0, 0x80]).map((b) => new Uint8Array(b));
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The bytes the string's raw text stands for, or null where a frame with it must fail. */
function expected(raw) {
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    return null;
  }
  if (/[\x00-\x1f]/.test(text)) return null;
  let value;
  try {
    value = JSON.parse(`"${text}"`);
  } catch {
    return null;
  }
  if (LONE.test(value)) return null;
  return enc.encode(value);
}

function decode(line, cut) {
  const r = new api.Reader("process_output");
  r.open(200, "application/x-ndjson");
  const out = [];
  try {
    for (const piece of [line.subarray(0, cut), line.subarray(cut)]) {
      for (const e of r.feed(piece)) if (e.type === "output") out.push(e.data);
    }
  } catch (e) {
    return { error: e.code };
  } finally {
    r.free();
  }
  return concat(out);
}

test("compact frames: the data string decodes as JSON.parse reads it, or fails", () => {
  let accepted = 0;
  fc.assert(
    fc.property(fc.array(token, { maxLength: 40 }), fc.nat(), fc.option(fc.oneof(token, rawBad()), { freq: 4 }), (tokens, rawCut, last) => {
      // A short line puts the string's end in the last partial block too.
      const raw = concat(last === null ? tokens : [...tokens.slice(0, 2), last]);
      const want = expected(raw);
      // Never below the data's length (its raw text is at least as long),
      // and short: the line's end then falls in the string's last block.
      const offset = want === null ? raw.length : want.length;
      const line = concat([enc.encode('{"type":"stdout","data":"'), raw, enc.encode(`","offset":${offset}}\n`)]);
      const got = decode(line, rawCut % (line.length + 1));
      if (want === null) {
        assert.ok(!(got instanceof Uint8Array), `accepted ${JSON.stringify(Array.from(raw))}`);
      } else {
        assert.ok(got instanceof Uint8Array, `refused ${JSON.stringify(Array.from(raw))}: ${JSON.stringify(got)}`);
        assert.deepEqual(Array.from(got), Array.from(want));
        accepted++;
      }
    }),
    { numRuns: RUNS },
  );
  // Both outcomes are exercised.
  assert.ok(accepted > RUNS / 5 && accepted < RUNS, `${accepted} of ${RUNS} accepted`);
});
