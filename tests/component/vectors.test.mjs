// Every shared vector (tests/vectors/**/*.json, found by globbing) through the
// WebAssembly component from Node, via jco. Decode vectors are fed whole,
// byte by byte and at seeded random splits (the chunkings of the npm
// package's runner) and must give the expected events, end and cursor, the
// same every time. Preview vectors run the npm package's own checks
// (expectation, the invariants of docs/VECTORS.md, idempotence, streaming =
// whole) against the component. A vector's `max_tokens` and `tokenizer` go
// to every bounder (whole, streaming, run), and each preview's `tokens` is
// `expect.tokens` when given, `count-tokens` of its text, within
// `max_tokens`; a tokenizer the component lacks (not in `tokenizers()`, as
// `o200k_base`, the default) must be refused by every bounder as
// `invalid_argument` (argument `tokenizer`). Conversation vectors drive the exported
// follower through their exchanges (docs/VECTORS.md, "kind conversation"):
// requests compared, responses played with their bodies whole, byte by byte
// and at seeded random splits (the same decisions every time), the stall
// protocol on the vector's clock, decisions and the output compared. Unlike
// the npm package, the component holds every u64 exactly (BigInt), so the
// vectors' expectations apply unchanged. Run vectors are played through the
// exported run-bounder whole, byte by byte, at the seeded splits of the Rust
// runner and as the events `feed` takes (the same result every time); each
// view's expected fields are compared, both limits checked, and a view
// without losses or a stderr section must be `bound` of its bytes.
// Run-conversation vectors drive the exported `run` resource (docs/VECTORS.md,
// "kind run-conversation"): requests and steps compared, responses played
// with their bodies whole, byte by byte and at seeded random splits (the same
// play every time), the actions done by a recording spill writer and output
// hook, and the result compared. Search vectors run the npm package's own
// check (whole, byte by byte, seeded splits) against the exported searcher.
// Last, wrong expectations of each kind must
// be reported (the runner can fail).
import assert from "node:assert/strict";
import { test } from "node:test";

import { loadVectors } from "../../npm/test/helpers.mjs";
import { checkPreviewVector } from "../../npm/test/preview-lib.mjs";
import { checkSearch, chunkings, vectorBody } from "../../npm/test/vector-lib.mjs";
import {
  big,
  CONVERSATION_SPLITS,
  checkRunConversationVector,
  checkRunVector,
  compareDecode,
  conversationVector,
  decodeVector,
  isWitError,
  loadComponent,
  missingTokenizer,
  playRunConversation,
  previewApi,
  previewOptions,
  previewTokenProblems,
  runConversationProblems,
  same,
  searchApi,
  tokenizerRefusals,
  vectorTokens,
} from "./lib.mjs";

const mod = await loadComponent();
const vectors = loadVectors();
const decode = vectors.filter((v) => v.kind === "decode");
const preview = vectors.filter((v) => v.kind === "preview");
const conversation = vectors.filter((v) => v.kind === "conversation");
const run = vectors.filter((v) => v.kind === "run");
const runConversation = vectors.filter((v) => v.kind === "run-conversation");
const search = vectors.filter((v) => v.kind === "search");

test("the vectors are found", () => {
  assert.ok(decode.length > 0, "no decode vectors");
  assert.ok(preview.length > 0, "no preview vectors");
  assert.ok(conversation.length > 0, "no conversation vectors");
  assert.ok(run.length > 0, "no run vectors");
  assert.ok(runConversation.length >= 25, `at least 25 run-conversation vectors, found ${runConversation.length}`);
  assert.ok(search.length >= 20, `at least 20 search vectors, found ${search.length}`);
  const kinds = new Set(vectors.map((v) => v.kind));
  assert.deepEqual([...kinds].sort(), ["conversation", "decode", "preview", "run", "run-conversation", "search"], "a kind this runner does not know");
});

const searching = searchApi(mod);
for (const v of search) {
  test(`search ${v.name}, whole, byte by byte and at the Rust runner's splits`, () => {
    const problems = checkSearch(searching, v);
    assert.deepEqual(problems, [], `${v.name}:\n  ${problems.join("\n  ")}`);
  });
}

