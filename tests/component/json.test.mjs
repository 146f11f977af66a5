// The Component's canonical JSON (preview-to-json, run-result-to-json): the
// core's bytes for the shared cases of tests/api/canonical-json.json, the
// notices of each preview record, its token count last (`"tokens":null`
// without a token option), exact 64-bit integers, and a record whose notice
// is not the line of its text it names refused as invalid_argument.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { isWitError, loadComponent, previewOptions, rootDir, vectorTokens } from "./lib.mjs";

const mod = await loadComponent();
const { cases } = JSON.parse(readFileSync(join(rootDir, "tests", "api", "canonical-json.json"), "utf8"));
const encoder = new TextEncoder();

/** The WIT preview record of a shared case, bounded and rendered by the component. */
function previewOf(c) {
  const data = encoder.encode(c.input.map(([text, times]) => text.repeat(times)).join(""));
  const options = previewOptions(c.keep, c.terminal, undefined, vectorTokens(c));
  const bounded = mod.preview.bound(data, BigInt(c.max_lines), BigInt(c.max_bytes), c.spill_id, options);
  if (bounded.tag === "fits") return bounded.val;
  const outcome = c.spill_path === null ? { tag: "not-saved" } : { tag: "saved", val: c.spill_path };
  const preview = bounded.val.render(outcome, c.hint ?? undefined);
  bounded.val[Symbol.dispose]();
  return preview;
}

test("preview-to-json gives the core's bytes for the shared cases", () => {
  assert.ok(cases.length >= 5);
  for (const c of cases) {
    const p = previewOf(c);
    assert.equal(mod.preview.previewToJson(p), c.json, c.name);
    const notices = JSON.parse(c.json).notices;
    assert.deepEqual(
      p.notices.map((n) => ({ kind: n.kind, line: Number(n.line), text: n.text })),
      notices,
      c.name,
    );
  }
});

test("preview-to-json writes the token count last: null without one, exact up to 2^64 - 1", () => {
  const p = previewOf(cases[0]);
  assert.equal(p.tokens, undefined);
  assert.ok(mod.preview.previewToJson(p).endsWith(',"notices":[],"tokens":null}'));
  assert.ok(mod.preview.previewToJson({ ...p, tokens: 42n }).endsWith(',"notices":[],"tokens":42}'));
  assert.ok(mod.preview.previewToJson({ ...p, tokens: 2n ** 64n - 1n }).endsWith(',"tokens":18446744073709551615}'));
  const counted = mod.preview.bound(new TextEncoder().encode("a line\n"), 10n, 1000n, undefined, previewOptions(null, false, undefined, { tokenizer: "approx" }));
  assert.equal(counted.tag, "fits");
  const n = mod.preview.countTokens("a line\n", "approx");
  assert.equal(counted.val.tokens, n);
  assert.ok(mod.preview.previewToJson(counted.val).endsWith(`,"tokens":${n}}`));
});

test("a notice that is not the line of the text it names is refused", () => {
  const p = previewOf(cases.find((c) => JSON.parse(c.json).truncated));
  const refused = (record) =>
    assert.throws(
      () => mod.preview.previewToJson(record),
      (err) => isWitError(err) && err.code === "invalid_argument",
    );
  refused({ ...p, notices: [{ ...p.notices[0], line: p.notices[0].line + 1n }] });
  refused({ ...p, notices: [{ ...p.notices[0], text: p.notices[0].text.slice(1) }] });
  refused({ ...p, notices: [{ ...p.notices[0], line: 100000n }] });
});

test("run-result-to-json embeds each preview as preview-to-json writes it, integers exact", () => {
  const [fits, cut, kept] = [cases[0], cases[1], cases[3]].map(previewOf);
  const record = {
    procId: "p_1",
    idempotencyKey: 'run-"k"',
    exitCode: -(2n ** 63n),
    timedOut: true,
    stdout: cut,
    stderr: fits,
    combined: kept,
    stdoutLostBytes: 2n ** 64n - 1n,
    stderrLostBytes: 2n ** 53n + 1n,
  };
  const json = mod.runMachine.runResultToJson(record);
  assert.ok(json.startsWith('{"proc_id":"p_1","idempotency_key":"run-\\"k\\"","exit_code":-9223372036854775808,"timed_out":true,'));
  assert.ok(json.endsWith(',"stdout_lost_bytes":18446744073709551615,"stderr_lost_bytes":9007199254740993}'));
  for (const view of ["stdout", "stderr", "combined"]) {
    assert.ok(json.includes(`"${view}":${mod.preview.previewToJson(record[view])},`), view);
  }
  const noExit = mod.runMachine.runResultToJson({ ...record, exitCode: undefined, timedOut: false });
  assert.ok(noExit.includes(',"exit_code":null,"timed_out":false,'));
});
