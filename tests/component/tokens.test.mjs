// The Component's token limit (preview-options' max-tokens and tokenizer,
// run-options' too, count-tokens, tokenizers): with tokenizer "approx", the
// previews of bound, the streaming-bounder and the run-bounder (each view)
// have `tokens` equal to count-tokens of their text and at most max-tokens;
// a limit below the least a cut needs is invalid_limits when the input must
// be cut; a tokenizer the component lacks (an unknown name, or the exact
// OpenAI encodings it is built without, the default among them) is
// invalid_argument with argument tokenizer, in every bounder and in the run.
import assert from "node:assert/strict";
import { test } from "node:test";

import { errorArgument, isWitError, loadComponent, previewOptions } from "./lib.mjs";

const mod = await loadComponent();
const { preview: pv, run: r, runMachine } = mod;
const enc = new TextEncoder();

// 400 lines, about 11 KB: within 400 lines and 16 KiB, far over 200 tokens.
let log = "";
for (let i = 1; i <= 400; i++) log += `step ${i}: compiled module_${i}\n`;
const data = enc.encode(log);
const [LINES, BYTES] = [400n, 16384n];
const approx = (maxTokens) => previewOptions(null, false, undefined, { maxTokens, tokenizer: "approx" });
const count = (text) => pv.countTokens(text, "approx");

/** The preview of a `bounded`, rendered with `outcome` when it must be cut. */
function settle(bounded, outcome = { tag: "not-saved" }) {
  if (bounded.tag === "fits") return bounded.val;
  const p = bounded.val.render(outcome, undefined);
  bounded.val[Symbol.dispose]();
  return p;
}

/** The preview of the streaming bounder fed `bytes` in pieces of `size`. */
function streamed(bytes, options, size = 997) {
  const s = new pv.StreamingBounder(LINES, BYTES, "tok", options);
  for (let i = 0; i < bytes.length; i += size) s.push(bytes.subarray(i, i + size));
  return settle(pv.StreamingBounder.finish(s));
}

/** The three views of a run-bounder given the log on stdout and a warning on stderr every 50 lines. */
function runViews(options) {
  const rb = new r.RunBounder(LINES, BYTES, "run-tok", options);
  log.split(/(?<=\n)/).forEach((line, i) => {
    rb.push("stdout", enc.encode(line));
    if (i % 50 === 0) rb.push("stderr", enc.encode(`warning: slow step ${i}\n`));
  });
  const pending = r.RunBounder.finish(rb);
  const views = Object.fromEntries(["stdout", "stderr", "combined"].map((v) => [v, pending.render(v, { tag: "not-saved" }, undefined)]));
  pending[Symbol.dispose]();
  return views;
}

/** `f` throws the component's error with this code (and `argument`, when given). */
function refuses(f, code, argument, what) {
  assert.throws(
    f,
    (err) => isWitError(err) && err.code === code && (argument === undefined || errorArgument(err) === argument),
    what,
  );
}

test("tokenizers: approx only (the component is built without the exact encodings, for its size)", () => {
  assert.deepEqual(pv.tokenizers(), ["approx"]);
  assert.equal(count(""), 0n);
  assert.ok(count(log) > 200n, "the log is over the budget");
});

test("approx: bound, the streaming bounder and every run view keep to max-tokens, and tokens is count-tokens of the text", () => {
  for (const max of [200, 80, 1000]) {
    const whole = settle(pv.bound(data, LINES, BYTES, "tok", approx(max)), { tag: "saved", val: "/tmp/spill/tok.txt" });
    assert.equal(whole.truncated, true);
    assert.ok(whole.text.includes("/tmp/spill/tok.txt"), "the notice names the spill");
    assert.equal(whole.tokens, count(whole.text), `bound, max-tokens ${max}`);
    assert.ok(whole.tokens <= BigInt(max), `bound: ${whole.tokens} tokens over ${max}`);
    assert.ok(whole.text.endsWith("step 400: compiled module_400\n"), "the tail is kept");

    const plain = settle(pv.bound(data, LINES, BYTES, "tok", approx(max)));
    const s = streamed(data, approx(max));
    assert.equal(s.text, plain.text, `streaming = whole, max-tokens ${max}`);
    assert.equal(s.tokens, plain.tokens);
    assert.equal(s.tokens, count(s.text));
    assert.ok(s.tokens <= BigInt(max));

    for (const [view, p] of Object.entries(runViews(approx(max)))) {
      assert.equal(p.tokens, count(p.text), `run view ${view}, max-tokens ${max}`);
      assert.ok(p.tokens <= BigInt(max), `run view ${view}: ${p.tokens} tokens over ${max}`);
    }
  }
});

