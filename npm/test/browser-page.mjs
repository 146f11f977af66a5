// Runs in Chromium (served by browser.test.mjs): loads the browser build,
// decodes every decode vector (whole and at seeded splits), plays every
// conversation vector through a Follower (whole, byte by byte and at two
// seeded splits), checks every run vector through a RunBounder (whole, byte
// by byte and at the Rust runner's splits), plays every run-conversation
// vector through a Run (whole, byte by byte and at two seeded splits),
// follows a body
// through a real fetch ReadableStream, bounds every preview input, and leaves
// the results in window.__doryResult for the test to read back.
import * as api from "/dist/web/index.js";
import {
  checkConversation,
  checkRun,
  checkSearch,
  checkRunConversation,
  chunkings,
  compareJs,
  conversationSplits,
  decodeJs,
  parseJsonExact,
  playConversation,
  playRun,
  runOptions,
  playRunConversation,
  runConversationRefusal,
  runItems,
  vectorBody,
  vectorInput,
} from "/test/vector-lib.mjs";
import { vectorWriter } from "/test/preview-lib.mjs";

async function run() {
  const result = { decodePassed: 0, conversationsPassed: 0, runsPassed: 0, runConversationsPassed: 0, searchesPassed: 0, unknownKinds: [], failures: [], previews: {}, runs: {}, fetched: null, beforeInit: null };
  try {
    new api.Reader("exec");
  } catch (e) {
    result.beforeInit = e.message;
  }
  await api.init();
  await api.init(); // idempotent
  const vectors = [];
  for (const url of await (await fetch("/vectors.json")).json()) {
    vectors.push(...parseJsonExact(await (await fetch(url)).text()).vectors);
  }
  for (const v of vectors) {
    if (v.kind === "decode") {
      const body = vectorBody(v);
      let ok = true;
      for (const [how, chunks] of chunkings(v.name, body, { byteLimit: 4096, seeds: 2 })) {
        const problems = compareJs(v, decodeJs(api, v, chunks));
        if (problems.length) {
          ok = false;
          result.failures.push(`${v.name} (${how}): ${problems.join("; ")}`);
          break;
        }
      }
      if (ok) result.decodePassed++;
    } else if (v.kind === "conversation") {
      const problems = [];
      for (const [how, makeSplit] of conversationSplits(v.name, { seeds: 2 })) {
        const found = checkConversation(v, playConversation(api, v, makeSplit()));
        if (found.length) problems.push(`${v.name} (${how}): ${found.join("; ")}`);
      }
      if (problems.length) result.failures.push(...problems);
      else result.conversationsPassed++;
    } else if (v.kind === "run-conversation") {
      // A tokenizer this build lacks: its refusal is what a caller gets.
      const refused = runConversationRefusal(api, v);
      const problems = (refused ?? []).map((p) => `${v.name}: ${p}`);
      const splits = refused === null ? conversationSplits(v.name, { seeds: 2 }) : [];
      for (const [how, makeSplit] of splits) {
        const found = checkRunConversation(v, playRunConversation(api, v, makeSplit()));
        if (found.length) problems.push(`${v.name} (${how}): ${found.join("; ")}`);
      }
      if (problems.length) result.failures.push(...problems);
      else result.runConversationsPassed++;
    } else if (v.kind === "run") {
      const problems = checkRun(api, v);
      if (problems.length) result.failures.push(...problems.map((p) => `${v.name}: ${p}`));
      else result.runsPassed++;
      result.runs[v.name] = playRun(api, v, runItems(v));
    } else if (v.kind === "search") {
      const problems = checkSearch(api, v);
      if (problems.length) result.failures.push(...problems.map((p) => `${v.name}: ${p}`));
      else result.searchesPassed++;
    } else if (v.kind === "preview") {
      try {
        const options = { maxLines: v.max_lines, maxBytes: v.max_bytes, spill: vectorWriter(v.spill), hint: v.hint ?? undefined, spillId: v.spill_id ?? "0123456789abcdef0123456789abcdef", ...runOptions(v) };
        result.previews[v.name] = api.bound(vectorInput(v), options);
      } catch (e) {
        result.previews[v.name] = { error: e.code ?? String(e) };
      }
    } else {
      result.unknownKinds.push(`${v.name}: ${v.kind}`);
    }
  }
  // A real streamed fetch body, read through iterEvents with the Response.
  const response = await fetch("/stream");
  const reader = new api.Reader("exec");
  const decoder = new TextDecoder();
  let text = "";
  const types = [];
  for await (const event of api.iterEvents(reader, response)) {
    types.push(event.type);
    if (event.type === "output" && event.stream === "stdout") text += decoder.decode(event.data, { stream: true });
  }
  result.fetched = { text, types, end: reader.end, cursor: reader.cursor, procId: reader.procId };
  // The same body, in the pieces the server writes, into a Transcript.
  const transcript = new api.Transcript();
  const into = new api.Reader("exec");
  into.open(200, "application/x-ndjson", "p_web");
  for (const piece of await (await fetch("/stream-pieces")).json()) into.feedInto(new TextEncoder().encode(piece), transcript);
  into.finish();
  result.transcript = { text: transcript.text("stdout"), exit: transcript.exit };
  // Error classes in the browser build: the table, the classes, the hierarchy.
  const bad = new api.Reader("process_output");
  bad.open(200, "application/x-ndjson");
  try {
    bad.feed(new TextEncoder().encode("nope\n"));
  } catch (e) {
    result.errorCheck = {
      protocol: e instanceof api.ProtocolError,
      cls: e instanceof api.MalformedFrame,
      base: e instanceof api.DoryWireError,
      code: e.code,
      kind: e.kind,
    };
  }
  result.errorCodes = api.ERROR_CODES;
  result.classes = api.ERROR_CODES.map((row) => [row.class, typeof api[row.class], Object.getPrototypeOf(api[row.class]).name]);
  result.constants = [api.DEFAULT_MAX_FRAME_BYTES, api.DEFAULT_LIVENESS_TIMEOUT_MS, api.MAX_FRAME_BYTES_LIMIT, api.MIN_MAX_BYTES];
  // The token counter: the build's tokenizers (from its tables) and a count from the module.
  result.tokenizers = [...api.TOKENIZERS];
  result.counted = api.countTokens("error: it broke\n第1行 🦀\n", "approx");
  result.followDefaults = { ...api.Follower.defaults };
  result.spillIds = [0, 1].map(() => api.bound("z\n".repeat(5000), { maxLines: 20, maxBytes: 1000, spill: (id) => `/tmp/${id}` }).spillId);
  return result;
}

run().then(
  (r) => {
    window.__doryResult = r;
  },
  (e) => {
    window.__doryResult = { crashed: `${e && e.stack ? e.stack : e}` };
  },
);
