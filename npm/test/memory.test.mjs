// Wasm memory is released: 100,000 readers (and transcripts, bounders) created and dropped
// do not grow the WebAssembly memory without bound, whether they are freed
// explicitly or left to the garbage collector (FinalizationRegistry).
import { test } from "node:test";
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import * as api from "dory-wire";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");

const enc = (s) => new TextEncoder().encode(s);
const body = enc(
  '{"type":"stdout","data":"hello world, some output","offset":24}\n{"type":"heartbeat"}\n{"type":"stdout","data":"more',
);
const TOTAL = 100_000;
const BATCH = 10_000;

function useReader(free) {
  const r = new api.Reader("process_output", { gapPolicy: "skip" });
  r.open(200, "application/x-ndjson");
  r.feed(body);
  if (free) r.free();
}

async function collect() {
  // Finalization callbacks run after a collection, on later turns of the loop.
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function growth(make) {
  const sizes = [];
  for (let done = 0; done < TOTAL; done += BATCH) {
    for (let i = 0; i < BATCH; i++) make();
    await collect();
    sizes.push(api.memoryBytes());
  }
  return sizes;
}

test("the leak check can fail: readers that are kept do grow the memory", async () => {
  const before = api.memoryBytes();
  const kept = [];
  for (let i = 0; i < 20_000; i++) {
    const r = new api.Reader("process_output");
    r.open(200, "application/x-ndjson");
    r.feed(body);
    kept.push(r);
  }
  await collect();
  assert.ok(api.memoryBytes() > before, "keeping 20,000 readers should need more memory");
  for (const r of kept) r.free();
});

test("100,000 readers freed explicitly keep wasm memory flat", async () => {
  const sizes = await growth(() => useReader(true));
  // After the first batch has warmed the allocator up, nothing grows.
  assert.equal(sizes.at(-1), sizes[0], `wasm memory grew: ${sizes.join(", ")}`);
});

test("100,000 readers dropped without free() are released by the garbage collector", async () => {
  const sizes = await growth(() => useReader(false));
  // Leaking every reader would cost well over 100 bytes each (10 MB here);
  // allow a few MiB for garbage collection running late.
  const grew = sizes.at(-1) - sizes[1];
  assert.ok(grew <= 4 * 1024 * 1024, `wasm memory grew by ${grew} bytes: ${sizes.join(", ")}`);
});

test("transcripts filled with feedInto and dropped are released too", async () => {
  const sizes = await growth(() => {
    const t = new api.Transcript();
    const r = new api.Reader("process_output", { gapPolicy: "skip" });
    r.open(200, "application/x-ndjson");
    r.feedInto(body, t);
    if (Math.random() < 0.5) t.free();
  });
  const grew = sizes.at(-1) - sizes[1];
  assert.ok(grew <= 4 * 1024 * 1024, `wasm memory grew by ${grew} bytes: ${sizes.join(", ")}`);
});

test("bounders and streaming bounders dropped are released too", async () => {
  const text = "x\n".repeat(300);
  const sizes = await growth(() => {
    const sb = new api.StreamingBounder({ maxLines: 5, maxBytes: 512 });
    sb.push(text);
    if (Math.random() < 0.5) sb.finish();
    api.bound(text, { maxLines: 5, maxBytes: 512 });
  });
  const grew = sizes.at(-1) - sizes[1];
  assert.ok(grew <= 4 * 1024 * 1024, `wasm memory grew by ${grew} bytes: ${sizes.join(", ")}`);
});
