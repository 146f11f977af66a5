// Every shared vector (tests/vectors/**/*.json, found by globbing) through the
// WebAssembly component from Node, via jco. Decode vectors are fed whole,
// byte by byte and at seeded random splits (the chunkings of the npm
// package's runner) and must give the expected events, end and cursor, the
// same every time. Preview vectors run the npm package's own checks
// (expectation, the invariants of docs/VECTORS.md, idempotence, streaming =
// whole) against the component. Conversation vectors drive the exported
// follower through their exchanges (docs/VECTORS.md, "kind conversation"):
// requests compared, responses played with their bodies whole, byte by byte
// and at seeded random splits (the same decisions every time), the stall
// protocol on the vector's clock, decisions and the output compared. Unlike
// the npm package, the component holds every u64 exactly (BigInt), so the
// vectors' expectations apply unchanged.
import assert from "node:assert/strict";
import { test } from "node:test";

import { loadVectors } from "../../npm/test/helpers.mjs";
import { checkPreviewVector } from "../../npm/test/preview-lib.mjs";
import { chunkings, vectorBody } from "../../npm/test/vector-lib.mjs";
import { big, CONVERSATION_SPLITS, compareDecode, conversationVector, decodeVector, loadComponent, previewApi, same } from "./lib.mjs";

const mod = await loadComponent();
const vectors = loadVectors();
const decode = vectors.filter((v) => v.kind === "decode");
const preview = vectors.filter((v) => v.kind === "preview");
const conversation = vectors.filter((v) => v.kind === "conversation");

test("the vectors are found", () => {
  assert.ok(decode.length > 0, "no decode vectors");
  assert.ok(preview.length > 0, "no preview vectors");
  assert.ok(conversation.length > 0, "no conversation vectors");
  const kinds = new Set(vectors.map((v) => v.kind));
  assert.deepEqual([...kinds].sort(), ["conversation", "decode", "preview"], "a kind this runner does not know");
});

for (const file of [...new Set(decode.map((v) => v.file))]) {
  test(`decode vectors of ${file}, whole, byte by byte and at random splits`, () => {
    const problems = [];
    for (const v of decode.filter((x) => x.file === file)) {
      const body = vectorBody(v);
      let reference;
      for (const [how, chunks] of chunkings(v.name, body)) {
        const got = decodeVector(mod, v, chunks);
        for (const p of compareDecode(v, got)) problems.push(`${v.name} (${how}): ${p}`);
        reference ??= got;
        if (!same(got, reference)) problems.push(`${v.name} (${how}): differs from the whole body: ${JSON.stringify(got, big)}`);
      }
    }
    assert.deepEqual(problems, []);
  });
}

for (const file of [...new Set(conversation.map((v) => v.file))]) {
  test(`conversation vectors of ${file}, bodies whole, byte by byte and at random splits`, () => {
    const problems = [];
    for (const v of conversation.filter((x) => x.file === file)) {
      let reference;
      for (let mode = 0; mode < CONVERSATION_SPLITS; mode++) {
        const how = mode === 0 ? "whole" : mode === 1 ? "byte by byte" : `random splits #${mode - 1}`;
        const { problems: found, seen } = conversationVector(mod, v, mode);
        for (const p of found) problems.push(`${v.name} (${how}): ${p}`);
        reference ??= seen;
        if (!same(seen, reference)) problems.push(`${v.name} (${how}): differs from the whole bodies: ${JSON.stringify(seen, big)}`);
      }
    }
    assert.deepEqual(problems, []);
  });
}

for (const file of [...new Set(preview.map((v) => v.file))]) {
  test(`preview vectors of ${file}`, () => {
    const api = previewApi(mod);
    for (const v of preview.filter((x) => x.file === file)) checkPreviewVector(api, v);
  });
}

test("the error table lists every code with its class, kind and field names", () => {
  const rows = mod.types.errorCodes();
  const gap = rows.find((r) => r.code === "output_gap");
  assert.deepEqual(gap, { code: "output_gap", className: "OutputGap", kind: "loss", fields: ["stream", "consumed", "earliest"] });
  assert.equal(new Set(rows.map((r) => r.code)).size, rows.length);
});
