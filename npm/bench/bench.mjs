#!/usr/bin/env node
// The Node side of `make bench` (scripts/bench.sh; method in docs/bench.md).
//
// Compares the package's wasm `Reader` with the decoder a JS SDK author
// writes by hand (`JSON.parse` + `Buffer.from`, with offset checks) on the
// corpora made by `dory-bench corpora`. Both collect each stream's bytes into
// the same growable buffer. A variant collects them with `feedInto` into a
// `Transcript`, inside wasm memory, and copies each stream out once. Each measured run is a child process (`--child`),
// so its peak RSS (`resourceUsage().maxRSS`) is its own; runs are
// interleaved; time is the process's CPU time (`process.cpuUsage`). Results
// are JSON lines appended to `--out` for `dory-bench report`.
//
//   node bench.mjs --corpora DIR --mb 100 --runs 5 --out results.jsonl

import { execFileSync } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runPreviewCalls } from "./preview-calls.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const PIECE = 64 * 1024;
const WARMUP_BYTES = 2 * 1024 * 1024;

const IMPLS = {
  wasm: { group: "reader", label: "dory-wire Reader.feed (wasm), bytes per stream", role: "ours" },
  "wasm-transcript": { group: "reader", label: "dory-wire Reader.feedInto a Transcript (wasm)", role: "ours-variant" },
  follower: { group: "reader", label: "dory-wire Follower.feed (wasm), one response, no faults", role: "ours-variant" },
  "pure-js": { group: "reader", label: "JSON.parse + Buffer.from + offset checks", role: "baseline" },
};

/**
 * What both decoders collect each stream's bytes into, as a JS author would:
 * the chunks in an array (no copy per frame), concatenated once at the end.
 */
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

/** The hand-written decoder: lines, JSON.parse, Buffer.from, offset checks. */
function decodePureJs(body, piece) {
  const sinks = { stdout: new ByteSink(), stderr: new ByteSink() };
  let partial = null;
  let exitCode;
  let exited = false;
  const onLine = (buf, start, end) => {
    if (end === start) return;
    if (exited) throw new Error("frame after exit");
    const frame = JSON.parse(buf.toString("utf8", start, end));
    const type = frame.type;
    if (type === "stdout" || type === "stderr") {
      let bytes;
      if (frame.encoding === "base64") bytes = Buffer.from(frame.data, "base64");
      else if (frame.encoding === undefined || frame.encoding === "utf-8") bytes = Buffer.from(frame.data, "utf8");
      else throw new Error(`unknown encoding ${frame.encoding}`);
      const endOffset = frame.offset;
      const startOffset = endOffset - bytes.length;
      if (!Number.isSafeInteger(endOffset) || startOffset < 0) throw new Error("bad offset");
      const sink = sinks[type];
      const consumed = sink.length;
      if (startOffset > consumed) throw new Error(`gap: expected ${consumed}, chunk starts at ${startOffset}`);
      if (endOffset > consumed) sink.append(startOffset === consumed ? bytes : bytes.subarray(consumed - startOffset));
    } else if (type === "exit") {
      exitCode = frame.exit_code;
      exited = true;
    }
  };
  for (let i = 0; i < body.length; i += piece) {
    let chunk = body.subarray(i, Math.min(i + piece, body.length));
    if (partial !== null) {
      chunk = Buffer.concat([partial, chunk]);
      partial = null;
    }
    let pos = 0;
    for (let nl = chunk.indexOf(10, pos); nl !== -1; nl = chunk.indexOf(10, pos)) {
      onLine(chunk, pos, nl);
      pos = nl + 1;
    }
    if (pos < chunk.length) partial = Buffer.from(chunk.subarray(pos));
  }
  if (exitCode !== 0) throw new Error(`the corpus must end with exit 0, got ${exitCode}`);
  return [sinks.stdout.concat().length, sinks.stderr.concat().length];
}

function decodeWasm(lib, body, piece) {
  const reader = new lib.Reader("process_output");
  reader.open(200, "application/x-ndjson");
  const sinks = { stdout: new ByteSink(), stderr: new ByteSink() };
  for (let i = 0; i < body.length; i += piece) {
    const events = reader.feed(body.subarray(i, Math.min(i + piece, body.length)));
    for (const event of events) {
      if (event.type === "output") sinks[event.stream].append(event.data);
    }
  }
  const [, end] = reader.finish();
  if (end.type !== "exited") throw new Error(`the corpus must end with exit, got ${end.type}`);
  reader.free();
  return [sinks.stdout.concat().length, sinks.stderr.concat().length];
}

