// The preview bounder per call from JavaScript, part of `make bench`: the
// package's `bound()` against a plain head + tail written by hand in
// JavaScript, on the 2 KB and 16 KB log inputs of the Rust benchmark
// (`dory-bench`, crates/dory-bench/src/preview.rs), cut to 10 lines and
// max(169, size / 8) bytes. Both run in the same process, interleaved, and
// the medians are compared; records go to `--out` for `dory-bench report`.
//
//   node preview-calls.mjs [--runs 5] [--out results.jsonl]

import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** Log text of exactly `size` bytes (the Rust benchmark's generator). */
export function logInput(size) {
  const parts = [];
  let length = 0;
  let state = BigInt(size);
  const mask = (1n << 64n) - 1n;
  for (let i = 0; length < size; i++) {
    state = (state * 6364136223846793005n + 1442695040888963407n) & mask;
    const words = 1 + Number((state >> 33n) % 10n);
    const line = `${String(i).padStart(4, "0")} building target ${"item ".repeat(words)}\n`;
    parts.push(line);
    length += line.length;
  }
  return new TextEncoder().encode(parts.join("")).subarray(0, size);
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * The head + tail a JS author writes by hand: decode, split lines, keep the
 * first and last lines that fit both limits around a one-line marker.
 */
export function headTail(bytes, maxLines, maxBytes) {
  const text = decoder.decode(bytes);
  const lines = text.split(/(?<=\n)/);
  if (lines.length <= maxLines && bytes.length <= maxBytes) return text;
  const marker = (n) => `[... ${n} lines omitted ...]\n`;
  const head = [];
  const tail = [];
  let used = encoder.encode(marker(lines.length)).length;
  let lo = 0;
  let hi = lines.length;
  while (head.length + tail.length + 1 < maxLines && lo < hi) {
    const line = tail.length <= head.length ? lines[hi - 1] : lines[lo];
    const size = encoder.encode(line).length;
    if (used + size > maxBytes) break;
    used += size;
    if (tail.length <= head.length) {
      tail.unshift(line);
      hi--;
    } else {
      head.push(line);
      lo++;
    }
  }
  return head.join("") + marker(hi - lo) + tail.join("");
}

function perCall(fn, calls) {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6 / calls;
}

/** Calls `fn` for about 0.3 s of CPU time. */
function warmUp(fn) {
  const start = process.cpuUsage();
  for (;;) {
    for (let i = 0; i < 500; i++) fn();
    const used = process.cpuUsage(start);
    if (used.user + used.system > 300_000) return;
  }
}

function median(xs) {
  const v = [...xs].sort((a, b) => a - b);
  const n = v.length;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/** Runs the comparison; returns the records (and appends them to `out`). */
export function runPreviewCalls({ runs = 5, out } = {}) {
  const require = createRequire(import.meta.url);
  const { bound } = require(join(here, "..", "dist", "node", "index.cjs"));
  const records = [];
  for (const size of [2048, 16384]) {
    const data = logInput(size);
    const maxLines = 10;
    const maxBytes = Math.max(169, size / 8);
    const corpus = `${size / 1024} KB cut`;
    const ours = () => bound(data, { maxLines, maxBytes });
    const hand = () => headTail(data, maxLines, maxBytes);
    if (!ours().truncated) throw new Error(`${corpus}: the input must be cut`);
    // Steady state: V8 first runs WebAssembly in its baseline compiler
    // (Liftoff) and tiers hot functions up later, and JavaScript is
    // likewise optimised once hot; without this the first input measured
    // times the warm-up (2 KB: about 15 µs per call instead of about 4).
    warmUp(ours);
    warmUp(hand);
    // Calls per measurement: about 50 ms of the slower one.
    const probe = Math.max(perCall(ours, 200), perCall(hand, 200));
    const calls = Math.max(200, Math.round(0.05 / probe));
    const times = { bound: [], "head-tail": [] };
    for (let r = 0; r < runs; r++) {
      times.bound.push(perCall(ours, calls));
      times["head-tail"].push(perCall(hand, calls));
    }
    const impls = [
      ["bound", "dory-wire bound() (wasm), no writer", "ours"],
      ["head-tail", "plain head + tail written in JavaScript", "baseline"],
    ];
    for (const [id, label, role] of impls) {
      for (const secs of times[id]) {
        records.push({ lang: "node", group: "preview-calls", corpus, id, label, role, secs, bytes: size });
      }
    }
    const ratio = median(times["head-tail"]) / median(times.bound);
    console.error(
      `node: preview ${corpus}: bound ${(median(times.bound) * 1e6).toFixed(1)} µs, head + tail ${(median(times["head-tail"]) * 1e6).toFixed(1)} µs: bound is ${ratio.toFixed(2)}× as fast (${ratio > 1 ? "met" : "missed"})`,
    );
  }
  if (out) for (const r of records) appendFileSync(out, JSON.stringify(r) + "\n");
  return records;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const get = (name) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  runPreviewCalls({ runs: Number(get("runs") ?? 5), out: get("out") });
}
