// The canonical JSON of a preview and a run result (docs/schema): preview
// .toJSON() / JSON.stringify(preview) on bound(), StreamingBounder and a
// real computer.run against the reference server, validated with ajv
// (draft 2020-12): the same bytes as the core's for the shared cases of
// tests/api/canonical-json.json, every field equal to the object's, the
// notices whole lines of `text` in order, `text` without them the output
// shown, and mutated documents refused.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bound, StreamingBounder } from "dory-wire";
import { Client, SpillDirectory } from "dory-wire/client";
import { loadRefServer, npmDir, rootDir } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const Ajv2020 = require(join(npmDir, "node_modules", "ajv", "dist", "2020.js")).default;

const schema = (name) => JSON.parse(readFileSync(join(rootDir, "docs", "schema", name), "utf8"));
const PREVIEW_SCHEMA = schema("preview.schema.json");
const RUN_SCHEMA = schema("run-result.schema.json");
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(PREVIEW_SCHEMA);
ajv.addSchema(RUN_SCHEMA);
const validPreview = ajv.getSchema(PREVIEW_SCHEMA.$id);
const validRun = ajv.getSchema(RUN_SCHEMA.$id);

/** Checks a preview's canonical document against the preview; returns its kinds. */
function checkPreview(doc, p) {
  assert.ok(validPreview(doc), JSON.stringify(validPreview.errors));
  assert.deepEqual(Object.keys(doc), PREVIEW_SCHEMA.required);
  const fields = {
    text: p.text,
    truncated: p.truncated,
    total_lines: p.totalLines,
    total_bytes: p.totalBytes,
    head_bytes: p.headBytes,
    tail_bytes: p.tailBytes,
    omitted_lines: p.omittedLines,
    omitted_bytes: p.omittedBytes,
    omitted_range: p.omittedRange === null ? null : { first: p.omittedRange[0], last: p.omittedRange[1] },
    spill_id: p.spillId,
    spill_path: p.spillPath,
    spill_error: p.spillError,
    tokens: p.tokens,
  };
  for (const [key, value] of Object.entries(fields)) assert.deepEqual(doc[key], value, key);
  assert.deepEqual(doc.notices, p.notices);
  const lines = p.text.split("\n");
  let last = 0;
  for (const n of doc.notices) {
    assert.ok(n.line > last, "in order");
    last = n.line;
    assert.equal(lines[n.line - 1], n.text);
    assert.ok(n.text.startsWith("[... ") && n.text.endsWith(" ...]"), n.text);
  }
  const kinds = doc.notices.map((n) => n.kind);
  assert.equal(p.truncated, kinds.includes("omitted"));
  return kinds;
}

/** `text` without its notice lines. */
function withoutNotices(doc) {
  const drop = new Set(doc.notices.map((n) => n.line - 1));
  return doc.text
    .split("\n")
    .filter((_, i) => !drop.has(i))
    .join("\n");
}

/** The canonical document of `p`, as JSON.stringify gives it (checked to equal toJSON()). */
function docOf(p) {
  const text = JSON.stringify(p);
  assert.deepEqual(JSON.parse(text), p.toJSON());
  return JSON.parse(text);
}

const LOG = Array.from({ length: 300 }, (_, i) => `[${String(i + 1).padStart(4, "0")}] step ${i + 1}: ok\n`).join("");

test("the shared cases give the core's bytes", () => {
  const { cases } = JSON.parse(readFileSync(join(rootDir, "tests", "api", "canonical-json.json"), "utf8"));
  assert.ok(cases.length >= 5);
  for (const c of cases) {
    const data = c.input.map(([text, times]) => text.repeat(times)).join("");
    const p = bound(data, {
      maxLines: c.max_lines,
      maxBytes: c.max_bytes,
      spill: c.spill_path === null ? undefined : () => c.spill_path,
      spillId: c.spill_id,
      hint: c.hint,
      keep: c.keep,
      terminal: c.terminal,
    });
    assert.equal(JSON.stringify(p), c.json, c.name);
    checkPreview(JSON.parse(c.json), p);
  }
});

test("a cut has one omitted notice; text without it is head and tail", () => {
  for (const [maxLines, maxBytes] of [[40, 600], [7, 600], [1, 600], [10, 80], [10, 40]]) {
    for (const spill of [undefined, (id) => `/tmp/tool output/${id}.txt`]) {
      const p = bound(LOG, { maxLines, maxBytes, spill });
      const doc = docOf(p);
      assert.deepEqual(checkPreview(doc, p), ["omitted"]);
      const head = LOG.slice(0, p.headBytes);
      const shown = head + (head && !head.endsWith("\n") ? "\n" : "") + LOG.slice(LOG.length - p.tailBytes);
      assert.equal(withoutNotices(doc), shown);
    }
  }
  // The preview's own fields are unchanged: toJSON is not one of them.
  const p = bound(LOG, { maxLines: 10, maxBytes: 600 });
  assert.ok(!Object.keys(p).includes("toJSON"));
  assert.equal(p.notices.length, 1);
});

