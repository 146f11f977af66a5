// The checks every runtime runs on the installed npm package (Node, Deno,
// Bun, Cloudflare Workers in workerd, Firefox): written once, with no Node
// import and no platform global beyond what every one of them has (fetch,
// TextEncoder, BigInt, setTimeout), so the very same module runs everywhere.
// The runtime's driver imports the package the way its users do and hands it
// in; tests/runtimes/runtimes.test.mjs reads the report back.
//
//   runChecks({ api, client, cjs, vectors, server, files }) → { results: [{ name, ok, detail }] }
//
//   api      the package's `dory-wire` entry, loaded (init() done where needed)
//   client   its `dory-wire/client` entry
//   cjs      the same package through `require`, where the runtime has one (else undefined)
//   vectors  { decode, conversation, preview, run }: the text of every file of
//            tests/vectors/<kind>/ (the checks parse and choose)
//   server   { url, computer }: the reference server (crates/dory-refserver)
//            cutting every response after 80 body bytes, its frames at most
//            32 bytes of output (one frame gets through each response), or undefined
//   files    where the runtime has a filesystem (Node, Deno, Bun; the driver
//            makes it with node:fs): { dir, list(dir) → names, stat(path) →
//            { size, mode }, read(path) → bytes }, `dir` an empty directory
//            the run's SpillDirectory writes in; undefined in Workers and browsers
//
// The vector logic is the Node and Chromium runners' own (npm/test/vector-lib.mjs
// and preview-lib.mjs, free of Node imports too).
import {
  checkConversation,
  chunkings,
  compareJs,
  conversationSplits,
  decodeJs,
  jsExpectation,
  checkRun,
  parseJsonExact,
  playConversation,
  vectorBody,
} from "../../npm/test/vector-lib.mjs";
import { checkPreviewVector } from "../../npm/test/preview-lib.mjs";

/** The Dory documentation's program's command: text, a NUL and a byte that is not UTF-8, then stderr. */
export const COMMAND = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"];
export const HELLO = [104, 101, 108, 108, 111, 0, 255];

function vectorsOf(texts) {
  const out = [];
  for (const text of texts) out.push(...parseJsonExact(text).vectors);
  return out;
}

/**
 * The first vector (in file order) for each value `keys(v)` gives, plus the
 * first `perFile` of each file: every outcome once, and each file's opening.
 */
function choose(files, keys, perFile) {
  const chosen = new Map();
  const seen = new Set();
  for (const text of files) {
    const vs = parseJsonExact(text).vectors;
    vs.slice(0, perFile).forEach((v) => chosen.set(v.name, v));
    for (const v of vs) {
      for (const key of keys(v)) {
        if (seen.has(key)) continue;
        seen.add(key);
        chosen.set(v.name, v);
      }
    }
  }
  return [...chosen.values()];
}

/** Decode vectors: each end type and error code (as JS must see it: integer_out_of_range too), and 2 per file. */
export function chooseDecode(files) {
  return choose(
    files,
    (v) => {
      const exp = jsExpectation(v);
      if (exp.rangeError) return ["range_error"];
      const end = exp.end ?? {};
      return [`end:${end.type}`, `code:${end.code}`, `endpoint:${v.endpoint}`];
    },
    2,
  );
}

/** Conversation vectors: each read, decision, reconnect reason and error code, and 2 per file. */
export function chooseConversation(files) {
  return choose(
    files,
    (v) => {
      const keys = [`read:${v.read.type}`];
      for (const e of v.exchanges) {
        const d = e.decision ?? {};
        keys.push(`decision:${d.type}`, `reason:${d.reason}`, `code:${d.code}`);
      }
      return keys;
    },
    2,
  );
}

/** Preview vectors: the first of each file, and each error code. */
export function choosePreview(files) {
  return choose(files, (v) => [`error:${v.expect?.error?.code}`], 1);
}

