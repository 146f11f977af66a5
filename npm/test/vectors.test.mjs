// The shared conformance vectors (tests/vectors/**/*.json, docs/VECTORS.md):
// every file is globbed, every kind runs: each decode vector is fed whole,
// byte by byte and at seeded random splits; every preview vector is checked
// against its expectation and the preview invariants; every conversation
// vector is played through a Follower, its bodies fed whole, byte by byte and
// at seeded random splits (the same requests, decisions and events each
// time), and once more through feedInto and a Transcript; every run vector
// goes through a RunBounder whole, byte by byte and at the Rust runner's
// seeded splits, each view checked against its expectation, both limits and
// (without losses or a stderr section) bound() of that view's bytes; every
// run-conversation vector is played through a Run, its bodies fed whole,
// byte by byte and at seeded random splits (the same requests, steps,
// actions and result each time); every search vector goes through a
// Searcher whole, byte by byte and at the Rust runner's seeded splits.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as api from "dory-wire";
import { loadVectors } from "./helpers.mjs";
import {
  SplitMix64,
  checkConversation,
  checkRun,
  checkRunConversation,
  checkSearch,
  chunkings,
  compareJs,
  conversationSplits,
  decodeIntoJs,
  decodeJs,
  intoFromEvents,
  playConversation,
  playRun,
  playRunConversation,
  runBytes,
  runItems,
  runConversationRefusal,
  toB64,
  vectorBody,
} from "./vector-lib.mjs";
import { checkPreviewVector } from "./preview-lib.mjs";

const vectors = loadVectors();
const decodeVectors = vectors.filter((v) => v.kind === "decode");
const previewVectors = vectors.filter((v) => v.kind === "preview");
const conversationVectors = vectors.filter((v) => v.kind === "conversation");
const runVectors = vectors.filter((v) => v.kind === "run");
const runConversationVectors = vectors.filter((v) => v.kind === "run-conversation");
const searchVectors = vectors.filter((v) => v.kind === "search");

