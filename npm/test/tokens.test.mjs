// Token limits in the npm package (docs/preview.md, "Token limits"): the
// options `maxTokens` and `tokenizer` of bound, boundAsync,
// StreamingBounder, RunBounder, the run machine (`Run`) and computer.run,
// read by the core (checked_limit, token_limit: nothing decided here);
// `preview.tokens`, `countTokens` and `TOKENIZERS`. This build has the
// approximate counter only: "approx" bounds and counts, the exact names
// (and the core's default, "o200k_base") are refused with InvalidArgument
// (argument `tokenizer`). Every preview's text, counted again with
// countTokens, is its `tokens` and at most `maxTokens`: on ASCII logs, CJK,
// emoji, base64 and a line longer than the budget, whole, at seeded splits,
// in a run's three views and in a real computer.run against the reference
// server.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import * as api from "dory-wire";
import { Client } from "dory-wire/client";
import { loadRefServer } from "./helpers.mjs";
import { scriptedFetch } from "./client-lib.mjs";
import { SplitMix64, splitAt, tokenizerRefusals } from "./vector-lib.mjs";

const { bound, boundAsync, countTokens, DoryWireError, InvalidArgument, InvalidLimits, Run, RunBounder, runSpillId, StreamingBounder, TOKENIZERS } = api;

const APPROX = "approx";
const enc = new TextEncoder();

/** Deterministic bytes for the base64 input. */
function seededBytes(n, seed) {
  const g = new SplitMix64(seed);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = g.below(256);
  return out;
}

/** `bytes` as standard base64 in lines of 76 characters, as `base64` prints it. */
function base64Lines(bytes) {
  const b64 = Buffer.from(bytes).toString("base64");
  let out = "";
  for (let i = 0; i < b64.length; i += 76) out += `${b64.slice(i, i + 76)}\n`;
  return out;
}

/** Inputs that must be cut, and the token budget each is bounded to. */
const INPUTS = {
  ascii: {
    text: Array.from({ length: 2000 }, (_, i) => `[${String(i).padStart(4, "0")}] compiling crate_${i} v0.${i % 10}.${i % 7} (/src/crates/crate_${i})\n`).join("") + "error: could not compile `app` due to 1 previous error\n",
    maxTokens: 200,
  },
  cjk: { text: Array.from({ length: 400 }, (_, i) => `第${i}行：テストは失敗しました。原因を確認してください。\n`).join(""), maxTokens: 150 },
  emoji: { text: Array.from({ length: 500 }, (_, i) => `${i % 50 === 0 ? "❌ failed" : "✅ passed"} ${"🦀".repeat(i % 6)} test_${i}\n`).join(""), maxTokens: 120 },
  base64: { text: base64Lines(seededBytes(9000, 64)), maxTokens: 120 },
  // One line, no line break: longer than the budget in bytes and in tokens.
  "one long line": { text: Array.from({ length: 1200 }, (_, i) => `word${i}`).join(" "), maxTokens: 60 },
};
const LIMITS = { maxLines: 400, maxBytes: 16384 };

/** The token checks of every preview: `tokens` is its text counted again, and within the budget. */
function checkTokens(p, maxTokens, where) {
  assert.equal(typeof p.tokens, "number", `${where}: tokens is counted`);
  assert.equal(p.tokens, countTokens(p.text, APPROX), `${where}: tokens is countTokens(text)`);
  assert.ok(p.tokens <= maxTokens, `${where}: ${p.tokens} tokens > maxTokens ${maxTokens}`);
  assert.ok(enc.encode(p.text).length <= LIMITS.maxBytes, `${where}: over maxBytes`);
}

/** The error `call` throws (undefined when none). */
function thrown(call) {
  try {
    call();
  } catch (e) {
    return e;
  }
  return undefined;
}

// ------------------------------------------------------------- the names

