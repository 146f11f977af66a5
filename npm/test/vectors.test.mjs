// The shared conformance vectors (tests/vectors/**/*.json, shared/VECTORS.md):
// every file is globbed, both kinds run, each decode vector is fed whole, byte
// by byte and at seeded random splits, and every preview vector is checked
// against its expectation and the preview invariants.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as api from "dory-wire";
import { loadVectors } from "./helpers.mjs";
import { chunkings, compareJs, decodeJs, vectorBody } from "./vector-lib.mjs";
import { checkPreviewVector } from "./preview-lib.mjs";

const vectors = loadVectors();
const decodeVectors = vectors.filter((v) => v.kind === "decode");
const previewVectors = vectors.filter((v) => v.kind === "preview");

test("vectors are found", () => {
  assert.ok(vectors.length > 0, "no vector found below tests/vectors");
  assert.ok(decodeVectors.length > 0, "no decode vector found");
  const names = new Set();
  for (const v of vectors) {
    assert.ok(!names.has(v.name), `duplicate vector name ${v.name}`);
    names.add(v.name);
    assert.ok(v.kind === "decode" || v.kind === "preview", `${v.name}: unknown kind ${v.kind}`);
  }
});

for (const v of decodeVectors) {
  test(`decode ${v.file} ${v.name}`, () => {
    const body = vectorBody(v);
    let first;
    for (const [how, chunks] of chunkings(v.name, body)) {
      const got = decodeJs(api, v, chunks);
      const problems = compareJs(v, got);
      assert.deepEqual(problems, [], `${v.name} fed ${how}:\n  ${problems.join("\n  ")}`);
      if (first === undefined) first = got;
      else assert.deepEqual(got, first, `${v.name}: fed ${how} differs from fed whole`);
    }
  });
}

for (const v of previewVectors) {
  test(`preview ${v.file} ${v.name}`, () => {
    checkPreviewVector(api, v);
  });
}
