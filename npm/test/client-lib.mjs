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
 * `headers` (any others, e.g. `retry-after`), `chunks` (strings or bytes,
 * one per read, each after `every` ms when given), then `end`: "close"
 * (default), "error" (the read rejects with `TypeError: terminated`, as
 * Node's fetch does when the server cuts the connection), "hang" (no more
 * bytes until abort) or "trickle" (one byte of `trickle` every `every` ms,
 * forever). `onEnd()` is called once when the body is over: closed, failed
 * or cancelled by the client.
 */
export function response({ status = 200, type = NDJSON, pid, headers: extra = {}, chunks = [], end = "close", every, trickle = "x", onEnd } = {}, signal) {
  let i = 0;
  let hang = null;
  let ended = false;
  const over = () => {
    if (!ended) {
      ended = true;
      onEnd?.();
    }
  };
  const later = (f) => (every === undefined ? f() : new Promise((r) => setTimeout(r, every)).then(f));
  const body = new ReadableStream({
    pull(c) {
      if (i < chunks.length) {
        return later(() => c.enqueue(enc(chunks[i++])));
      }
      if (end === "close") {
        c.close();
        over();
        return undefined;
      }
      if (end === "error") {
        c.error(new TypeError("terminated"));
        over();
        return undefined;
      }
      if (end === "trickle") {
        i++;
        return later(() => c.enqueue(enc(trickle[i % trickle.length])));
      }
      hang = new Promise((resolve) => {
        signal?.addEventListener("abort", () => {
          try {
            c.error(signal.reason ?? new DOMException("aborted", "AbortError"));
          } catch {
            // already closed
          }
          over();
          resolve();
        });
      });
      return hang;
    },
    cancel() {
      over();
    },
  });
  const headers = new Headers(extra);
  if (type !== null) headers.set("content-type", type);
  if (pid !== undefined) headers.set("ce-process-id", pid);
  return { status, headers, body };
}

/**
 * A fetch that answers request k with `script[k]`: a response spec (see
 * `response`), a function `(url, init) => spec | Promise<spec>`, an Error to
 * reject with, or "hang" (no response until aborted). Records every request
 * in `calls` ({url, method, headers, body (its text), at (performance.now())}).
 * Like Cloudflare Workers' fetch, it throws "Illegal invocation" when called
 * as a method of another object (`this` other than undefined or globalThis).
 */
export function scriptedFetch(script) {
  const calls = [];
  const fetch = async function (url, init) {
    "use strict";
    if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
    const body = init.body === undefined ? undefined : typeof init.body === "string" ? init.body : new TextDecoder().decode(init.body);
    calls.push({ url, method: init.method, headers: init.headers, body, at: performance.now() });
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