// decodeWasm through the follower: its request, the response's head, the
// body, its decision — what the whole conversation costs over the reader.
function decodeFollower(lib, body, piece) {
  const follower = lib.Follower.processOutput("bench", "p1");
  follower.request();
  follower.open(200, "application/x-ndjson");
  const sinks = { stdout: new ByteSink(), stderr: new ByteSink() };
  for (let i = 0; i < body.length; i += piece) {
    const events = follower.feed(body.subarray(i, Math.min(i + piece, body.length)));
    for (const event of events) {
      if (event.type === "output") sinks[event.stream].append(event.data);
    }
  }
  const [, decision] = follower.finish(undefined, 0);
  if (decision.type !== "done" || !decision.exited) throw new Error(`the corpus must end with exit, got ${decision.type}`);
  follower.free();
  return [sinks.stdout.concat().length, sinks.stderr.concat().length];
}

function decodeWasmTranscript(lib, body, piece) {
  const reader = new lib.Reader("process_output");
  reader.open(200, "application/x-ndjson");
  const transcript = new lib.Transcript();
  for (let i = 0; i < body.length; i += piece) {
    reader.feedInto(body.subarray(i, Math.min(i + piece, body.length)), transcript);
  }
  const [, end] = reader.finish();
  if (end.type !== "exited") throw new Error(`the corpus must end with exit, got ${end.type}`);
  reader.free();
  const check = [transcript.bytes("stdout").length, transcript.bytes("stderr").length];
  transcript.free();
  return check;
}

function child(impl, file, piece) {
  const require = createRequire(import.meta.url);
  const lib = impl === "pure-js" ? null : require(join(here, "..", "dist", "node", "index.cjs"));
  const body = readFileSync(file);
  const decoders = {
    wasm: (b) => decodeWasm(lib, b, piece),
    follower: (b) => decodeFollower(lib, b, piece),
    "wasm-transcript": (b) => decodeWasmTranscript(lib, b, piece),
    "pure-js": (b) => decodePureJs(b, piece),
  };
  const run = decoders[impl];
  // Warm the JIT on a prefix cut at a line end (not timed); the prefix has no
  // exit frame, so run it through a reader that tolerates that.
  const cut = body.lastIndexOf(10, Math.min(WARMUP_BYTES, body.length - 1)) + 1;
  try {
    run(body.subarray(0, cut));
  } catch {
    // the prefix ends without `exit`: expected
  }
  const baseRss = process.memoryUsage().rss;
  const c0 = process.cpuUsage();
  const w0 = process.hrtime.bigint();
  const check = run(body);
  const cpu = process.cpuUsage(c0);
  const wall = Number(process.hrtime.bigint() - w0) / 1e9;
  return {
    secs: (cpu.user + cpu.system) / 1e6,
    wall,
    bytes: body.length,
    peak_rss: process.resourceUsage().maxRSS * 1024,
    base_rss: baseRss,
    check,
  };
}

function parseArgs(argv) {
  const args = { corpora: "target/bench-corpora", mb: 100, runs: 5, out: "target/bench-results/results.jsonl", piece: PIECE };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    args[key] = ["mb", "runs", "piece"].includes(key) ? Number(argv[i + 1]) : argv[i + 1];
  }
  return args;
}

function corpusPath(dir, letter, mb) {
  const re = new RegExp(`^${letter}-${mb}MB-v\\d+\\.ndjson$`);
  const found = readdirSync(dir).filter((f) => re.test(f)).sort();
  if (found.length === 0) throw new Error(`no corpus ${letter} at ${mb} MB in ${dir}: run dory-bench corpora`);
  return join(dir, found[found.length - 1]);
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.child) {
    console.log(JSON.stringify(child(args.child, args.file, args.piece)));
    return;
  }
  for (const letter of ["A", "B", "C", "D"]) {
    const file = corpusPath(args.corpora, letter, args.mb);
    console.error(`node: reader on ${letter} …`);
    const checks = new Set();
    for (let r = 0; r < args.runs; r++) {
      for (const impl of Object.keys(IMPLS)) {
        const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", impl, "--file", file, "--piece", String(args.piece)], {
          encoding: "utf8",
          maxBuffer: 1 << 20,
          stdio: ["ignore", "pipe", "inherit"],
        });
        const m = JSON.parse(out);
        checks.add(m.check.join(","));
        const { group, label, role } = IMPLS[impl];
        const record = { lang: "node", group, corpus: letter, id: impl, label, role, secs: m.secs, wall: m.wall, bytes: m.bytes, peak_rss: m.peak_rss, base_rss: m.base_rss };
        appendFileSync(args.out, JSON.stringify(record) + "\n");
      }
    }
    if (checks.size !== 1) throw new Error(`node: decoders disagree on ${letter}: ${[...checks].join(" vs ")}`);
  }
  runPreviewCalls({ runs: args.runs, out: args.out });
  console.error(`node: records appended to ${args.out}`);
}

main();
