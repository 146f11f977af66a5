// Runs in Chromium (served by browser.test.mjs): loads the browser build,
// decodes every decode vector (whole and at seeded splits), follows a body
// through a real fetch ReadableStream, bounds every preview input, and leaves
// the results in window.__doryResult for the test to read back.
import * as api from "/dist/web/index.js";
import { chunkings, compareJs, decodeJs, parseJsonExact, vectorBody, vectorInput } from "/test/vector-lib.mjs";
import { vectorWriter } from "/test/preview-lib.mjs";

async function run() {
  const result = { decodePassed: 0, failures: [], previews: {}, fetched: null, beforeInit: null };
  try {
    new api.OutputReader("exec");
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
    } else if (v.kind === "preview") {
      try {
        const options = { maxLines: v.max_lines, maxBytes: v.max_bytes, spill: vectorWriter(v.spill), hint: v.hint ?? undefined, spillId: v.spill_id ?? "0123456789abcdef0123456789abcdef" };
        result.previews[v.name] = api.bound(vectorInput(v), options);
      } catch (e) {
        result.previews[v.name] = { error: e.code ?? String(e) };
      }
    }
  }
  // A real streamed fetch body, read through readEvents with the Response.
  const response = await fetch("/stream");
  const reader = new api.OutputReader("exec");
  const decoder = new TextDecoder();
  let text = "";
  const types = [];
  for await (const event of api.readEvents(reader, response)) {
    types.push(event.type);
    if (event.type === "stdout") text += decoder.decode(event.data, { stream: true });
  }
  result.fetched = { text, types, end: reader.end, cursor: reader.cursor, processId: reader.processId };
  // Error classes in the browser build.
  const bad = new api.OutputReader("process_output");
  bad.open(200, "application/x-ndjson");
  try {
    bad.feed(new TextEncoder().encode("nope\n"));
  } catch (e) {
    result.errorCheck = { protocol: e instanceof api.ProtocolError, base: e instanceof api.DoryWireError, code: e.code };
  }
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