test("approx: a tokenizer alone only counts; no token option, no count", () => {
  const none = settle(pv.bound(data, 50n, 2000n, undefined, previewOptions()));
  assert.equal(none.tokens, undefined);
  const counted = settle(pv.bound(data, 50n, 2000n, undefined, previewOptions(null, false, undefined, { tokenizer: "approx" })));
  assert.equal(counted.text, none.text);
  assert.equal(counted.tokens, count(counted.text));
  const small = pv.bound(enc.encode("ok\n"), LINES, BYTES, undefined, approx(5));
  assert.equal(small.tag, "fits", "input within 5 tokens is unchanged");
  assert.equal(small.val.text, "ok\n");
  assert.equal(small.val.tokens, count("ok\n"));
});

test("max-tokens 31 on input that must be cut: invalid_limits in every bounder; the run's least is min-run-max-bytes", () => {
  refuses(() => pv.bound(data, LINES, BYTES, undefined, approx(31)), "invalid_limits", undefined, "bound");
  const s = new pv.StreamingBounder(LINES, BYTES, undefined, approx(31));
  s.push(data);
  refuses(() => pv.StreamingBounder.finish(s), "invalid_limits", undefined, "streaming-bounder finish");
  refuses(() => runViews(approx(31)), "invalid_limits", undefined, "run-bounder finish");
  assert.equal(settle(pv.bound(data, LINES, BYTES, undefined, approx(32))).truncated, true, "32 still cuts");

  const least = Number(r.minRunMaxBytes());
  const make = { tag: "shell", val: "make" };
  const options = (maxTokens) => ({ follow: {}, maxTokens, tokenizer: "approx" });
  refuses(() => new runMachine.Run("c1", make, options(least - 1), new Uint8Array(16)), "invalid_limits", undefined, "run below the least");
  new runMachine.Run("c1", make, options(least), new Uint8Array(16))[Symbol.dispose]();
});

test("a tokenizer the component lacks is invalid_argument (argument tokenizer) everywhere", () => {
  for (const [name, options] of [
    ["gpt-9", previewOptions(null, false, undefined, { maxTokens: 100, tokenizer: "gpt-9" })],
    ["gpt-9 alone", previewOptions(null, false, undefined, { tokenizer: "gpt-9" })],
    ["o200k_base", previewOptions(null, false, undefined, { maxTokens: 100, tokenizer: "o200k_base" })],
    ["cl100k_base", previewOptions(null, false, undefined, { maxTokens: 100, tokenizer: "cl100k_base" })],
    ["max-tokens alone (the default, o200k_base)", previewOptions(null, false, undefined, { maxTokens: 100 })],
  ]) {
    refuses(() => pv.bound(enc.encode("x\n"), LINES, BYTES, undefined, options), "invalid_argument", "tokenizer", `bound, ${name}`);
    refuses(() => new pv.StreamingBounder(LINES, BYTES, undefined, options), "invalid_argument", "tokenizer", `streaming-bounder, ${name}`);
    refuses(() => new r.RunBounder(LINES, BYTES, undefined, options), "invalid_argument", "tokenizer", `run-bounder, ${name}`);
    const run = { follow: {}, maxTokens: options.maxTokens, tokenizer: options.tokenizer };
    refuses(() => new runMachine.Run("c1", { tag: "shell", val: "make" }, run, new Uint8Array(16)), "invalid_argument", "tokenizer", `run, ${name}`);
  }
  refuses(() => pv.countTokens("x", "gpt-9"), "invalid_argument", "tokenizer", "count-tokens gpt-9");
  refuses(() => pv.countTokens("x", undefined), "invalid_argument", "tokenizer", "count-tokens with the default");
});

test("run-preset has no token limit", () => {
  const preset = pv.runPreset();
  assert.equal(preset.maxTokens, undefined);
  assert.equal(preset.tokenizer, undefined);
});
