// The checks every runtime runs on the installed npm package (Node, Deno,
// Bun, Cloudflare Workers in workerd, Firefox): written once, with no Node
// import and no platform global beyond what every one of them has (fetch,
// TextEncoder, BigInt, setTimeout), so the very same module runs everywhere.
// The runtime's driver imports the package the way its users do and hands it
// in; tests/runtimes/runtimes.test.mjs reads the report back.
//
//   runChecks({ api, client, cjs, vectors, server, skip }) → { results: [{ name, ok, detail }] }
//
//   api      the package's `dory-wire` entry, loaded (init() done where needed)
//   client   its `dory-wire/client` entry
//   cjs      the same package through `require`, where the runtime has one (else undefined)
//   vectors  { decode, conversation, preview }: the text of every file of
//            tests/vectors/<kind>/ (the checks parse and choose)
//   server   { url, computer }: the reference server (crates/dory-refserver)
//            cutting every response after 80 body bytes, or undefined
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
    const computer = await c.computers.get(server.computer);
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

export async function runChecks({ api, client: clientApi, cjs, vectors, server }) {
  const results = [];
  const decodeAll = vectorsOf(vectors.decode);
  const decode = chooseDecode(vectors.decode);
  const conversation = chooseConversation(vectors.conversation);
  const preview = choosePreview(vectors.preview);
  await check(results, "load", () => {
    const problems = [];
    for (const name of ["init", "Reader", "Follower", "Transcript", "bound", "StreamingBounder", "ERROR_CODES"]) {
      if (api[name] === undefined) problems.push(`dory-wire has no ${name}`);
    }
    for (const name of ["Client", "StreamDisconnected"]) {
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
  if (server) await check(results, "client readOutput", () => clientCheck(clientApi, api, server));
  return { results };
}
