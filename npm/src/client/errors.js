// What the client raises besides the core's errors (AbortError once closed),
// and how it words a transport's failure for the core.

import { NoAnswer, StreamDisconnected } from "dory-wire";

/**
 * A read ended before `exit` and may not go on by itself: the core's class
 * of `stream_disconnected` (kind `transport`), the same object as
 * `dory-wire`'s, so `instanceof` holds whichever entry point raised it. It
 * reads `reason`, `cursor`, `procId` and, under the wire's names,
 * `stdout_offset`, `stderr_offset` and `proc_id`; `cause` is the
 * transport's error.
 */

/** The StreamDisconnected of a reconnect the follower decided (its record), caused by `cause`: the core's message. */
export function fromRecord(record, cause) {
  return StreamDisconnected.fromReconnect(record, cause);
}

/** Gives a StreamDisconnected thrown by the core the transport's error as its `cause`. */
export function withCause(error, cause) {
  if ((error instanceof StreamDisconnected || error instanceof NoAnswer) && error.cause === undefined && cause !== undefined) {
    Object.defineProperty(error, "cause", { value: cause, configurable: true, writable: true });
  }
  return error;
}

/** What operations in flight reject with once the client is closed. */
export function closedError() {
  const message = "the dory-wire client is closed";
  if (typeof DOMException === "function") return new DOMException(message, "AbortError");
  const error = new Error(message);
  error.name = "AbortError";
  return error;
}

/**
 * The error codes of a connection that was never made: refused, the name
 * lookup failed, no route to the host, the connect timed out (undici). A
 * reset (`ECONNRESET`), a TLS failure or anything after the connect is not
 * one: the request may have left.
 */
const NEVER_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * Whether fetch's error says the connection was never made, so the request
 * cannot have reached the service (the core then sends it again whatever it
 * is): a `TypeError` whose cause carries a connect-phase code (or an
 * `AggregateError` of one per address, all of them such). A runtime whose
 * errors carry no code gives false: "no response".
 */
export function neverConnected(error) {
  if (!(error instanceof TypeError)) return false;
  const connectPhase = (e) => typeof e === "object" && e !== null && NEVER_CONNECTED.has(e.code);
  let e = error.cause;
  for (let depth = 0; typeof e === "object" && e !== null && depth < 4; depth++) {
    if (connectPhase(e)) return true;
    if (Array.isArray(e.errors) && e.errors.length > 0) return e.errors.every(connectPhase);
    e = e.cause;
  }
  return false;
}

/**
 * What a transport error says, for the follower's record (its `detail`):
 * the error's message and those of its causes — fetch's `TypeError: fetch
 * failed` keeps the reason and the address in `cause` (`connect
 * ECONNREFUSED 127.0.0.1:8080`, an `AggregateError` of one per address) —
 * after the request's method and URL when given (no answer came: where
 * from).
 */
export function describeTransportError(error, method, url) {
  const parts = [];
  const add = (text) => {
    if (text !== "" && !parts.some((p) => p.includes(text))) parts.push(text);
  };
  let e = error;
  for (let depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    add(oneError(e));
    if (typeof e === "object" && Array.isArray(e.errors) && e.errors.length > 0) add(e.errors.map(oneError).join("; "));
    e = typeof e === "object" ? e.cause : undefined;
  }
  const text = parts.join(": ") || "the transport failed";
  return url === undefined ? text : `${method} ${url}: ${text}`;
}

function oneError(e) {
  if (typeof e !== "object") return String(e);
  let text = typeof e.message === "string" && e.message !== "" ? e.message : typeof e.errors === "object" ? "" : String(e.name ?? "Error");
  if (typeof e.code === "string" && !text.includes(e.code)) text += text === "" ? e.code : ` (${e.code})`;
  if (typeof e.address === "string" && !text.includes(e.address)) {
    text += ` ${e.address}${e.port === undefined ? "" : `:${e.port}`}`;
  }
  return text.trim();
}