test("TOKENIZERS is the core's list for this build: approx only, frozen; countTokens counts with it", () => {
  assert.deepEqual([...TOKENIZERS], [APPROX]);
  assert.ok(Object.isFrozen(TOKENIZERS));
  assert.equal(countTokens("", APPROX), 0);
  const line = "error: it broke\n";
  const n = countTokens(line, APPROX);
  assert.ok(Number.isInteger(n) && n >= 4 && n <= enc.encode(line).length, `${n}`);
  // The core reads names modulo case and - / _.
  assert.equal(countTokens(line, "APPROX"), n);
  // Counting is the core's: the same text gives the same count, a longer one no fewer.
  assert.ok(countTokens(line.repeat(10), APPROX) >= n);
});

test("countTokens: the default tokenizer (o200k_base), an exact name and an unknown one are the core's InvalidArgument (argument tokenizer); types are TypeErrors", () => {
  for (const args of [["text"], ["text", null], ["text", "o200k_base"], ["text", "cl100k_base"], ["text", "gpt-9"], ["text", ""]]) {
    const e = thrown(() => countTokens(...args));
    assert.ok(e instanceof InvalidArgument && e instanceof DoryWireError, `${JSON.stringify(args)}: ${e}`);
    assert.equal(e.code, "invalid_argument");
    assert.equal(e.argument, "tokenizer");
  }
  assert.match(thrown(() => countTokens("x", "o200k_base")).message, /not in this build/);
  assert.match(thrown(() => countTokens("x", "gpt-9")).message, /unknown tokenizer/);
  assert.throws(() => countTokens(5, APPROX), TypeError);
  assert.throws(() => countTokens(enc.encode("x"), APPROX), TypeError);
  assert.throws(() => countTokens("x", 5), (e) => e instanceof TypeError && /tokenizer/.test(e.message));
});

// ------------------------------------------------------------- bounders

for (const [name, { text, maxTokens }] of Object.entries(INPUTS)) {
  test(`${name}: bound, boundAsync, StreamingBounder at seeded splits and RunBounder keep within maxTokens, and tokens is countTokens(text)`, async () => {
    const options = { ...LIMITS, maxTokens, tokenizer: APPROX };
    const p = bound(text, options);
    assert.equal(p.truncated, true, "the input must be cut");
    checkTokens(p, maxTokens, "bound");
    // The token limit binds before the bytes: without it the preview is longer.
    const bytesOnly = bound(text, LIMITS);
    assert.equal(bytesOnly.tokens, null, "no token option: not counted");
    assert.ok(countTokens(bytesOnly.text, APPROX) > maxTokens, "the bytes alone would exceed the budget");
    assert.ok(p.text.length < bytesOnly.text.length);
    // The preview bounded again with the same limits comes back unchanged.
    const again = bound(p.text, options);
    assert.deepEqual([again.text, again.truncated, again.tokens], [p.text, false, p.tokens]);
    assert.deepEqual(await boundAsync(text, options), p);
    // Streaming = whole, pushed in pieces cut anywhere (inside characters too).
    const bytes = enc.encode(text);
    const g = new SplitMix64(bytes.length);
    for (let round = 0; round < 3; round++) {
      const sb = new StreamingBounder(options);
      for (const chunk of splitAt(bytes, g.cuts(bytes.length, 40))) sb.push(chunk);
      assert.deepEqual(sb.finish(), p, `streaming round ${round}`);
    }
    // A run's three views, each within the budget; stdout alone is bound() of its bytes.
    const run = new RunBounder({ ...options, spillId: "run-tokens" });
    for (const chunk of splitAt(bytes, g.cuts(bytes.length, 20))) run.push("stdout", chunk);
    run.push("stderr", "error: the one line that mattered\n");
    const pending = run.finish();
    try {
      for (const view of ["stdout", "stderr", "combined"]) checkTokens(pending.render(view), maxTokens, `RunBounder ${view}`);
      assert.deepEqual(pending.render("stdout"), bound(text, { ...options, spillId: "run-tokens-stdout" }));
      assert.ok(pending.render("combined").text.includes("error: the one line that mattered"), "stderr's end is shown");
    } finally {
      pending.free();
    }
  });
}

