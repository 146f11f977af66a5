// A scripted `fetch` for the client's tests: each request is answered by the
// next handler of a script, with a body delivered piece by piece and ended
// the way the test says (closed, failed like a cut connection, or hanging
// until the request is aborted).

export const NDJSON = "application/x-ndjson";
export const JSON_TYPE = "application/json";
export const enc = (s) => (typeof s === "string" ? new TextEncoder().encode(s) : s);
export const line = (o) => JSON.stringify(o) + "\n";

/**
 * A response: `status`, `type` (Content-Type), `pid` (CE-Process-Id),
 * `chunks` (strings or bytes, one per read), then `end`: "close" (default),
 * "error" (the read rejects with `TypeError: terminated`, as Node's fetch does
 * when the server cuts the connection) or "hang" (no more bytes until abort).
 */
export function response({ status = 200, type = NDJSON, pid, chunks = [], end = "close" } = {}, signal) {
  let i = 0;
  let hang = null;
  const body = new ReadableStream({
    pull(c) {
      if (i < chunks.length) {
        c.enqueue(enc(chunks[i++]));
        return undefined;
      }
      if (end === "close") {
        c.close();
        return undefined;
      }
      if (end === "error") {
        c.error(new TypeError("terminated"));
        return undefined;
      }
      hang = new Promise((resolve) => {
        signal?.addEventListener("abort", () => {
          try {
            c.error(signal.reason ?? new DOMException("aborted", "AbortError"));
          } catch {
            // already closed
          }
          resolve();
        });
      });
      return hang;
    },
  });
  const headers = new Headers();
  if (type !== null) headers.set("content-type", type);
  if (pid !== undefined) headers.set("ce-process-id", pid);
  return { status, headers, body };
}

/**
 * A fetch that answers request k with `script[k]`: a response spec (see
 * `response`), a function `(url, init) => spec | Promise<spec>`, an Error to
 * reject with, or "hang" (no response until aborted). Records every request
 * in `calls` ({url, method, headers, body}).
 */
export function scriptedFetch(script) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url, method: init.method, headers: init.headers, body: init.body });
    const k = calls.length - 1;
    if (k >= script.length) throw new Error(`unexpected request ${k}: ${init.method} ${url}`);
    let step = script[k];
    if (typeof step === "function") step = await step(url, init);
    if (step instanceof Error) throw step;
    if (step === "hang") {
      return new Promise((_, reject) => {
        init.signal.addEventListener("abort", () => reject(init.signal.reason ?? new DOMException("aborted", "AbortError")));
      });
    }
    return response(step, init.signal);
  };
  return { fetch, calls };
}

/** The exec and output frames of a process writing `hello\0\xff` to stdout and `notice` to stderr. */
export const PROGRAM_FRAMES = [
  line({ type: "stdout", data: "aGVsbG8A/w==", encoding: "base64", offset: 7 }),
  line({ type: "stderr", data: "notice", offset: 6 }),
  line({ type: "exit", exit_code: 0, timed_out: false }),
];

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Collects a stream's frames; returns {frames, error}. */
export async function drain(stream) {
  const frames = [];
  try {
    for await (const frame of stream) frames.push(frame);
  } catch (error) {
    return { frames, error };
  } finally {
    await stream.close();
  }
  return { frames, error: null };
}
