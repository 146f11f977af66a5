// Core events as frames with the wire's field names.

import { wireForm } from "dory-wire";

/**
 * An output frame. `data` and `encoding` are computed on first access (a
 * loop that reads only `bytes` never pays for them); they are enumerable
 * own properties like the others, so spreading, JSON and deep equality see
 * them.
 */
function outputFrame(event) {
  const frame = { type: event.stream, data: "", encoding: "utf-8", offset: event.end, stream: event.stream, start: event.start, end: event.end, bytes: event.data };
  let form = null;
  const field = (name) => ({
    // The core's rule: the text when valid UTF-8, else padded base64.
    get: () => (form ??= wireForm(event.data))[name],
    set: (value) => Object.defineProperty(frame, name, { value, writable: true, enumerable: true, configurable: true }),
    enumerable: true,
    configurable: true,
  });
  return Object.defineProperties(frame, { data: field("data"), encoding: field("encoding") });
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

/** How a read that is done ended, as the core's End. */
export function endOf(done) {
  if (done.exited) return { type: "exited", exitCode: done.exitCode, timedOut: done.timedOut };
  return { type: "disconnected", cursor: { ...done.cursor }, reason: "end_of_body" };
}