test("a tokenizer alone only counts: the same preview, its tokens counted", () => {
  const { text } = INPUTS.ascii;
  for (const limits of [LIMITS, { maxLines: 50, maxBytes: 2000 }]) {
    const plain = bound(text, limits);
    const counted = bound(text, { ...limits, tokenizer: APPROX });
    assert.equal(plain.tokens, null);
    assert.deepEqual({ ...counted, tokens: null }, plain);
    assert.equal(counted.tokens, countTokens(counted.text, APPROX));
    // No budget: more than a budget would allow.
    assert.ok(counted.tokens > INPUTS.ascii.maxTokens);
    const sb = new StreamingBounder({ ...limits, tokenizer: APPROX });
    sb.push(text);
    assert.deepEqual(sb.finish(), counted);
  }
  // maxTokens null / undefined: no token limit.
  assert.equal(bound("ok\n", { ...LIMITS, maxTokens: null, tokenizer: null }).tokens, null);
  assert.equal(bound("ok\n", { ...LIMITS, maxTokens: undefined }).tokens, null);
});

test("input within every limit comes back unchanged, counted; the JSON has tokens", () => {
  const p = bound("ok\n", { ...LIMITS, maxTokens: 5, tokenizer: APPROX });
  assert.deepEqual([p.text, p.truncated, p.tokens], ["ok\n", false, countTokens("ok\n", APPROX)]);
  const json = JSON.stringify(p);
  assert.ok(json.endsWith(`,"tokens":${p.tokens}}`), json);
  assert.equal(JSON.parse(json).tokens, p.tokens);
  const none = JSON.stringify(bound("ok\n", LIMITS));
  assert.ok(none.endsWith(',"tokens":null}'), none);
  const cut = bound(INPUTS.cjk.text, { ...LIMITS, maxTokens: 150, tokenizer: APPROX });
  assert.equal(JSON.parse(JSON.stringify(cut)).tokens, cut.tokens);
  assert.deepEqual(Object.keys(cut.toJSON()).at(-1), "tokens", "tokens ends the canonical document, as the core writes it");
});

// ------------------------------------------------------------- refusals

test("maxTokens below MIN_MAX_BYTES (31) on input that must be cut is the core's InvalidLimits; input that fits is unchanged", () => {
  const { text } = INPUTS.ascii;
  const options = { ...LIMITS, maxTokens: 31, tokenizer: APPROX };
  assert.equal(api.MIN_MAX_BYTES, 32);
  for (const [what, call] of [
    ["bound", () => bound(text, options)],
    [
      "StreamingBounder",
      () => {
        const sb = new StreamingBounder(options);
        sb.push(text);
        return sb.finish();
      },
    ],
    [
      "RunBounder",
      () => {
        const r = new RunBounder(options);
        r.push("stdout", text);
        return r.finish();
      },
    ],
  ]) {
    const e = thrown(call);
    assert.ok(e instanceof InvalidLimits, `${what}: ${e}`);
    assert.match(e.message, /max_tokens=31/, what);
  }
  // 32 still cuts; input that fits any budget is unchanged.
  checkTokens(bound(text, { ...options, maxTokens: 32 }), 32, "maxTokens 32");
  assert.equal(bound("ok\n", options).text, "ok\n");
});