test("the search runner can fail: a wrong text, count or error expectation is reported", () => {
  const v = search.find((x) => x.expect.text !== undefined && x.expect.truncated);
  assert.deepEqual(checkSearch(searching, v), []);
  assert.match(checkSearch(searching, v, { ...v.expect, text: "not this" }).join("\n"), /^text: got /);
  assert.ok(checkSearch(searching, v, { matched_lines: 12345 }).length > 0);
  assert.ok(checkSearch(searching, v, { error: { code: "invalid_argument" } }).length > 0);
  const failing = search.find((x) => x.expect.error !== undefined);
  assert.deepEqual(checkSearch(searching, failing), []);
  assert.ok(checkSearch(searching, failing, { text: "" }).length > 0);
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
    const problems = [];
    for (const v of preview.filter((x) => x.file === file)) {
      const missing = missingTokenizer(mod, v);
      if (missing !== null) {
        for (const p of tokenizerRefusals(mod, v, missing)) problems.push(`${v.name}: ${p}`);
        continue;
      }
      checkPreviewVector(previewApi(mod, vectorTokens(v)), v);
      for (const p of previewTokenProblems(mod, v)) problems.push(`${v.name}: ${p}`);
    }
    assert.deepEqual(problems, []);
  });
}

for (const file of [...new Set(run.map((v) => v.file))]) {
  test(`run vectors of ${file}, whole, byte by byte, at the Rust runner's splits and through feed`, () => {
    const problems = [];
    for (const v of run.filter((x) => x.file === file)) for (const p of checkRunVector(mod, v)) problems.push(`${v.name}: ${p}`);
    assert.deepEqual(problems, []);
  });
}

for (const file of [...new Set(runConversation.map((v) => v.file))]) {
  test(`run-conversation vectors of ${file}, bodies whole, byte by byte and at random splits`, () => {
    const problems = [];
    for (const v of runConversation.filter((x) => x.file === file)) for (const p of checkRunConversationVector(mod, v)) problems.push(`${v.name}: ${p}`);
    assert.deepEqual(problems, []);
  });
}

test("the run-conversation runner can fail: a wrong request, step, delay, spill, hook text, result or state is reported", () => {
  const v = runConversation.find((x) => x.name === "run-output-cut-mid-frame-resumes-from-the-cursor");
  assert.ok(v, "the vector");
  assert.deepEqual(runConversationProblems(v, playRunConversation(mod, v, 0)), [], "the vector as it is passes");
  const wrong = [
    (w) => (w.exchanges[1].request.target = "/elsewhere"),
    (w) => (w.exchanges[0].step = { type: "done" }),
    (w) => (w.exchanges[1].step.reconnect.delay_ms = 7.0),
    (w) => (w.expect.spills.stdout.data = "abcx\n"),
    (w) => (w.expect.spills.combined.end = "commit"),
    (w) => (w.expect.output.stdout.text = "abc\n"),
    (w) => (w.expect.result.combined.text = "ab\n"),
    (w) => (w.expect.state = "cancelled"),
    (w) => delete w.expect.spills.stdout,
    (w) => (w.expect.result = null),
  ];
  for (const edit of wrong) {
    const w = structuredClone(v);
    edit(w);
    assert.notDeepEqual(runConversationProblems(w, playRunConversation(mod, w, 0)), [], `passed ${edit}`);
    assert.notDeepEqual(checkRunConversationVector(mod, w), [], `the whole check passed ${edit}`);
  }
});