/** Run vectors: each of a stderr section, a loss, a failing spill writer and an error, and the first of each file. */
export function chooseRun(files) {
  return choose(
    files,
    (v) => {
      const keys = [];
      const c = v.expect.combined;
      if (v.expect.error !== undefined) keys.push("error");
      if (c?.preview?.includes("[... the last ")) keys.push("section");
      if (c?.lost_bytes > 0) keys.push("lost");
      if (["stdout", "stderr", "combined"].some((view) => v.expect[view]?.spill_error)) keys.push("spill_error");
      return keys;
    },
    1,
  );
}

// ------------------------------------------------------------------ checks

function decodeCheck(api, vectors) {
  const problems = [];
  for (const v of vectors) {
    // Whole, byte by byte and at two seeded splits (the browser runner's).
    for (const [how, chunks] of chunkings(v.name, vectorBody(v), { byteLimit: 4096, seeds: 2 })) {
      const found = compareJs(v, decodeJs(api, v, chunks));
      if (found.length) {
        problems.push(`${v.name} (${how}): ${found.join("; ")}`);
        break;
      }
    }
  }
  return problems;
}

function conversationCheck(api, vectors) {
  const problems = [];
  for (const v of vectors) {
    for (const [how, makeSplit] of conversationSplits(v.name, { seeds: 2 })) {
      const found = checkConversation(v, playConversation(api, v, makeSplit()));
      if (found.length) {
        problems.push(`${v.name} (${how}): ${found.join("; ")}`);
        break;
      }
    }
  }
  return problems;
}

function previewCheck(api, vectors) {
  const problems = [];
  for (const v of vectors) {
    try {
      checkPreviewVector(api, v);
    } catch (e) {
      problems.push(`${v.name}: ${e.message}`);
    }
  }
  // The README's example, exact: the tail keeps the error, the notice names the saved file.
  const log = Array.from({ length: 300 }, (_, i) => `[${String(i + 1).padStart(4, "0")}] step ${i + 1}: ok\n`).join("") + "error: disk quota exceeded\n";
  const id = "3f9c0e8a5b7d4e21a0c6f1b2d3e4f5a6";
  const p = api.bound(new TextEncoder().encode(log), { maxLines: 20, maxBytes: 257, spill: (spillId) => `/workspace/.tool-output/${spillId}.txt`, spillId: id });
  const expected = [
    "[0001] step 1: ok",
    "[0002] step 2: ok",
    "[0003] step 3: ok",
    `[... 5798 bytes omitted: lines 4-298 of 301; sed -n '4,298p' /workspace/.tool-output/${id}.txt ...]`,
    "[0299] step 299: ok",
    "[0300] step 300: ok",
    "error: disk quota exceeded",
    "",
  ].join("\n");
  if (p.text !== expected) problems.push(`the README's preview: got ${JSON.stringify(p.text)}`);
  if (!p.truncated) problems.push("the README's preview is not truncated");
  return problems;
}

/** The base class of each error kind; kinds without one derive from DoryWireError directly. */
const KIND_BASE = { loss: "LossError", answer: "AnswerError", protocol: "ProtocolError" };

/**
 * One way to make the core raise each code of the error table, through the
 * API (`api` is the entry that raises it; its classes are compared with
 * those of `classes`, so a `require`d copy can be checked against the
 * imported one).
 */
