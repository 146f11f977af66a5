// The shared conformance vectors (tests/vectors/**/*.json, docs/VECTORS.md):
// every file is globbed, both kinds run, each decode vector is fed whole, byte
// by byte and at seeded random splits, and every preview vector is checked
// against its expectation and the preview invariants.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as api from "dory-wire";
import { loadVectors } from "./helpers.mjs";
import { SplitMix64, chunkings, compareJs, decodeIntoJs, decodeJs, intoFromEvents, vectorBody } from "./vector-lib.mjs";
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
      // The same body through feedInto: the output bytes land in a
      // Transcript, every other event is returned as by feed.
      assert.deepEqual(decodeIntoJs(api, v, chunks), intoFromEvents(got), `${v.name}: feedInto fed ${how} differs from feed`);
    }
  });
}

for (const v of previewVectors) {
  test(`preview ${v.file} ${v.name}`, () => {
    checkPreviewVector(api, v);
  });
}

test("the split generator is SplitMix64 with the draws of the Rust tests", () => {
  // The reference outputs for seed 0 (Vigna, splitmix64.c), as crates/dory-testkit checks them.
  const g = new SplitMix64(0);
  assert.deepEqual([g.nextU64(), g.nextU64(), g.nextU64()], [0xe220a8397b1dcdafn, 0x6e789e6aa1b965f4n, 0x06c45d188009454fn]);
  // below(n) is the high half of next * n: below(2^32) is the top 32 bits.
  const a = new SplitMix64(7);
  const b = new SplitMix64(7);
  assert.equal(a.below(2 ** 32), Number(b.nextU64() >> 32n));
  assert.equal(a.below(0), 0);
  for (const n of [1, 2, 3, 7, 1000]) for (let i = 0; i < 200; i++) assert.ok(a.below(n) < n);
  const cuts = a.cuts(100, 5);
  assert.ok(cuts.length <= 5 && cuts.every((c, i) => c <= 100 && (i === 0 || cuts[i - 1] <= c)));
});
