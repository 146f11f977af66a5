#!/usr/bin/env node
// The component's part of `make bench`: the dory-wire component run from Node
// through jco, beside the npm package (wasm-bindgen) that npm/bench/bench.mjs
// measures on the same corpora, with the same method: each run is a child
// process, time is its CPU time, the body is fed in 64 KiB pieces and each
// stream's bytes are collected. Records go to --out for `dory-bench report`,
// in the group "reader" with the role "component", so the table shows them
// beside the npm package's reader and their speed ratio to it.
//
//   node bench.mjs --corpora DIR --mb 100 --runs 5 --out results.jsonl
//   node bench.mjs --sizes    one markdown line: the component's size (and jco's
//                             JavaScript for it) beside the npm package's wasm
//                             module (raw and gzip -9)
//
// Needs the component transpiled by jco: `bash scripts/component.sh --jco`.
import { execFileSync } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

import { loadComponent, rootDir } from "./lib.mjs";

const PIECE = 64 * 1024;
const WARMUP_BYTES = 2 * 1024 * 1024;
const ID = "component-jco";
const LABEL = "dory-wire component via jco, reader.feed (WIT)";

/** Collects a stream's chunks, concatenated once at the end (as npm/bench). */
class ByteSink {
  constructor() {
    this.parts = [];
    this.length = 0;
  }
  append(bytes) {
    this.parts.push(bytes);
    this.length += bytes.length;
  }
  concat() {
    return Buffer.concat(this.parts, this.length);
  }
}

function decodeComponent(mod, body, piece) {
  const reader = new mod.decode.Reader("process-output", {});
  reader.open(200, "application/x-ndjson", undefined);
  const sinks = { stdout: new ByteSink(), stderr: new ByteSink() };
  for (let i = 0; i < body.length; i += piece) {
    const fed = reader.feed(body.subarray(i, Math.min(i + piece, body.length)));
    for (const event of fed.events) {
      if (event.tag === "output") sinks[event.val.stream].append(event.val.data);
    }
    if (fed.error) throw new Error(fed.error.message);
  }
  const finished = reader.finish();
  reader[Symbol.dispose]();
  if (finished.end.tag !== "ok" || finished.end.val.tag !== "exited") {
    throw new Error(`the corpus must end with exit, got ${JSON.stringify(finished.end.val.tag ?? finished.end.val.code)}`);
  }
  return [sinks.stdout.concat().length, sinks.stderr.concat().length];
}

async function child(file, piece) {
  const mod = await loadComponent();
  const body = readFileSync(file);
  // Warm the JIT on a prefix cut at a line end (not timed; it ends without exit).
  const cut = body.lastIndexOf(10, Math.min(WARMUP_BYTES, body.length - 1)) + 1;
  try {
    decodeComponent(mod, body.subarray(0, cut), piece);
  } catch {
    // expected: no exit frame in the prefix
  }
  const baseRss = process.memoryUsage().rss;
  const c0 = process.cpuUsage();
  const w0 = process.hrtime.bigint();
  const check = decodeComponent(mod, body, piece);
  const cpu = process.cpuUsage(c0);
  return {
    secs: (cpu.user + cpu.system) / 1e6,
    wall: Number(process.hrtime.bigint() - w0) / 1e9,
    bytes: body.length,
    peak_rss: process.resourceUsage().maxRSS * 1024,
    base_rss: baseRss,
    check,
  };
}

function sizes() {
  const size = (path) => {
    const bytes = readFileSync(path);
    return `${(bytes.length / 1024).toFixed(0)} KiB (gzip -9: ${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(0)} KiB)`;
  };
  const component = join(rootDir, "target", "component", "dory-wire.wasm");
  const npmWasm = join(rootDir, "npm", "dist", "node", "wasm", "dory_wire_wasm_bg.wasm");
  const parts = [`the component (\`npm/component/dory-wire.wasm\`) is ${size(component)}`];
  const glue = join(rootDir, "target", "component", "jco", "dory-wire.js");
  try {
    statSync(glue);
    parts.push(`jco's JavaScript for it ${size(glue)}`);
  } catch {
    // not transpiled: no figure
  }
  try {
    statSync(npmWasm);
    parts.push(`the npm package's wasm-bindgen module ${size(npmWasm)}`);
  } catch {
    parts.push("the npm package's module was not built");
  }
  console.log(`Sizes: ${parts.join("; ")}.`);
}

function parseArgs(argv) {
  const args = { corpora: "target/bench-corpora", mb: 100, runs: 5, out: "target/bench-results/results.jsonl", piece: PIECE };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, "");
    if (key === "sizes") args.sizes = true;
    else args[key] = ["mb", "runs", "piece"].includes(key) ? Number(argv[++i]) : argv[++i];
  }
  return args;
}

function corpusPath(dir, letter, mb) {
  const re = new RegExp(`^${letter}-${mb}MB-v\\d+\\.ndjson$`);
  const found = readdirSync(dir).filter((f) => re.test(f)).sort();
  if (found.length === 0) throw new Error(`no corpus ${letter} at ${mb} MB in ${dir}: run dory-bench corpora`);
  return join(dir, found[found.length - 1]);
}

const args = parseArgs(process.argv.slice(2));
if (args.sizes) {
  sizes();
} else if (args.child) {
  console.log(JSON.stringify(await child(args.file, args.piece)));
} else {
  for (const letter of ["A", "B", "C", "D"]) {
    const file = corpusPath(args.corpora, letter, args.mb);
    console.error(`node: component (jco) on ${letter} …`);
    const checks = new Set();
    for (let r = 0; r < args.runs; r++) {
      const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", "1", "--file", file, "--piece", String(args.piece)], {
        encoding: "utf8",
        maxBuffer: 1 << 20,
        stdio: ["ignore", "pipe", "inherit"],
      });
      const m = JSON.parse(out);
      checks.add(m.check.join(","));
      const record = { lang: "node", group: "reader", corpus: letter, id: ID, label: LABEL, role: "component", secs: m.secs, wall: m.wall, bytes: m.bytes, peak_rss: m.peak_rss, base_rss: m.base_rss };
      appendFileSync(args.out, JSON.stringify(record) + "\n");
    }
    if (checks.size !== 1) throw new Error(`component: runs disagree on ${letter}: ${[...checks].join(" vs ")}`);
  }
  console.error(`node: component records appended to ${args.out}`);
}
