// Property tests (fast-check): the preview bounder's ceiling, accounting,
// idempotence and streaming = whole; the reader's split invariance.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import * as api from "dory-wire";
import { FIXED_SPILL_ID, checkInvariants, streamPreview } from "./preview-lib.mjs";
import { splitAt } from "./vector-lib.mjs";

const enc = (s) => new TextEncoder().encode(s);
const RUNS = Number(process.env.DORY_FC_RUNS ?? 200);

// Inputs with many lines, long lines, multi-byte and invalid UTF-8, \r\n.
const piece = fc.oneof(
  fc.constantFrom("\n", "\r\n", "\r", "é", "😀", "\xff", "ok\n", "error: boom\n"),
  fc.string({ maxLength: 40 }),
  fc.uint8Array({ maxLength: 40 }),
  fc.nat({ max: 3000 }).map((n) => "x".repeat(n)),
);
const input = fc
  .array(piece, { maxLength: 120 })
  .map((parts) => {
    const chunks = parts.map((p) => (typeof p === "string" ? enc(p) : p));
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  });
const limitsArb = fc.record({ maxLines: fc.integer({ min: 1, max: 60 }), maxBytes: fc.integer({ min: 256, max: 6000 }) });
const spillArb = fc.oneof(
  fc.constant(undefined),
  fc.constant(() => null),
  fc.constant(() => {
    throw new Error("fails");
  }),
  fc.string({ maxLength: 300 }).map((p) => () => `/workspace/.tool-output/${p}`),
);

test("bound: ceiling, accounting, idempotence, streaming = whole", () => {
  fc.assert(
    fc.property(input, limitsArb, spillArb, fc.option(fc.string({ maxLength: 60 }), { nil: undefined }), fc.integer(), (data, limits, spill, hint, seed) => {
      const options = { ...limits, spill, hint, spillId: FIXED_SPILL_ID };
      const p = api.bound(data, options);
      checkInvariants(data, limits.maxLines, limits.maxBytes, p, "property");
      const again = api.bound(p.text, limits);
      assert.equal(again.text, p.text);
      assert.equal(again.truncated, false);
      const streamed = streamPreview(api, data, options, seed >>> 0);
      assert.deepEqual(streamed, p);
    }),
    { numRuns: RUNS },
  );
});

test("bound is deterministic", () => {
  fc.assert(
    fc.property(input, limitsArb, (data, limits) => {
      assert.deepEqual(api.bound(data, limits), api.bound(data.slice(), limits));
    }),
    { numRuns: 50 },
  );
});

// A well-formed process_output body with holes, duplicates, overlaps and
// every kind of frame, for the split-invariance property.
const frame = fc.oneof(
  fc.record({ stream: fc.constantFrom("stdout", "stderr"), data: fc.string({ maxLength: 20 }), back: fc.nat({ max: 10 }), b64: fc.boolean() }).map((f) => ({ kind: "out", ...f })),
  fc.constant({ kind: "heartbeat" }),
  fc.constant({ kind: "unknown" }),
  fc.nat({ max: 5 }).map((n) => ({ kind: "hole", n })),
);

function bodyOf(frames, exit) {
  const offsets = { stdout: 0, stderr: 0 };
  let text = "";
  for (const f of frames) {
    if (f.kind === "heartbeat") text += '{"type":"heartbeat"}\n';
    else if (f.kind === "unknown") text += '{"type":"progress","x":[1,{"y":null}]}\r\n';
    else if (f.kind === "hole") offsets.stdout += f.n;
    else {
      const bytes = enc(f.data);
      const end = Math.max(bytes.length, offsets[f.stream] + bytes.length - Math.min(f.back, offsets[f.stream]));
      offsets[f.stream] = Math.max(offsets[f.stream], end);
      const data = f.b64 ? Buffer.from(bytes).toString("base64") : f.data;
      text += JSON.stringify({ type: f.stream, data, offset: end, ...(f.b64 ? { encoding: "base64" } : {}) }) + "\n";
    }
  }
  if (exit) text += '{"type":"exit","exit_code":0,"timed_out":false}\n';
  return enc(text);
}

function decode(body, cuts, gapPolicy) {
  const r = new api.Reader("process_output", { gapPolicy });
  r.open(200, "application/x-ndjson");
  const events = [];
  let end;
  try {
    for (const chunk of splitAt(body, cuts)) events.push(...r.feed(chunk));
    const [last, fin] = r.finish();
    events.push(...last);
    end = fin;
  } catch (e) {
    end = { error: e.code };
  }
  const out = { events, end, cursor: r.cursor };
  r.free();
  return out;
}

test("reader: any split of a body gives the same events, end and cursor", () => {
  fc.assert(
    fc.property(
      fc.array(frame, { maxLength: 30 }),
      fc.boolean(),
      fc.constantFrom("fail", "skip"),
      fc.array(fc.nat(), { maxLength: 20 }),
      (frames, exit, policy, rawCuts) => {
        const body = bodyOf(frames, exit);
        const cuts = rawCuts.map((c) => c % (body.length + 1)).sort((a, b) => a - b);
        const whole = decode(body, [], policy);
        assert.deepEqual(decode(body, cuts, policy), whole);
        // Byte by byte.
        const every = Array.from({ length: Math.max(0, body.length - 1) }, (_, i) => i + 1);
        assert.deepEqual(decode(body, every, policy), whole);
        // The output bytes are the stream's bytes, contiguous from 0 under skip.
        if (policy === "skip") {
          for (const stream of ["stdout", "stderr"]) {
            let at = 0;
            for (const e of whole.events) {
              if ((e.type === "output" || e.type === "skipped") && e.stream === stream) {
                assert.equal(e.start, at);
                at = e.end;
              }
            }
            assert.equal(at, whole.cursor[stream]);
          }
        }
      },
    ),
    { numRuns: RUNS },
  );
});