test("maxTokens -1, 1.5, 1e20, NaN and Infinity are the core's InvalidLimits, as maxBytes; a bigint is a number; a string is a TypeError", async () => {
  for (const bad of [-1, 1.5, 1e20, NaN, Infinity, 2 ** 32]) {
    const asBytes = thrown(() => bound("x\n", { maxLines: 10, maxBytes: bad }));
    assert.ok(asBytes instanceof InvalidLimits, `maxBytes ${bad}`);
    const calls = [
      ["bound", () => bound("x\n", { ...LIMITS, maxTokens: bad, tokenizer: APPROX })],
      ["StreamingBounder", () => new StreamingBounder({ ...LIMITS, maxTokens: bad, tokenizer: APPROX })],
      ["RunBounder", () => new RunBounder({ ...LIMITS, maxTokens: bad, tokenizer: APPROX })],
      ["RunBounder.checkLimits", () => RunBounder.checkLimits(400, 16384, { maxTokens: bad, tokenizer: APPROX })],
      ["Run", () => new Run("c1", "make", { random: new Uint8Array(16), maxTokens: bad, tokenizer: APPROX })],
    ];
    for (const [what, call] of calls) {
      const e = thrown(call);
      assert.ok(e instanceof InvalidLimits, `${what} maxTokens ${bad}: ${e}`);
      // The same words as for maxBytes, naming maxTokens.
      assert.equal(e.reason, asBytes.reason.replace("maxBytes", "maxTokens"), what);
    }
    await assert.rejects(boundAsync("x\n", { ...LIMITS, maxTokens: bad, tokenizer: APPROX }), InvalidLimits);
  }
  assert.equal(bound(INPUTS.ascii.text, { ...LIMITS, maxTokens: 200n, tokenizer: APPROX }).tokens, bound(INPUTS.ascii.text, { ...LIMITS, maxTokens: 200, tokenizer: APPROX }).tokens);
  assert.throws(() => bound("x\n", { ...LIMITS, maxTokens: "200", tokenizer: APPROX }), (e) => e instanceof TypeError && /maxTokens/.test(e.message));
  assert.throws(() => new StreamingBounder({ ...LIMITS, tokenizer: 5 }), (e) => e instanceof TypeError && /tokenizer/.test(e.message));
});

test("an unknown tokenizer, the exact ones and the default (maxTokens alone) are refused by every bounder with InvalidArgument (argument tokenizer)", async () => {
  for (const tokens of [{ maxTokens: 200, tokenizer: "gpt-9" }, { maxTokens: 200, tokenizer: "o200k_base" }, { maxTokens: 200, tokenizer: "cl100k_base" }, { maxTokens: 200 }, { tokenizer: "o200k_base" }]) {
    const options = { ...LIMITS, ...tokens };
    const problems = tokenizerRefusals(api, [
      // Refused when the bounder is built, whether the input fits or not.
      ["bound", () => bound("ok\n", options)],
      ["StreamingBounder", () => new StreamingBounder(options)],
      ["RunBounder", () => new RunBounder(options)],
      ["RunBounder.checkLimits", () => RunBounder.checkLimits(400, 16384, tokens)],
      ["Run", () => new Run("c1", "make", { random: new Uint8Array(16), ...tokens })],
    ]);
    assert.deepEqual(problems, [], JSON.stringify(tokens));
    await assert.rejects(boundAsync("ok\n", options), (e) => e instanceof InvalidArgument && e.argument === "tokenizer");
  }
});

test("RunBounder.checkLimits: maxTokens below MIN_RUN_MAX_BYTES is InvalidLimits; a tokenizer alone, or none, passes", () => {
  const min = api.MIN_RUN_MAX_BYTES;
  RunBounder.checkLimits(2, min, { maxTokens: min, tokenizer: APPROX });
  RunBounder.checkLimits(2, min, { tokenizer: APPROX });
  RunBounder.checkLimits(2, min, {});
  RunBounder.checkLimits(2, min, null);
  RunBounder.checkLimits(2, min);
  assert.throws(() => RunBounder.checkLimits(2, min, { maxTokens: min - 1, tokenizer: APPROX }), (e) => e instanceof InvalidLimits && /max_tokens >= 80/.test(e.message));
  assert.throws(() => RunBounder.checkLimits(2, min, { maxLines: 3 }), TypeError);
  assert.throws(() => RunBounder.checkLimits(2, min, 5), TypeError);
  // The run machine checks the same, before any request.
  assert.throws(() => new Run("c1", "make", { random: new Uint8Array(16), maxTokens: min - 1, tokenizer: APPROX }), InvalidLimits);
  new Run("c1", "make", { random: new Uint8Array(16), maxTokens: min, tokenizer: APPROX }).free();
});

// ------------------------------------------------------------- computer.run