test("the run resource: its checks before any request, its accessors and its sticky error", () => {
  const { Run } = mod.runMachine;
  const make = { tag: "shell", val: "make" };
  assert.throws(
    () => new Run("c1", make, { follow: {} }, new Uint8Array(3)),
    (err) => isWitError(err) && err.code === "invalid_argument" && err.fields.some((f) => f.name === "argument" && f.value.val === "random"),
  );
  const r = new Run("c1", make, { follow: {} }, new Uint8Array(16).fill(0xab));
  assert.equal(r.idempotencyKey(), `run-${"ab".repeat(16)}`);
  assert.equal(r.state(), "starting");
  assert.equal(r.procId(), undefined);
  assert.match(r.spillId("combined"), /^run-[0-9a-f]{32}-combined$/);
  assert.deepEqual(r.cursor(), { stdout: 0n, stderr: 0n });
  assert.throws(() => r.result(), (err) => isWitError(err) && err.code === "invalid_state");
  assert.equal(r.request().target, "/computers/c1/processes");
  let failed;
  try {
    r.open(404, "application/json", undefined, undefined);
    r.feed(new TextEncoder().encode('{"error":{"code":"not_found","message":"no such computer"}}'));
    const finished = r.finish(undefined, 0);
    failed = finished.step.val;
  } catch (err) {
    failed = err;
  }
  assert.ok(isWitError(failed) && failed.code === "api_error", JSON.stringify(failed, big));
  assert.equal(r.state(), "failed");
  assert.throws(() => r.request(), (err) => isWitError(err) && err.code === "api_error", "the error is sticky");
  r[Symbol.dispose]();
});

test("check-limits at its edges, run-spill-id and the run's defaults", () => {
  const { run: r } = mod;
  const least = r.minRunMaxBytes();
  const [lines, size] = [r.defaultRunMaxLines(), r.defaultRunMaxBytes()];
  r.checkLimits(lines, size);
  r.checkLimits(2n, least);
  for (const [l, b] of [[1n, size], [0n, 0n], [2n, least - 1n], [lines, least - 1n]]) {
    assert.throws(
      () => r.checkLimits(l, b),
      (err) => isWitError(err) && err.code === "invalid_limits" && err.kind === "limits",
      `check-limits(${l}, ${b})`,
    );
  }
  const key = r.runSpillId("key-1");
  assert.match(key, /^run-[0-9a-f]{32}$/);
  assert.equal(r.runSpillId("key-1"), key);
  assert.notEqual(r.runSpillId("key-2"), key);
  const rb = new r.RunBounder(lines, size, undefined, previewOptions());
  assert.equal(rb.spillId("combined"), undefined, "an unnamed spill id before finish");
  rb.push("stdout", new Uint8Array([120]));
  const pending = r.RunBounder.finish(rb);
  assert.match(pending.spillId("stdout"), /^[0-9a-f]{32}$/, "a content-derived spill id");
  pending[Symbol.dispose]();
});

test("preview-options: default-keep-patterns, kept lines, rendering, and a refused pattern in every bounder", () => {
  const { preview: pv, run: r } = mod;
  const defaults = pv.defaultKeepPatterns();
  assert.ok(defaults.length > 0 && defaults.every((p) => typeof p === "string"));
  assert.equal(defaults[0], "^(FAILED|ERROR) [^ ]+(::| - )");
  const enc = new TextEncoder();
  let log = "";
  for (let i = 1; i <= 300; i++) log += i === 150 ? "\x1b[31merror\x1b[0m: boom\n" : `ok ${i}\n`;
  const text = (options) => {
    const b = pv.bound(enc.encode(log), 12n, 400n, undefined, options);
    assert.equal(b.tag, "needs-spill");
    const t = b.val.render({ tag: "not-saved" }, undefined).text;
    b.val[Symbol.dispose]();
    return t;
  };
  const kept = text(previewOptions("defaults", true));
  assert.ok(kept.includes("\n150:error: boom\n"), kept);
  assert.ok(kept.endsWith("[... terminal: 2 escape sequences removed ...]\n"), kept);
  assert.equal(text(previewOptions([...defaults], true)), kept, "defaults are default-keep-patterns()");
  assert.ok(!text(previewOptions()).includes("150:"), "off by default");
  const bad = previewOptions(["("]);
  const refused = (err) => isWitError(err) && err.code === "invalid_argument" && err.message.includes("keep");
  assert.throws(() => pv.bound(enc.encode("x"), 1n, 40n, undefined, bad), refused, "bound");
  assert.throws(() => new pv.StreamingBounder(1n, 40n, undefined, bad), refused, "streaming-bounder");
  assert.throws(() => new r.RunBounder(2n, 80n, undefined, bad), refused, "run-bounder");
});