function raisers(decodeAll) {
  const byCode = new Map();
  for (const v of decodeAll) {
    const exp = jsExpectation(v);
    const code = exp.end?.type === "error" ? exp.end.code : undefined;
    if (code && !byCode.has(code)) byCode.set(code, v);
  }
  const out = new Map();
  for (const [code, v] of byCode) {
    out.set(code, (api) => {
      const reader = new api.Reader(v.endpoint, {
        ...(v.cursor ? { cursor: v.cursor } : {}),
        ...(v.gap_policy ? { gapPolicy: v.gap_policy } : {}),
        ...(v.max_frame_bytes !== undefined ? { maxFrameBytes: v.max_frame_bytes } : {}),
        ...(v.strict ? { strict: true } : {}),
      });
      reader.open(v.status, v.content_type ?? "", v.process_id_header ?? undefined);
      reader.feed(vectorBody(v));
      reader.feed(new Uint8Array(0)); // an error after events in one feed is thrown by the next call
      reader.finish();
    });
  }
  out.set("invalid_limits", (api) => api.bound(new TextEncoder().encode("x\n".repeat(100)), { maxLines: 0, maxBytes: 100 }));
  out.set("invalid_state", (api) => new api.Reader("exec").feed(new Uint8Array([123])));
  out.set("invalid_argument", (api) => api.Follower.processOutput("c1", "p1", { livenessTimeoutMs: 0 }));
  out.set("stream_disconnected", (api) => {
    const follower = api.Follower.processOutput("c1", "p1", { retries: 0 });
    follower.request();
    follower.noResponse("connection refused", 0);
  });
  out.set("no_answer", (api) => {
    const follower = api.Follower.call(api.Request.start("c1", "make"));
    follower.request();
    follower.noResponse("connection refused", 0);
  });
  return out;
}

function errorsCheck(api, clientApi, cjs, decodeAll) {
  const problems = [];
  const make = raisers(decodeAll);
  const entries = cjs ? [["import", api], ["require", cjs]] : [["import", api]];
  for (const row of api.ERROR_CODES) {
    const cls = api[row.class];
    const base = api[KIND_BASE[row.kind] ?? "DoryWireError"];
    if (typeof cls !== "function") {
      problems.push(`${row.class} (${row.code}) is not exported`);
      continue;
    }
    if (!(cls.prototype instanceof base)) problems.push(`${row.class} does not extend ${base.name}`);
    const raise = make.get(row.code);
    if (!raise) {
      problems.push(`no way to raise ${row.code} here`);
      continue;
    }
    for (const [how, entry] of entries) {
      let thrown;
      try {
        raise(entry);
      } catch (e) {
        thrown = e;
      }
      const where = `${row.code} (${how})`;
      if (thrown === undefined) {
        problems.push(`${where}: nothing thrown`);
        continue;
      }
      // The classes of the imported entry, whichever entry threw: one copy of each.
      const ok =
        thrown instanceof cls &&
        thrown instanceof base &&
        thrown instanceof api.DoryWireError &&
        thrown instanceof Error &&
        thrown.code === row.code &&
        thrown.kind === row.kind &&
        thrown.name === row.class;
      if (!ok) {
        problems.push(
          `${where}: got ${thrown?.name} code=${thrown?.code} kind=${thrown?.kind} instanceof ${row.class}=${thrown instanceof cls} ` +
            `${base.name}=${thrown instanceof base} DoryWireError=${thrown instanceof api.DoryWireError}: ${thrown?.message}`,
        );
      }
    }
  }
  // dory-wire/client reuses the core's classes.
  for (const name of ["StreamDisconnected", "DoryWireError", "OutputGap", "ApiError", "Transcript"]) {
    if (clientApi[name] !== undefined && clientApi[name] !== api[name]) problems.push(`dory-wire/client's ${name} is not dory-wire's`);
  }
  return problems;
}

async function clientCheck(clientApi, api, server) {
  const problems = [];
  const c = new clientApi.Client({ baseUrl: server.url });
  try {
    const computer = c.computers.get(server.computer);
    const started = await computer.processes.start(COMMAND, { timeout_seconds: 30 });
    const handle = await computer.processes.get(started.proc_id);
    const reconnects = [];
    const t = await handle.readOutput({ onReconnect: (r) => reconnects.push(r) });
    const stdout = Array.from(t.bytes("stdout"));
    if (!(t instanceof api.Transcript)) problems.push("readOutput did not resolve with the core's Transcript");
    if (JSON.stringify(stdout) !== JSON.stringify(HELLO)) problems.push(`stdout ${JSON.stringify(stdout)}, expected ${JSON.stringify(HELLO)}`);
    if (t.text("stderr") !== "notice") problems.push(`stderr ${JSON.stringify(t.text("stderr"))}`);
    if (JSON.stringify(t.exit) !== JSON.stringify({ exitCode: 0, timedOut: false })) problems.push(`exit ${JSON.stringify(t.exit)}`);
    // Every response is cut after 80 bytes: one frame each, so a reconnect after each of the first ones.
    if (reconnects.length < 2) problems.push(`${reconnects.length} reconnects through responses cut after 80 bytes`);
    for (const r of reconnects) {
      if (!(r instanceof api.StreamDisconnected) && r?.reason === undefined) problems.push(`onReconnect got ${String(r)}`);
    }
    return { problems, detail: `${reconnects.length} reconnects, stdout ${stdout.length} bytes exact` };
  } finally {
    c.close();
  }
}

