// The IO loops: one exchange of a core conversation over the network
// (`exchange`), driven for every read of output, a core Follower (`drive`),
// for the one-call reads into a transcript (`readToEnd`), and for
// `computer.run`, the core's Run (`converse`).

import { Transcript } from "dory-wire";
import { ABORTED, sleep, STALLED, WaitClock } from "./clock.js";
import { closedError, describeTransportError, fromRecord, neverConnected, withCause } from "./errors.js";

/** Whether `link` was closed by its owner (quietly); throws once the client is closed. */
function stopped(client, link) {
  if (link.closed) return true;
  if (client.closed) throw closedError();
  return false;
}

/** Whether a wait ended because the link was closed (then quietly) or the client (then it throws). */
function abandoned(client, link, error) {
  if (error === ABORTED || link.closed || client.closed) {
    if (stopped(client, link)) return true;
    throw closedError();
  }
  return false;
}

/**
 * One exchange of a core conversation, over the network: sends
 * `machine.request()`, opens the machine with the answer's status and
 * headers, feeds it the body piece by piece on its wait clock (only the
 * waits for the network count, never the consumer's time), and finishes it.
 * `machine` is a Follower's or a Run's conversation seen alike (`request`,
 * `open`, `feed`, `finish` → `{pieces, outcome}`, `noResponse`, `notConnected`,
 * `errorPieces`, `waitLimitMs`, `waitedMs`). Yields the pieces (events or
 * actions) each call gave, as non-empty arrays; returns `{outcome, cause}`
 * (the machine's decision or step, and the transport's error, if any), or
 * null when `link` was closed by its owner. What the answer means and what
 * comes next are the machine's.
 */
async function* exchange(client, machine, link) {
  let release;
  try {
    release = await client.permits.acquire(link);
  } catch (error) {
    if (abandoned(client, link, error)) return null;
    throw error;
  }
  let cause;
  let body = null;
  let bodyDone = false;
  const { controller, done } = link.request();
  try {
    const request = machine.request();
    const url = client.url(request);
    let response;
    try {
      // Headers that came are taken, however long they took.
      const got = await WaitClock.within(client.send(request, url, controller.signal), machine, link);
      if (got === STALLED) {
        controller.abort(); // no headers in time
      } else {
        response = got.value;
      }
    } catch (error) {
      if (abandoned(client, link, error)) return null;
      cause = error;
    }
    if (response === undefined) {
      const detail = cause === undefined ? "" : describeTransportError(cause, request.method, url);
      // A connection never made: the request never left (the core may send it again).
      const outcome = cause !== undefined && neverConnected(cause) ? machine.notConnected(detail, Math.random()) : machine.noResponse(detail, Math.random());
      return { outcome, cause };
    }
    const h = (name) => response.headers.get(name);
    // A browser hides a redirect it did not follow (status 0): it is one.
    const status = response.type === "opaqueredirect" ? 302 : response.status;
    machine.open(status, h("content-type"), h("ce-process-id"), h("retry-after"));
    body = response.body === null || response.body === undefined ? null : response.body.getReader();
    bodyDone = body === null;
    let broken;
    while (!bodyDone) {
      let got;
      try {
        got = await WaitClock.within(body.read(), machine, link);
      } catch (error) {
        if (abandoned(client, link, error)) return null;
        broken = error;
        bodyDone = true;
        break;
      }
      // A stall, or a trickle that ran the clock out: the machine reads the
      // rest again from its cursor, if it sends another request.
      if (got === STALLED || got.over) break;
      if (got.value.done) {
        bodyDone = true;
        break;
      }
      const pieces = machine.feed(got.value.value);
      if (pieces.length > 0) yield pieces;
      if (stopped(client, link)) return null;
    }
    cause = broken;
    let ended;
    try {
      ended = machine.finish(broken === undefined ? undefined : describeTransportError(broken), Math.random());
    } catch (error) {
      const pieces = machine.errorPieces(error);
      if (pieces.length > 0) yield pieces;
      throw error;
    }
    if (ended.pieces.length > 0) yield ended.pieces;
    return { outcome: ended.outcome, cause };
  } catch (error) {
    throw withCause(error, cause);
  } finally {
    if (!bodyDone && body !== null) body.cancel().catch(() => {});
    controller.abort();
    done();
    release();
  }
}

/** Sleeps the delay a machine decided; false when the link was closed first. */
async function slept(client, link, ms) {
  try {
    await sleep(ms, link);
    return true;
  } catch (error) {
    if (abandoned(client, link, error)) return false;
    throw error;
  }
}

