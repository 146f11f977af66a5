// Protocol facts a client shows or checks, decided by the core: the wire's
// form of output bytes (`wireForm`), the offsets after an event
// (`cursorAfter`) and what a document answer means (`identityAnswer`,
// `execAnswer`). Events cross by the core's record table.

import { ready, wasm } from "#platform";
import { cursorArgs, describe, toBytes } from "./args.js";
import { rethrow } from "./errors.js";

function call(f) {
  try {
    return f();
  } catch (e) {
    rethrow(e);
  }
}

function eventsArg(events, what) {
  if (!Array.isArray(events)) throw new TypeError(`${what}() takes an array of events, got ${describe(events)}`);
  return events;
}

/**
 * The wire's form of output bytes (the core's rule): their text with
 * `"utf-8"` when they are valid UTF-8, else their padded standard base64
 * with `"base64"`.
 */
export function wireForm(bytes) {
  ready();
  const [data, encoding] = wasm.wire_form(toBytes(bytes, "wireForm()"));
  return { data, encoding };
}

/**
 * The consumed offsets after `event`, from `cursor` before it (the core's
 * `Cursor::after`): output and a skipped range move their stream to their
 * `end`; other events move nothing. A new cursor; `cursor` is unchanged.
 */
export function cursorAfter(cursor, event) {
  ready();
  const [stdout, stderr] = cursorArgs(cursor, "cursor");
  const after = call(() => wasm.cursor_after(stdout, stderr, event));
  return { stdout: after[0], stderr: after[1] };
}

/**
 * The identity event a start, get or kill was answered by, from the events
 * of its document answer (the core's rule); else the core's
 * `UnexpectedFrame` (`frameType` `"exec_result"`, `"none"`, …).
 */
export function identityAnswer(events) {
  ready();
  const list = eventsArg(events, "identityAnswer");
  return list[call(() => wasm.identity_answer(list))];
}

/**
 * A synchronous exec's answer from the events of its document answer (the
 * core's rule): its `exec_result` event, or a keyed replay's `identity`;
 * else the core's `UnexpectedFrame`.
 */
export function execAnswer(events) {
  ready();
  const list = eventsArg(events, "execAnswer");
  return list[call(() => wasm.exec_answer(list))];
}