function runVectorsCheck(api, vectors) {
  const problems = [];
  for (const v of vectors) {
    // checkRun: whole, byte by byte and 6 seeded splits; each view against bound() of its bytes where it has no loss nor section.
    for (const p of checkRun(api, v)) problems.push(`${v.name}: ${p}`);
  }
  for (const [what, has] of [
    ["a stderr section", (v) => v.expect.combined?.preview?.includes("[... the last ")],
    ["a loss", (v) => v.expect.combined?.lost_bytes > 0],
    ["an error", (v) => v.expect.error !== undefined],
  ]) {
    if (!vectors.some(has)) problems.push(`no run vector with ${what} chosen`);
  }
  // The runner can fail: a wrong expected preview is reported.
  const cut = vectors.find((v) => v.expect.combined?.truncated);
  if (cut) {
    const wrong = JSON.parse(JSON.stringify(cut.expect));
    wrong.combined.preview += "x";
    if (checkRun(api, cut, wrong).length === 0) problems.push(`${cut.name}: a wrong expected combined preview is not reported`);
  } else {
    problems.push("no run vector with a cut combined view chosen");
  }
  return problems;
}

const enc = new TextEncoder();

function concat(chunks) {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Lines as docs/preview.md counts them: each \n, plus a final run without one. */
function linesOf(bytes) {
  let n = 0;
  for (const b of bytes) if (b === 10) n++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? n + 1 : n;
}

/**
 * The agent call's command: 20 lines of stdout (one write), a line of
 * stderr, 20 more lines of stdout, the pauses keeping the arrival order
 * known: the stderr line ends up in the middle of the combined view, which
 * both limits cut (41 lines, 347 bytes), so it is shown in a stderr section.
 * Each response carries one frame of at most 32 bytes: a dozen reconnects.
 */
const RUN_LINES = 20;
const RUN_LINE = (i) => `line ${String(i).padStart(2, "0")}\n`;
export const RUN_COMMAND = [
  "sh",
  "-c",
  `seq -f 'line %02g' 1 ${RUN_LINES}; sleep 0.1; echo 'error: disk quota exceeded' >&2; sleep 0.1; seq -f 'line %02g' ${RUN_LINES + 1} ${2 * RUN_LINES}`,
];
export const RUN_STDERR = "error: disk quota exceeded\n";
const RUN_STDOUT_HEAD = Array.from({ length: RUN_LINES }, (_, i) => RUN_LINE(i + 1)).join("");
const RUN_STDOUT_TAIL = Array.from({ length: RUN_LINES }, (_, i) => RUN_LINE(RUN_LINES + i + 1)).join("");
export const RUN_STDOUT = RUN_STDOUT_HEAD + RUN_STDOUT_TAIL;
export const RUN_COMBINED = RUN_STDOUT_HEAD + RUN_STDERR + RUN_STDOUT_TAIL;
export const RUN_LIMITS = { maxLines: 20, maxBytes: 340 };

/**
 * `computer.run` through the cut server: exit 0, the combined view cut
 * within both limits with the stderr line in its stderr section, the stdout
 * view equal to bound() of its bytes, onOutput given every byte once; with a
 * SpillDirectory in `files.dir` where there is a filesystem (its files are
 * checked by spillCheck), else none. Stores the result in `state.run`.
 */
async function runCheck(clientApi, api, server, files, state) {
  const problems = [];
  const c = new clientApi.Client({ baseUrl: server.url });
  try {
    const computer = c.computers.get(server.computer);
    const seen = { stdout: [], stderr: [] };
    const texts = { stdout: "", stderr: "" };
    let calls = 0;
    let reconnects = 0;
    const spill = files ? new clientApi.SpillDirectory(files.dir) : undefined;
    const r = await computer.run(RUN_COMMAND, {
      ...RUN_LIMITS,
      ...(spill ? { spill } : {}),
      timeoutMs: 60_000,
      backoffMs: 0,
      onReconnect: () => reconnects++,
      onOutput: ({ stream, data, text }) => {
        calls++;
        if (!(data instanceof Uint8Array)) problems.push(`onOutput data is ${Object.prototype.toString.call(data)}, not a Uint8Array`);
        seen[stream].push(data.slice());
        texts[stream] += text;
      },
    });
    state.run = r;
    if (r.exitCode !== 0 || r.timedOut !== false) problems.push(`exitCode ${r.exitCode}, timedOut ${r.timedOut}`);
    if (r.stdoutLostBytes !== 0 || r.stderrLostBytes !== 0) problems.push(`lost bytes: stdout ${r.stdoutLostBytes}, stderr ${r.stderrLostBytes}`);
    // Every byte exactly once, per stream, in order.
    for (const [stream, expected] of [
      ["stdout", RUN_STDOUT],
      ["stderr", RUN_STDERR],
    ]) {
      const got = concat(seen[stream]);
      const want = enc.encode(expected);
      if (!sameBytes(got, want)) problems.push(`onOutput ${stream}: ${got.length} bytes in ${seen[stream].length} calls, expected ${want.length} exact bytes`);
      if (r[stream].totalBytes !== want.length) problems.push(`${stream}.totalBytes ${r[stream].totalBytes}, expected ${want.length}`);
      if (got.length !== r[stream].totalBytes) problems.push(`onOutput ${stream} saw ${got.length} bytes, ${stream}.totalBytes ${r[stream].totalBytes}`);
      if (texts[stream] !== expected) problems.push(`onOutput ${stream} text ${JSON.stringify(texts[stream].slice(0, 80))}…`);
    }
    if (r.combined.totalBytes !== enc.encode(RUN_COMBINED).length) problems.push(`combined.totalBytes ${r.combined.totalBytes}, expected ${enc.encode(RUN_COMBINED).length}`);
    // The combined view: cut, within both limits, the stderr line in its section.
    const text = r.combined.text;
    const bytes = enc.encode(text);
    if (!r.combined.truncated) problems.push("combined not truncated");
    if (bytes.length > RUN_LIMITS.maxBytes || linesOf(bytes) > RUN_LIMITS.maxLines) problems.push(`combined ${bytes.length} bytes, ${linesOf(bytes)} lines: over ${RUN_LIMITS.maxBytes} bytes / ${RUN_LIMITS.maxLines} lines`);
    const section = text.indexOf("[... the last ");
    if (section < 0 || !text.slice(section).includes(RUN_STDERR)) problems.push(`combined has no stderr section with ${JSON.stringify(RUN_STDERR)}: ${JSON.stringify(text)}`);
    if (!text.startsWith(RUN_LINE(1))) problems.push(`combined does not start with stdout's first line: ${JSON.stringify(text.slice(0, 60))}`);
    if (r.stderr.truncated || r.stderr.text !== RUN_STDERR) problems.push(`stderr preview ${JSON.stringify(r.stderr.text)}, truncated ${r.stderr.truncated}`);
    // stdout has no loss and no section: it is bound() of its bytes with the run's limits and spill id.
    const path = r.stdout.spillPath;
    const whole = api.bound(enc.encode(RUN_STDOUT), { ...RUN_LIMITS, split: "tail", spillId: r.stdout.spillId, ...(path !== null ? { spill: () => path } : {}) });
    if (JSON.stringify(whole) !== JSON.stringify(r.stdout)) problems.push(`stdout differs from bound() of its bytes:\n  ${JSON.stringify(r.stdout)}\n  ${JSON.stringify(whole)}`);
    if (!/^run-[0-9a-f]{32}$/.test(r.idempotencyKey) || r.combined.spillId !== `${api.runSpillId(r.idempotencyKey)}-combined`) {
      problems.push(`key ${r.idempotencyKey}, combined spill id ${r.combined.spillId}`);
    }
    if (!files) {
      // No spill writer: the notice names no file.
      for (const view of ["stdout", "stderr", "combined"]) {
        if (r[view].spillPath !== null || r[view].spillError !== null) problems.push(`${view}: spillPath ${r[view].spillPath}, spillError ${r[view].spillError} without a spill writer`);
      }
    }
    // Each response carries one frame of at most 32 bytes: a reconnect after each.
    if (reconnects < 8) problems.push(`${reconnects} reconnects through responses cut after 80 bytes`);
    return { problems, detail: `${reconnects} reconnects, ${calls} onOutput calls, each byte once; combined ${bytes.length} bytes / ${linesOf(bytes)} lines of ${r.combined.totalBytes} bytes, stderr section${files ? ", SpillDirectory" : ", no spill"}` };
  } finally {
    c.close();
  }
}

/**
 * Where there is a filesystem: the run's SpillDirectory saved the cut views
 * (combined, stdout) with their bytes, mode 0600, named by the notices, and
 * nothing else (stderr fits: discarded, no temporary file left). Where there
 * is none: the module loaded, a SpillDirectory is made, and opening a file
 * rejects with the client's clear error.
 */
async function spillCheck(clientApi, files, state) {
  const problems = [];
  if (!files) {
    const spill = new clientApi.SpillDirectory("/tmp/dory-wire-spills");
    let thrown;
    try {
      await spill.open("run-0123456789abcdef0123456789abcdef-combined");
    } catch (e) {
      thrown = e;
    }
    if (thrown === undefined) problems.push("SpillDirectory.open() succeeded without a filesystem");
    else if (!(thrown instanceof Error) || !/is not available on this platform: SpillDirectory writes files with Node, Deno or Bun/.test(thrown.message)) {
      problems.push(`SpillDirectory.open() threw ${thrown?.name}: ${thrown?.message}`);
    }
    let bad;
    try {
      new clientApi.SpillDirectory("");
    } catch (e) {
      bad = e;
    }
    if (!(bad instanceof TypeError)) problems.push(`new SpillDirectory("") threw ${bad}`);
    return { problems, detail: `no filesystem: open() rejects: ${thrown?.message}` };
  }
  const r = state.run;
  if (!r) return { problems: ["no run result (client run failed)"], detail: "" };
  const expected = { combined: enc.encode(RUN_COMBINED), stdout: enc.encode(RUN_STDOUT) };
  const names = [];
  for (const view of ["combined", "stdout"]) {
    const p = r[view];
    if (typeof p.spillPath !== "string" || p.spillError !== null) {
      problems.push(`${view}: spillPath ${p.spillPath}, spillError ${p.spillError}`);
      continue;
    }
    const name = `${p.spillId}.txt`;
    names.push(name);
    if (!p.spillPath.endsWith(`/${name}`) || !p.spillPath.startsWith("/")) problems.push(`${view}: spillPath ${p.spillPath} is not <dir>/${name}`);
    if (!p.text.includes(p.spillPath)) problems.push(`${view}: the notice does not name ${p.spillPath}: ${JSON.stringify(p.text)}`);
    let st;
    try {
      st = files.stat(p.spillPath);
    } catch (e) {
      problems.push(`${view}: ${p.spillPath} is not there: ${e?.message}`);
      continue;
    }
    if (st.size !== p.totalBytes) problems.push(`${view}: ${p.spillPath} holds ${st.size} bytes, ${view}.totalBytes ${p.totalBytes}`);
    if ((st.mode & 0o777) !== 0o600) problems.push(`${view}: ${p.spillPath} has mode ${(st.mode & 0o777).toString(8)}, expected 600`);
    if (!sameBytes(files.read(p.spillPath), expected[view])) problems.push(`${view}: ${p.spillPath} does not hold the ${view} bytes`);
  }
  if (r.stderr.spillPath !== null) problems.push(`stderr fits but was saved at ${r.stderr.spillPath}`);
  const listed = files.list(files.dir).sort();
  if (JSON.stringify(listed) !== JSON.stringify(names.sort())) problems.push(`${files.dir} holds ${JSON.stringify(listed)}, expected ${JSON.stringify(names)}`);
  return { problems, detail: `${names.join(", ")}: ${r.combined.totalBytes} and ${r.stdout.totalBytes} bytes, mode 0600, nothing else in the directory` };
}

/** Runs a check, turning a throw into a failed result. */
async function check(results, name, fn) {
  const start = Date.now();
  try {
    const out = await fn();
    const problems = Array.isArray(out) ? out : out.problems;
    const detail = Array.isArray(out) ? "" : out.detail;
    results.push({ name, ok: problems.length === 0, detail: problems.length ? problems.slice(0, 5).join("\n") + (problems.length > 5 ? `\n… ${problems.length - 5} more` : "") : detail, ms: Date.now() - start });
  } catch (e) {
    results.push({ name, ok: false, detail: `threw ${e?.name}: ${e?.message}${e?.cause ? ` (cause: ${e.cause?.message ?? e.cause})` : ""}`, ms: Date.now() - start });
  }
}

export async function runChecks({ api, client: clientApi, cjs, vectors, server, files }) {
  const results = [];
  const decodeAll = vectorsOf(vectors.decode);
  const decode = chooseDecode(vectors.decode);
  const conversation = chooseConversation(vectors.conversation);
  const preview = choosePreview(vectors.preview);
  const runVectors = chooseRun(vectors.run);
  await check(results, "load", () => {
    const problems = [];
    for (const name of ["init", "Reader", "Follower", "Transcript", "bound", "StreamingBounder", "RunBounder", "runSpillId", "ERROR_CODES"]) {
      if (api[name] === undefined) problems.push(`dory-wire has no ${name}`);
    }
    for (const name of ["Client", "StreamDisconnected", "SpillDirectory"]) {
      if (clientApi[name] === undefined) problems.push(`dory-wire/client has no ${name}`);
    }
    if (cjs) {
      for (const name of ["Reader", "DoryWireError", "OutputGap", "Transcript"]) {
        if (cjs[name] !== api[name]) problems.push(`require("dory-wire").${name} is not import's: two copies of the package`);
      }
    }
    return { problems, detail: cjs ? "import and require: one copy of every class" : "import" };
  });
  await check(results, "decode vectors", () => ({ problems: decodeCheck(api, decode), detail: `${decode.length} of ${decodeAll.length}, whole, byte by byte and 2 seeded splits` }));
  await check(results, "conversation vectors", () => ({
    problems: conversationCheck(api, conversation),
    detail: `${conversation.length} of ${vectorsOf(vectors.conversation).length}, whole, byte by byte and 2 seeded splits`,
  }));
  await check(results, "errors", () => ({ problems: errorsCheck(api, clientApi, cjs, decodeAll), detail: `${api.ERROR_CODES.length} codes raised, classes by instanceof${cjs ? " (import and require)" : ""}` }));
  await check(results, "bound", () => ({ problems: previewCheck(api, preview), detail: `${preview.length} preview vectors and the README's example` }));
  await check(results, "run vectors", () => ({
    problems: runVectorsCheck(api, runVectors),
    detail: `RunBounder: ${runVectors.length} of ${vectorsOf(vectors.run).length} (${runVectors.map((v) => v.name).join(", ")}), whole, byte by byte and 6 seeded splits`,
  }));
  if (server) await check(results, "client readOutput", () => clientCheck(clientApi, api, server));
  const state = {};
  if (server) await check(results, "client run", () => runCheck(clientApi, api, server, files, state));
  await check(results, files ? "SpillDirectory" : "SpillDirectory without a filesystem", () => (files && !server ? { problems: ["no server: no run to check"], detail: "" } : spillCheck(clientApi, files, state)));
  return { results };
}