test("computer.run refuses bad token options before any request", async () => {
  const { fetch, calls } = scriptedFetch([]);
  const computer = new Client({ baseUrl: "http://dory.test", fetch }).computers.get("c1");
  const refused = (options, check) => assert.rejects(computer.run("ls", options), check, JSON.stringify(options));
  await refused({ maxTokens: api.MIN_RUN_MAX_BYTES - 1, tokenizer: APPROX }, InvalidLimits);
  await refused({ maxTokens: 1.5, tokenizer: APPROX }, InvalidLimits);
  await refused({ maxTokens: -1, tokenizer: APPROX }, InvalidLimits);
  await refused({ maxTokens: 1e20, tokenizer: APPROX }, InvalidLimits);
  await refused({ maxTokens: "100", tokenizer: APPROX }, (e) => e instanceof TypeError && /maxTokens/.test(e.message));
  await refused({ tokenizer: 5 }, (e) => e instanceof TypeError && /tokenizer/.test(e.message));
  for (const tokens of [{ maxTokens: 100 }, { maxTokens: 100, tokenizer: "o200k_base" }, { tokenizer: "gpt-9" }]) {
    await refused(tokens, (e) => e instanceof InvalidArgument && e.argument === "tokenizer");
  }
  assert.equal(calls.length, 0, "no request was sent");
});

let RefServer;
before(async () => {
  RefServer = await loadRefServer();
});

test("a real computer.run: each view within maxTokens, tokens its text counted, stdout is bound() of its bytes; a tokenizer alone only counts", async () => {
  const server = await new RefServer([]).start();
  const client = new Client(server.url);
  // ASCII, CJK and emoji on stdout, the failure on stderr at the end.
  const command =
    "seq -f 'line %05g of the build' 1 2000; i=0; while [ $i -lt 200 ]; do echo \"第${i}行：テストは失敗しました 🦀\"; i=$((i+1)); done; echo 'error: the one line that mattered' >&2";
  const maxTokens = 300;
  try {
    const computer = client.computers.get("run");
    const result = await computer.run(["sh", "-c", command], { idempotencyKey: "tokens-1", maxTokens, tokenizer: APPROX });
    assert.equal(result.exitCode, 0);
    for (const view of ["stdout", "stderr", "combined"]) checkTokens(result[view], maxTokens, view);
    assert.equal(result.stdout.truncated, true);
    assert.ok(result.combined.text.endsWith("[... exit code 0 ...]\n"), "the end line is within the budget too");
    assert.ok(result.combined.text.includes("error: the one line that mattered"), "stderr's end is shown");
    // stdout is bound() of its bytes with the run's shape and the same token limit.
    const stdout = Buffer.concat([
      ...Array.from({ length: 2000 }, (_, i) => Buffer.from(`line ${String(i + 1).padStart(5, "0")} of the build\n`)),
      ...Array.from({ length: 200 }, (_, i) => Buffer.from(`第${i}行：テストは失敗しました 🦀\n`)),
    ]);
    const spillId = `${runSpillId("tokens-1")}-stdout`;
    assert.deepEqual(result.stdout, bound(stdout, { maxLines: 400, maxBytes: 16384, maxTokens, tokenizer: APPROX, keep: "defaults", terminal: true, split: "tail", spillId }));
    const doc = JSON.parse(JSON.stringify(result));
    for (const view of ["stdout", "stderr", "combined"]) assert.equal(doc[view].tokens, result[view].tokens, view);
    // A tokenizer alone: the previews of no token limit, counted.
    const counted = await computer.run(["sh", "-c", command], { idempotencyKey: "tokens-2", tokenizer: APPROX });
    const plain = await computer.run(["sh", "-c", command], { idempotencyKey: "tokens-2" });
    for (const view of ["stdout", "stderr", "combined"]) {
      assert.equal(plain[view].tokens, null, view);
      assert.deepEqual({ ...counted[view], tokens: null }, plain[view], view);
      assert.equal(counted[view].tokens, countTokens(counted[view].text, APPROX), view);
    }
    assert.ok(counted.stdout.tokens > maxTokens, "without a budget the preview is longer");
  } finally {
    client.close();
    await server.stop();
  }
});