test("vectors are found", () => {
  assert.ok(vectors.length > 0, "no vector found below tests/vectors");
  assert.ok(decodeVectors.length > 0, "no decode vector found");
  const names = new Set();
  for (const v of vectors) {
    assert.ok(!names.has(v.name), `duplicate vector name ${v.name}`);
    names.add(v.name);
    assert.ok(["decode", "preview", "conversation", "run", "run-conversation", "search"].includes(v.kind), `${v.name}: unknown kind ${v.kind}`);
  }
  // docs/VECTORS.md: every runner fails with fewer than 40 conversations.
  assert.ok(conversationVectors.length >= 40, `at least 40 conversation vectors, found ${conversationVectors.length}`);
  // docs/VECTORS.md: at least 15 run vectors.
  assert.ok(runVectors.length >= 15, `at least 15 run vectors, found ${runVectors.length}`);
  // docs/VECTORS.md: at least 20 search vectors.
  assert.ok(searchVectors.length >= 20, `at least 20 search vectors, found ${searchVectors.length}`);
  // docs/VECTORS.md: at least 25 run-conversation vectors.
  assert.ok(runConversationVectors.length >= 25, `at least 25 run-conversation vectors, found ${runConversationVectors.length}`);
  const shown = (f) => runVectors.some((v) => v.expect.combined !== undefined && f(v));
  assert.ok(shown((v) => v.input.some((i) => i.stdout !== undefined) && v.input.some((i) => i.stderr !== undefined)), "a run vector with both streams");
  assert.ok(shown((v) => v.expect.combined.lost_bytes > 0), "a run vector with a loss");
  assert.ok(shown((v) => v.expect.combined.preview.includes("[... the last ")), "a run vector with a stderr section");
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

for (const v of conversationVectors) {
  test(`conversation ${v.file} ${v.name}`, () => {
    let whole;
    const failures = [];
    for (const [how, makeSplit] of conversationSplits(v.name)) {
      const run = playConversation(api, v, makeSplit());
      const problems = checkConversation(v, run);
      if (problems.length > 0) failures.push(`fed ${how}:\n  ${problems.join("\n  ")}`);
      if (whole === undefined) whole = run;
      else if (JSON.stringify(run) !== JSON.stringify(whole)) failures.push(`fed ${how}: the conversation differs from feeding whole`);
    }
    // Once more through feedInto: the output lands in a Transcript, every
    // other event and every decision are those of feed.
    const transcript = new api.Transcript();
    try {
      const into = playConversation(api, v, () => [], transcript);
      const others = (run) => run.events.filter((e) => e.type !== "stdout" && e.type !== "stderr");
      assert.deepEqual(into.decisions, whole.decisions, `${v.name}: feedInto decides otherwise`);
      assert.deepEqual(into.requests, whole.requests, `${v.name}: feedInto asks otherwise`);
      assert.deepEqual(into.events, others(whole), `${v.name}: feedInto delivers other events`);
      for (const stream of ["stdout", "stderr"]) {
        assert.equal(toB64(transcript.bytes(stream)), toB64(runBytes(whole, stream)), `${v.name}: feedInto's ${stream}`);
      }
    } finally {
      transcript.free();
    }
    assert.deepEqual(failures, [], `${v.name}:\n${failures.join("\n")}`);
  });
}

for (const v of searchVectors) {
  test(`search ${v.file} ${v.name}`, () => {
    const problems = checkSearch(api, v);
    assert.deepEqual(problems, [], `${v.name}:\n  ${problems.join("\n  ")}`);
  });
}

test("the search runner can fail: a wrong text, count or error expectation is reported", () => {
  const v = searchVectors.find((x) => x.expect.text !== undefined && x.expect.truncated);
  assert.ok(v, "a search vector that is cut");
  assert.deepEqual(checkSearch(api, v), []);
  assert.match(checkSearch(api, v, { ...v.expect, text: "not this" }).join("\n"), /^text: got /);
  assert.deepEqual(checkSearch(api, v, { matched_lines: 12345 }), [`matched_lines: got ${v.expect.matched_lines} expected 12345`]);
  assert.ok(checkSearch(api, v, { error: { code: "invalid_argument" } }).length > 0);
  const failing = searchVectors.find((x) => x.expect.error !== undefined);
  assert.deepEqual(checkSearch(api, failing), []);
  assert.ok(checkSearch(api, failing, { text: "" }).length > 0);
  assert.ok(checkSearch(api, v, {}).length > 0);
});

for (const v of runVectors) {
  test(`run ${v.file} ${v.name}`, () => {
    const problems = checkRun(api, v);
    assert.deepEqual(problems, [], `${v.name}:\n  ${problems.join("\n  ")}`);
  });
}

for (const v of runConversationVectors) {
  test(`run-conversation ${v.file} ${v.name}`, () => {
    // A tokenizer this build lacks: its refusal is what a caller gets.
    const refused = runConversationRefusal(api, v);
    if (refused !== null) {
      assert.deepEqual(refused, [], v.name);
      return;
    }
    let whole;
    const failures = [];
    for (const [how, makeSplit] of conversationSplits(v.name)) {
      const played = playRunConversation(api, v, makeSplit());
      const problems = checkRunConversation(v, played);
      if (problems.length > 0) failures.push(`fed ${how}:\n  ${problems.join("\n  ")}`);
      if (whole === undefined) whole = played;
      else if (JSON.stringify(played) !== JSON.stringify(whole)) failures.push(`fed ${how}: the run differs from feeding whole`);
    }
    assert.deepEqual(failures, [], `${v.name}:\n${failures.join("\n")}`);
  });
}

test("the run-conversation runner can fail: a wrong request, step, delay, spill, hook text, result or state is caught", () => {
  const v = runConversationVectors.find((x) => x.name === "run-output-cut-mid-frame-resumes-from-the-cursor");
  assert.ok(v, "the vector");
  const played = playRunConversation(api, v, () => []);
  assert.deepEqual(checkRunConversation(v, played), []);
  const mutations = [
    [(c) => (c.exchanges[1].request.target = "/elsewhere"), /^request 1/],
    [(c) => (c.exchanges[0].step = { type: "done" }), /^step 0/],
    [(c) => (c.exchanges[1].step.reconnect.delay_ms = 7), /^step 1/],
    [(c) => (c.expect.spills.stdout.data = "abcx\n"), /^spill stdout data/],
    [(c) => (c.expect.spills.combined.end = "commit"), /^spill combined ended/],
    [(c) => (c.expect.output.stdout.text = "abc\n"), /^output stdout text/],
    [(c) => (c.expect.result.combined.text = "ab\n"), /^result/],
    [(c) => (c.expect.state = "cancelled"), /^state/],
    [(c) => c.exchanges.push(c.exchanges[c.exchanges.length - 1]), /^step 3/m],
  ];
  for (const [i, [mutate, caught]] of mutations.entries()) {
    const copy = JSON.parse(JSON.stringify(v));
    mutate(copy);
    const problems = checkRunConversation(copy, playRunConversation(api, copy, () => []));
    assert.match(problems.join("\n"), caught, `mutation ${i} went unnoticed`);
  }
});

test("the run-conversation runner passes a token limit to the Run: counted in every preview of the result; a tokenizer this build lacks is refused", () => {
  const v = runConversationVectors.find((x) => x.name === "run-output-cut-mid-frame-resumes-from-the-cursor");
  assert.ok(v, "the vector");
  // A tokenizer alone only counts: the vector's expectations still hold.
  const counted = { ...v, run: { ...v.run, tokenizer: "approx" } };
  assert.equal(runConversationRefusal(api, counted), null);
  const played = playRunConversation(api, counted, () => []);
  assert.deepEqual(checkRunConversation(counted, played), []);
  for (const view of ["stdout", "stderr", "combined"]) {
    assert.equal(played.result[view].tokens, api.countTokens(played.result[view].text, "approx"), view);
  }
  assert.equal(playRunConversation(api, v, () => []).result.combined.tokens, null, "no token option: not counted");
  assert.deepEqual(runConversationRefusal(api, { ...v, run: { ...v.run, max_tokens: 100, tokenizer: "o200k_base" } }), []);
  assert.deepEqual(runConversationRefusal(api, { ...v, run: { ...v.run, max_tokens: 100 } }), []);
  assert.match(runConversationRefusal({ ...api, TOKENIZERS: [] }, counted).join("\n"), /must be refused/);
});

test("the preview runner checks tokens: a wrong count, a refusal this build does not give, and one it gives are caught", () => {
  const v = previewVectors.find((x) => x.tokenizer === "approx" && x.expect.tokens !== undefined && x.expect.truncated);
  assert.ok(v, "a cut approx vector that expects a count");
  checkPreviewVector(api, v);
  assert.throws(() => checkPreviewVector(api, { ...v, expect: { ...v.expect, tokens: Number(v.expect.tokens) + 1 } }), /tokens/);
  // A build that had no approx would have to refuse it: this one plays it.
  assert.throws(() => checkPreviewVector({ ...api, TOKENIZERS: [] }, v), /must be refused/);
  // A vector whose tokenizer this build lacks is checked refused; a build
  // said to have it plays it, and the core's refusal is then a failure.
  const exact = previewVectors.find((x) => x.tokenizer === "o200k_base" && x.expect.error === undefined);
  assert.ok(exact, "an o200k_base vector");
  checkPreviewVector(api, exact);
  assert.throws(() => checkPreviewVector({ ...api, TOKENIZERS: [...api.TOKENIZERS, "o200k_base"] }, exact), (e) => e instanceof api.InvalidArgument && e.argument === "tokenizer");
  // max_tokens alone means the default tokenizer, which this build lacks too.
  const alone = previewVectors.find((x) => x.max_tokens !== undefined && x.tokenizer === undefined);
  assert.ok(alone, "a vector with max_tokens alone");
  checkPreviewVector(api, alone);
});

test("the run runner can fail: a wrong preview, count or error expectation is reported", () => {
  const v = runVectors.find((x) => x.expect.combined !== undefined && x.expect.combined.truncated && x.spill?.combined?.path);
  assert.ok(v, "a run vector whose combined view is cut and saved");
  assert.deepEqual(checkRun(api, v), []);
  const expect = () => JSON.parse(JSON.stringify(v.expect));
  const text = expect();
  text.combined.preview = "not this";
  assert.match(checkRun(api, v, text).join("\n"), /^combined\.preview: got /);
  const lost = expect();
  lost.stdout.lost_bytes = 12345;
  assert.match(checkRun(api, v, lost).join("\n"), /^stdout\.lost_bytes: got 0 expected 12345/);
  const path = expect();
  path.combined.spill_path = "/elsewhere.txt";
  assert.match(checkRun(api, v, path).join("\n"), /combined\.spill_path/);
  assert.deepEqual(checkRun(api, v, { error: { code: "invalid_limits" } }), ["expected error {\"code\":\"invalid_limits\"}, got a result"]);
  const failing = runVectors.find((x) => x.expect.error?.code === "invalid_limits");
  assert.ok(failing, "a run vector that expects an error");
  assert.deepEqual(checkRun(api, failing), []);
  assert.match(checkRun(api, failing, JSON.parse(JSON.stringify(v.expect)))[0], /^unexpected error invalid_limits/);
  // The bound() comparison and the limits are checked too: a vector whose
  // limits are tighter than its expected preview is reported.
  const tight = { ...v, max_bytes: 100, expect: v.expect };
  assert.ok(checkRun(api, tight).length > 0);
});

test("the run runner passes a token limit to every bounder: each view within it, counted, bound() of its bytes; a tokenizer this build lacks is refused", () => {
  const v = runVectors.find((x) => x.expect.combined !== undefined && x.expect.combined.truncated && x.spill?.combined?.path && x.expect.combined.lost_bytes === 0);
  assert.ok(v, "a run vector whose combined view is cut and saved, without losses");
  // The vector's limits with a budget that binds: its expected texts no longer apply, its checks do.
  const any = { stdout: {}, stderr: {}, combined: {} };
  const played = playRunVector(v, { max_tokens: 80, tokenizer: "approx" });
  assert.ok(played.combined.tokens <= 80 && played.combined.tokens === api.countTokens(played.combined.preview, "approx"), JSON.stringify(played.combined));
  assert.deepEqual(checkRun(api, { ...v, max_tokens: 80, tokenizer: "approx" }, any), []);
  assert.deepEqual(checkRun(api, { ...v, max_tokens: 80, tokenizer: "approx" }, { ...any, combined: { tokens: played.combined.tokens } }), []);
  assert.match(checkRun(api, { ...v, max_tokens: 80, tokenizer: "approx" }, { ...any, combined: { tokens: 1 } }).join("\n"), /^combined\.tokens: got /);
  assert.deepEqual(checkRun(api, { ...v, max_tokens: 80, tokenizer: "o200k_base" }, any), []);
  assert.deepEqual(checkRun(api, { ...v, max_tokens: 80 }, any), []);
  assert.match(checkRun({ ...api, TOKENIZERS: [] }, { ...v, max_tokens: 80, tokenizer: "approx" }, any).join("\n"), /must be refused/);
});

/** A run vector with other top-level fields, played whole. */
function playRunVector(v, fields) {
  const run = { ...v, ...fields };
  return playRun(api, run, runItems(run));
}

test("the conversation runner can fail: a wrong request, decision, delay, output or stall is caught", () => {
  const v = conversationVectors.find((x) => x.exchanges.some((e) => e.decision.type === "reconnect" && e.decision.delay_ms > 0) && x.expect.stdout);
  assert.ok(v, "a conversation with a delayed reconnect and stdout");
  const run = playConversation(api, v, () => []);
  assert.deepEqual(checkConversation(v, run), []);
  const copy = () => JSON.parse(JSON.stringify(v));
  const i = v.exchanges.findIndex((e) => e.decision.type === "reconnect" && e.decision.delay_ms > 0);
  const late = copy();
  late.exchanges[i].decision.delay_ms += 0.01;
  assert.match(checkConversation(late, run).join("\n"), new RegExp(`^decision ${i}`));
  const elsewhere = copy();
  elsewhere.exchanges[0].request.target += "&x=1";
  assert.match(checkConversation(elsewhere, run).join("\n"), /^request 0/);
  const more = copy();
  more.expect.stdout += "!";
  assert.match(checkConversation(more, run).join("\n"), /^stdout/);
  const lost = copy();
  lost.expect.skipped = [{ type: "skipped", stream: "stdout", from: 0, to: 1 }];
  assert.match(checkConversation(lost, run).join("\n"), /^skipped/);
  const short = copy();
  short.exchanges.push(short.exchanges[short.exchanges.length - 1]);
  assert.match(checkConversation(short, run).join("\n"), /exchanges scripted/);
  // A stall the follower does not report is a problem of the run.
  const stalled = copy();
  stalled.exchanges[0].response = { stall: true };
  stalled.options = { ...stalled.options, liveness_timeout_ms: 10 };
  const r = playConversation(api, stalled, () => []);
  assert.equal(r.decisions[0].reason, "no_response");
});

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