/**
 * Drives `follower` to its end, over the network: one IO loop for every
 * read. Each exchange as `exchange` does it, then what the follower
 * decided: `done` ends the read, `reconnect` calls `onReconnect` with the
 * core's record and sleeps its `delayMs` (or, with `reconnect: false`, a
 * one-response iterator, throws the StreamDisconnected of that record),
 * `continue` sends the next request. With a `transcript`, output goes into
 * it (`feedInto`) and nothing is yielded; else it yields the events of each
 * piece of a body (non-empty arrays). Returns the `done` decision, or null
 * when `link` was closed by its owner. The core's errors are thrown as they
 * are, after the events decoded before them; an AbortError once the client
 * is closed.
 */
export async function* drive(client, follower, link, { transcript, reconnect, onReconnect }) {
  // The events at the end of a body go into the transcript, if there is one
  // (what feedInto was given is in it already).
  const ended = (events) => {
    if (transcript === undefined) return events;
    for (const event of events) transcript.push(event);
    return [];
  };
  const fed =
    transcript === undefined
      ? (chunk) => follower.feed(chunk)
      : (chunk) => {
          follower.feedInto(chunk, transcript);
          return [];
        };
  const machine = {
    request: () => follower.request(),
    open: (status, contentType, procId, retryAfter) => follower.open(status, contentType, procId, retryAfter),
    feed: fed,
    finish: (transportError, jitter) => {
      const [events, decision] = follower.finish(transportError, jitter);
      return { pieces: ended(events), outcome: decision };
    },
    errorPieces: (error) => (Array.isArray(error.events) ? ended(error.events) : []),
    noResponse: (detail, jitter) => follower.noResponse(detail, jitter),
    notConnected: (detail, jitter) => follower.notConnected(detail, jitter),
    waitLimitMs: () => follower.waitLimitMs(),
    waitedMs: (ms) => follower.waitedMs(ms),
  };
  for (;;) {
    if (stopped(client, link)) return null;
    const exchanged = yield* exchange(client, machine, link);
    if (exchanged === null) return null;
    const { outcome: decision, cause } = exchanged;
    if (decision.type === "done") {
      if (decision.exited && transcript !== undefined) transcript.finish();
      return decision;
    }
    if (decision.type === "reconnect") {
      if (!reconnect) throw fromRecord(decision, cause);
      if (onReconnect !== undefined) onReconnect(decision);
      if (!(await slept(client, link, decision.delayMs))) return null;
    }
    // "continue": the next request now.
  }
}

/** Reads `follower` to its end into a transcript (the one-call reads). */
export async function readToEnd(client, follower, transcript, onReconnect) {
  const link = client.link();
  const into = transcript ?? new Transcript();
  try {
    const run = drive(client, follower, link, { transcript: into, reconnect: true, onReconnect });
    for (;;) {
      const step = await run.next();
      if (step.done) break;
    }
    return into;
  } finally {
    client.unlink(link);
    follower.free();
  }
}

/**
 * Drives the core's `run` (a `Run`) over the network until it is done or
 * cancelled: each exchange as `exchange` does it, the actions of each call
 * given to `act` (awaited, in order); a `wait` step calls `onReconnect`
 * with its record when it has one, then sleeps its `delayMs`. Every
 * decision — what is sent, what an answer means, what is sent again and
 * when — is the run's. Returns the last step (`done` or `cancelled`), or
 * null when `link` was closed by its owner; the run's errors are thrown as
 * they are (after the actions given before them), an AbortError once the
 * client is closed.
 */
export async function converse(client, run, link, { act, onReconnect }) {
  const machine = {
    request: () => run.request(),
    open: (status, contentType, procId, retryAfter) => run.open(status, contentType, procId, retryAfter),
    feed: (chunk) => run.feed(chunk),
    finish: (transportError, jitter) => {
      const { actions, step } = run.finish(transportError, jitter);
      return { pieces: actions, outcome: step };
    },
    errorPieces: (error) => (Array.isArray(error.actions) ? error.actions : []),
    noResponse: (detail, jitter) => run.noResponse(detail, jitter),
    notConnected: (detail, jitter) => run.notConnected(detail, jitter),
    waitLimitMs: () => run.waitLimitMs(),
    waitedMs: (ms) => run.waited(ms),
  };
  for (;;) {
    if (stopped(client, link)) return null;
    const exchanged = exchange(client, machine, link);
    let next = await exchanged.next();
    while (!next.done) {
      await act(next.value);
      next = await exchanged.next();
    }
    if (next.value === null) return null;
    const step = next.value.outcome;
    if (step.type === "done" || step.type === "cancelled") return step;
    if (step.type === "wait") {
      if (step.reconnect !== null && onReconnect !== undefined) onReconnect(step.reconnect);
      if (!(await slept(client, link, step.delayMs))) return null;
    }
    // "send": the next request now.
  }
}
