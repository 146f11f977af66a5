// A real browser: Debian's headless Chromium, driven by playwright-core, loads
// the browser build (dist/web) from a page served on localhost, decodes every
// decode vector, plays every conversation vector, checks every run vector
// and decodes a streamed fetch body, and the test reads the results back.
// Skipped, with the reason printed, only where Chromium is not installed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import * as api from "dory-wire";
import { loadVectors, npmDir, vectorFiles } from "./helpers.mjs";
import { playRun, runItems, runOptions, vectorInput } from "./vector-lib.mjs";
import { vectorWriter } from "./preview-lib.mjs";

const CHROMIUM = process.env.DORY_CHROMIUM ?? "/usr/bin/chromium";
const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".json": "application/json" };
const STREAM = [
  '{"type":"started","proc_id":"p_web"}\n',
  '{"type":"stdout","data":"héllo ","offset":7}\n{"type":"heart',
  'beat"}\n{"type":"stdout","data":"world\\n","offset":13}\n',
  '{"type":"exit","exit_code":0,"timed_out":false}\n',
];

function serve() {
  const files = vectorFiles();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://localhost");
    if (url.pathname === "/") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end('<!doctype html><meta charset="utf-8"><title>dory-wire</title><script type="module" src="/test/browser-page.mjs"></script>');
      return;
    }
    if (url.pathname === "/vectors.json") {
      // The list of vector files; the page fetches and parses each one.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(files.map((_, i) => `/vector-file/${i}`)));
      return;
    }
    if (url.pathname.startsWith("/vector-file/")) {
      const file = files[Number(url.pathname.slice("/vector-file/".length))];
      res.writeHead(file ? 200 : 404, { "content-type": "application/json" });
      res.end(file ? readFileSync(file) : "");
      return;
    }
    if (url.pathname === "/stream-pieces") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(STREAM));
      return;
    }
    if (url.pathname === "/stream") {
      res.writeHead(200, { "content-type": "application/x-ndjson", "ce-process-id": "p_web" });
      for (const piece of STREAM) {
        res.write(piece);
        await new Promise((r) => setTimeout(r, 5));
      }
      res.end();
      return;
    }
    const path = normalize(join(npmDir, url.pathname));
    const allowed = path.startsWith(join(npmDir, "dist", "web")) || path.startsWith(join(npmDir, "test"));
    if (!allowed || !existsSync(path)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
    res.end(readFileSync(path));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

test("the browser build decodes in headless Chromium", async (t) => {
  if (!existsSync(CHROMIUM)) {
    const reason = `Chromium is not installed at ${CHROMIUM} (apt-get install chromium; scripts/setup-browsers.sh does it)`;
    console.log(`# SKIP browser test: ${reason}`);
    t.skip(reason);
    return;
  }
  const { chromium } = await import("playwright-core");
  const server = await serve();
  const profile = mkdtempSync(join(tmpdir(), "dory-wire-chromium-"));
  let context;
  t.after(async () => {
    if (context) await context.close().catch(() => {});
    server.close();
    rmSync(profile, { recursive: true, force: true });
  });
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--no-first-run",
      "--disable-quic",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = await context.newPage();
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(m.text()));
  page.on("pageerror", (e) => consoleLines.push(`pageerror: ${e.message}`));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.__doryResult !== undefined, null, { timeout: 120_000 });
  const result = await page.evaluate(() => window.__doryResult);
  assert.equal(result.crashed, undefined, `the page crashed: ${result.crashed}\n${consoleLines.join("\n")}`);

  assert.match(result.beforeInit, /init\(\)/, "using the browser build before init() says so");
  const vectors = loadVectors();
  const decodeCount = vectors.filter((v) => v.kind === "decode").length;
  assert.deepEqual(result.failures, []);
  assert.equal(result.decodePassed, decodeCount);
  assert.equal(result.conversationsPassed, vectors.filter((v) => v.kind === "conversation").length);
  const runConversations = vectors.filter((v) => v.kind === "run-conversation").length;
  assert.ok(runConversations >= 25, `at least 25 run-conversation vectors, found ${runConversations}`);
  assert.equal(result.runConversationsPassed, runConversations);
  const runVectors = vectors.filter((v) => v.kind === "run");
  assert.ok(runVectors.length > 0);
  assert.equal(result.runsPassed, runVectors.length);
  assert.deepEqual(result.unknownKinds, [], "a vector kind the browser runner does not know");
  const searches = vectors.filter((v) => v.kind === "search").length;
  assert.ok(searches >= 20, `at least 20 search vectors, found ${searches}`);
  assert.equal(result.searchesPassed, searches);
  // The browser's run previews are byte for byte those of Node.
  for (const v of runVectors) assert.deepEqual(result.runs[v.name], playRun(api, v, runItems(v)), v.name);

  // The browser's previews are byte for byte those of Node.
  for (const v of vectors.filter((x) => x.kind === "preview")) {
    let expected;
    try {
      expected = api.bound(vectorInput(v), { maxLines: v.max_lines, maxBytes: v.max_bytes, spill: vectorWriter(v.spill), hint: v.hint ?? undefined, spillId: v.spill_id ?? "0123456789abcdef0123456789abcdef", ...runOptions(v) });
    } catch (e) {
      expected = { error: e.code ?? String(e) };
    }
    assert.deepEqual(result.previews[v.name], expected, v.name);
  }

  assert.deepEqual(result.fetched.types, ["started", "output", "heartbeat", "output", "exit"]);
  assert.equal(result.fetched.text, "héllo world\n");
  assert.equal(result.fetched.end.type, "exited");
  assert.deepEqual(result.fetched.cursor, { stdout: 13, stderr: 0 });
  assert.equal(result.fetched.procId, "p_web");
  assert.deepEqual(result.transcript, { text: "héllo world\n", exit: { exitCode: 0, timedOut: false } });
  assert.deepEqual(result.errorCheck, { protocol: true, cls: true, base: true, code: "malformed_frame", kind: "protocol" });
  // The browser build carries the tables build.mjs read from the same .wasm:
  // the same error table, classes and constants as the Node build.
  assert.deepEqual(result.errorCodes, JSON.parse(JSON.stringify(api.ERROR_CODES)));
  assert.deepEqual(result.classes, api.ERROR_CODES.map((row) => [row.class, "function", Object.getPrototypeOf(api[row.class]).name]));
  assert.deepEqual(result.constants, [api.DEFAULT_MAX_FRAME_BYTES, api.DEFAULT_LIVENESS_TIMEOUT_MS, api.MAX_FRAME_BYTES_LIMIT, api.MIN_MAX_BYTES]);
  assert.deepEqual(result.tokenizers, [...api.TOKENIZERS], "the browser build's tokenizers are the module's");
  assert.equal(result.counted, api.countTokens("error: it broke\n第1行 🦀\n", "approx"));
  assert.deepEqual(result.followDefaults, { ...api.Follower.defaults }, "the browser build's follow defaults are the module's");
  // Random spill ids from Web Crypto in the browser build.
  for (const id of result.spillIds) assert.match(id, /^[0-9a-f]{32}$/);
  assert.notEqual(result.spillIds[0], result.spillIds[1]);
});