test("kept lines, terminal rendering and the streaming bounder", () => {
  let data = "";
  for (let i = 1; i <= 400; i++) {
    data += `\x1b[32mcompiling\x1b[0m ${i}\r\x1b[Kbuilt ${i}\n`;
    if (i === 200) data += "error[E0308]: mismatched types\n";
  }
  const options = { maxLines: 40, maxBytes: 4000, keep: "defaults", terminal: true };
  const p = bound(data, { ...options, spill: () => "/w/x.txt" });
  const doc = docOf(p);
  assert.deepEqual(checkPreview(doc, p), ["omitted", "kept", "terminal"]);
  assert.ok(withoutNotices(doc).includes("201:error[E0308]: mismatched types"));
  const streaming = new StreamingBounder(options);
  for (let i = 0; i < data.length; i += 1000) streaming.push(new TextEncoder().encode(data.slice(i, i + 1000)));
  const again = streaming.finish({ spill: () => "/w/x.txt" });
  assert.deepEqual(docOf(again).notices, doc.notices);
  const fits = bound("50%\r100%\n", { maxLines: 10, maxBytes: 1000, terminal: true });
  const fitsDoc = docOf(fits);
  assert.deepEqual(checkPreview(fitsDoc, fits), ["terminal"]);
  assert.equal(withoutNotices(fitsDoc), "100%\n");
});

test("a mutated document is refused by the schema", () => {
  const doc = docOf(bound(LOG, { maxLines: 10, maxBytes: 600 }));
  assert.ok(validPreview(doc));
  const mutations = [
    (d) => (d.extra = 1),
    (d) => delete d.notices,
    (d) => (d.total_bytes = -1),
    (d) => (d.total_bytes = 1.5),
    (d) => (d.omitted_range = [1, 2]),
    (d) => (d.notices[0].kind = "bogus"),
    (d) => (d.notices[0].line = 0),
    (d) => delete d.notices[0].text,
    (d) => (d.spill_id = 5),
  ];
  for (const mutate of mutations) {
    const bad = structuredClone(doc);
    mutate(bad);
    assert.ok(!validPreview(bad), JSON.stringify(bad).slice(0, 200));
  }
});

let RefServer;
before(async () => {
  RefServer = await loadRefServer();
});

test("a real run's result is one canonical document", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "dory-wire-json-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await new RefServer([]).start();
  const client = new Client(server.url);
  let result;
  try {
    const command =
      "seq 1 3000; sleep 0.2; echo 'warning: deprecated' >&2; echo 'error: the one line that mattered' >&2; sleep 0.2; seq 1 500";
    result = await client.computers.get("run").run(["sh", "-c", command], { maxLines: 40, maxBytes: 2000, spill: new SpillDirectory(dir) });
  } finally {
    client.close();
    await server.stop();
  }
  const text = JSON.stringify(result);
  const doc = JSON.parse(text);
  assert.ok(validRun(doc), JSON.stringify(validRun.errors));
  assert.deepEqual(Object.keys(doc), RUN_SCHEMA.required);
  assert.equal(doc.proc_id, result.procId);
  assert.equal(doc.idempotency_key, result.idempotencyKey);
  assert.equal(doc.exit_code, 0);
  assert.equal(doc.timed_out, false);
  assert.equal(doc.stdout_lost_bytes, result.stdoutLostBytes);
  for (const view of ["stdout", "stderr", "combined"]) {
    checkPreview(doc[view], result[view]);
    // Embedded as the preview writes itself.
    assert.ok(text.includes(`"${view}":${JSON.stringify(result[view])}`), view);
  }
  const kinds = doc.combined.notices.map((n) => n.kind);
  // The cut, the error kept when run keeps lines, the stderr section, how the process ended.
  assert.ok(["omitted,stderr,end", "omitted,kept,stderr,end"].includes(kinds.join()), kinds.join());
  assert.equal(doc.combined.notices.at(-1).text, "[... exit code 0 ...]");
  assert.ok(withoutNotices(doc.combined).endsWith("warning: deprecated\nerror: the one line that mattered\n"));
  const bad = structuredClone(doc);
  bad.combined.notices[0].kind = "omitted!";
  assert.ok(!validRun(bad));
  delete doc.proc_id;
  assert.ok(!validRun(doc));
});