test("split and run-preset: the tail split in every bounder, run's shape read from the core", () => {
  const { preview: pv, run: r } = mod;
  assert.deepEqual(pv.runPreset(), { keep: { tag: "defaults" }, terminal: true, split: "tail", maxTokens: undefined, tokenizer: undefined });
  const enc = new TextEncoder();
  let log = "";
  for (let i = 1; i <= 100; i++) log += `line ${i}\n`;
  const b = pv.bound(enc.encode(log), 9n, 4096n, undefined, previewOptions(undefined, false, "tail"));
  const tail = b.val.render({ tag: "not-saved" }, undefined).text;
  b.val[Symbol.dispose]();
  assert.ok(tail.startsWith("line 1\n[... "), tail);
  assert.ok(tail.endsWith("line 94\nline 95\nline 96\nline 97\nline 98\nline 99\nline 100\n"), tail);
  const s = new pv.StreamingBounder(9n, 4096n, undefined, previewOptions(undefined, false, "tail"));
  s.push(enc.encode(log));
  const sb = pv.StreamingBounder.finish(s);
  assert.equal(sb.val.render({ tag: "not-saved" }, undefined).text, tail);
  sb.val[Symbol.dispose]();
  const rb = new r.RunBounder(9n, 4096n, undefined, previewOptions(undefined, false, "tail"));
  rb.push("stdout", enc.encode(log));
  const pending = r.RunBounder.finish(rb);
  assert.equal(pending.render("stdout", { tag: "not-saved" }, undefined).text, tail);
  pending[Symbol.dispose]();
});

test("the runner can fail: a wrong expectation of each kind is reported", () => {
  const copy = (v) => structuredClone(v);
  const v = run.find((x) => x.expect.combined?.truncated);
  assert.deepEqual(checkRunVector(mod, v), [], "the vector as it is passes");
  const wrong = [
    (e) => (e.combined.preview = "not this"),
    (e) => (e.stdout.lost_bytes = 12345),
    (e) => (e.stderr.spill_id = "x"),
    (e) => (e.combined.spill_error = !e.combined.spill_error),
    (e) => (e.stdout.needs_spill = !e.stdout.needs_spill),
  ];
  for (const edit of wrong) {
    const expect = copy(v.expect);
    edit(expect);
    assert.notDeepEqual(checkRunVector(mod, v, expect), [], `passed ${edit}`);
  }
  assert.notDeepEqual(checkRunVector(mod, v, { error: { code: "invalid_limits" } }), [], "passed an error for a result");

  const d = copy(decode.find((x) => x.expect.events?.length));
  assert.deepEqual(compareDecode(d, decodeVector(mod, d, [vectorBody(d)])), []);
  d.expect.events.push({ type: "heartbeat" });
  assert.notDeepEqual(compareDecode(d, decodeVector(mod, d, [vectorBody(d)])), [], "passed a decode event too many");

  const p = copy(preview.find((x) => x.expect.preview !== undefined));
  const api = previewApi(mod);
  checkPreviewVector(api, p);
  p.expect.preview = "not this";
  assert.throws(() => checkPreviewVector(api, p), undefined, "passed a wrong preview");

  const t = copy(preview.find((x) => x.expect.tokens !== undefined && missingTokenizer(mod, x) === null));
  assert.deepEqual(previewTokenProblems(mod, t), []);
  t.expect.tokens += 1;
  assert.notDeepEqual(previewTokenProblems(mod, t), [], "passed wrong tokens");

  const c = copy(conversation.find((x) => x.exchanges.at(-1).decision.type === "done"));
  assert.deepEqual(conversationVector(mod, c, 0).problems, []);
  c.exchanges.at(-1).decision.type = "continue";
  assert.notDeepEqual(conversationVector(mod, c, 0).problems, [], "passed a wrong decision");
});

test("the error table lists every code with its class, kind and field names", () => {
  const rows = mod.types.errorCodes();
  const gap = rows.find((r) => r.code === "output_gap");
  assert.deepEqual(gap, { code: "output_gap", className: "OutputGap", kind: "loss", fields: ["stream", "consumed", "earliest"] });
  assert.equal(new Set(rows.map((r) => r.code)).size, rows.length);
});
