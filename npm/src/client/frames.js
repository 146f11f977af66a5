// Core events as frames with the wire's field names.

import { Utf8Decoder } from "dory-wire";

const encoder = new TextEncoder();
let utf8 = null;

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  if (typeof Buffer === "function") {
    return Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
  }
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function base64(bytes) {
  if (typeof Buffer === "function") return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  if (typeof bytes.toBase64 === "function") return bytes.toBase64();
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Whether `bytes` hold a byte that never occurs in UTF-8 (C0, C1, F5..FF): then they are not text. */
function neverUtf8(bytes) {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b >= 0xf5 || b === 0xc0 || b === 0xc1) return true;
  }
  return false;
}

/**
 * The wire's form of `bytes`: their text when they are valid UTF-8, else
 * padded standard base64 — the rule the server applies to each chunk. The
 * text comes from the core's decoder (which replaces invalid bytes by
 * U+FFFD); it is valid exactly when it encodes back to the same bytes.
 */
function wireForm(bytes) {
  if (bytes.length === 0) return ["", "utf-8"];
  if (!neverUtf8(bytes)) {
    if (utf8 === null) utf8 = new Utf8Decoder();
    const text = utf8.push(bytes) + utf8.finish();
    if (sameBytes(encoder.encode(text), bytes)) return [text, "utf-8"];
  }
  return [base64(bytes), "base64"];
}

/**
 * An output frame. `data` and `encoding` are computed on first access (a
 * loop that reads only `bytes` never pays for them); they are enumerable
 * own properties like the others, so spreading, JSON and deep equality see
 * them.
 */
function outputFrame(event) {
  const frame = { type: event.stream, data: "", encoding: "utf-8", offset: event.end, stream: event.stream, start: event.start, end: event.end, bytes: event.data };
  let form = null;
  const field = (i, name) => ({
    get: () => (form ??= wireForm(event.data))[i],
    set: (value) => Object.defineProperty(frame, name, { value, writable: true, enumerable: true, configurable: true }),
    enumerable: true,
    configurable: true,
  });
  return Object.defineProperties(frame, { data: field(0, "data"), encoding: field(1, "encoding") });
}

/**
 * The frame of a core event, with the wire's field names; null for the
 * result document an exec stream may be answered by (its output follows,
 * read from the process's output).
 */
export function toFrame(event) {
  switch (event.type) {
    case "output":
      return outputFrame(event);
    case "exit":
      return { type: "exit", exit_code: event.exitCode, timed_out: event.timedOut };
    case "heartbeat":
      return { type: "heartbeat" };
    case "started":
      return { type: "started", proc_id: event.procId };
    case "skipped":
      return { type: "skipped", stream: event.stream, start: event.start, end: event.end };
    case "identity":
      return identityOf(event);
    case "unknown":
      return { type: "unknown", frame_type: event.frameType };
    case "exec_result":
      return null;
    default:
      throw new Error(`dory-wire/client: unexpected event ${JSON.stringify(event.type)} in a stream`);
  }
}

export function identityOf(event) {
  return { type: "identity", proc_id: event.procId, status: event.status };
}

export function resultOf(event) {
  return {
    type: "exec_result",
    proc_id: event.procId,
    stdout: event.stdout,
    stderr: event.stderr,
    stdout_truncated: event.stdoutTruncated,
    stderr_truncated: event.stderrTruncated,
    exit_code: event.exitCode,
    timed_out: event.timedOut,
  };
}

/** The consumed offsets after `event`, from those before it (the reader's cursor moved with it). */
export function advance(cursor, event) {
  if (event.type === "output" || event.type === "skipped") cursor[event.stream] = event.end;
}

/** How a read that is done ended, as the core's End. */
export function endOf(done) {
  if (done.exited) return { type: "exited", exitCode: done.exitCode, timedOut: done.timedOut };
  return { type: "disconnected", cursor: { ...done.cursor }, reason: "end_of_body" };
}
