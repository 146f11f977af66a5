// The IO loops: every read of output, a core Follower driven over the
// network (`drive`), and the one-call reads into a transcript
// (`readToEnd`); and `computer.run`'s, the core's Run driven over the
// network (`converse`).

import { Transcript } from "dory-wire";
import { ABORTED, sleep, STALLED, WaitClock } from "./clock.js";
import { closedError, describeTransportError, fromRecord, withCause } from "./errors.js";

/**
 * Drives `follower` to its end, over the network: one IO loop for every
 * read. Sends `follower.request()`, feeds the answer back, runs the
 * follower's clock, and does what it decides: `done` ends the read,
 * `reconnect` calls `onReconnect` with the core's record and sleeps its
 * `delayMs` (or, with `reconnect: false`, a one-response iterator, throws
 * the StreamDisconnected of that record), `continue` sends the next
 * request. With a `transcript`, output goes into it (`feedInto`) and
 * nothing is yielded; else it yields the events of each piece of a body
 * (non-empty arrays). Returns the `done` decision, or null when `link` was
 * closed by its owner. The core's errors are thrown as they are, after the
 * events decoded before them; an AbortError once the client is closed.
 */
export async function* drive(client, follower, link, { transcript, reconnect, onReconnect }) {
  const stopped = () => {
    if (link.closed) return true;
    if (client.closed) throw closedError();
    return false;
  };
  /** Whether a wait ended because the read was closed (then quietly) or the client (then it throws). */
  const abandoned = (error) => {
    if (error === ABORTED || link.closed || client.closed) {
      if (stopped()) return true;
      throw closedError();
    }
    return false;
  };
  for (;;) {
    if (stopped()) return null;
    let release;
    try {
      release = await client.permits.acquire(link);
    } catch (error) {
      if (abandoned(error)) return null;
      throw error;
    }
    let decision;
    let cause;
    let body = null;
    let bodyDone = false;
    const { controller, done } = link.request();
    try {
      const request = follower.request();
      const url = client.url(request);
      let response;
      try {
        // Headers that came are taken, however long they took.
        const got = await WaitClock.within(client.send(request, url, controller.signal), follower, link);
        if (got === STALLED) {
          controller.abort(); // no headers in time
        } else {
          response = got.value;
        }
      } catch (error) {
        if (abandoned(error)) return null;
        cause = error;
      }
      if (response === undefined) {
        decision = follower.noResponse(cause === undefined ? "" : describeTransportError(cause, request.method, url), Math.random());
      } else {
        const h = (name) => response.headers.get(name);
        body = response.body === null || response.body === undefined ? null : response.body;
        // A browser hides a redirect it did not follow (status 0): it is one.
        const status = response.type === "opaqueredirect" ? 302 : response.status;
        follower.open(status, h("content-type"), h("ce-process-id"), h("retry-after"));
        const chunks = body === null ? null : body.getReader();
        body = chunks;
        bodyDone = chunks === null;
        let broken;
        let stalled = false;
        while (!bodyDone && !stalled) {
          let got;
          try {
            got = await WaitClock.within(chunks.read(), follower, link);
          } catch (error) {
            if (abandoned(error)) return null;
            broken = error;
            bodyDone = true;
            break;
          }
          if (got === STALLED) {
            stalled = true;
            break;
          }
          const step = got.value;
          if (step.done) {
            bodyDone = true;
            break;
          }
          if (got.over) {
            // A trickle ran the clock out: this piece is read again from the
            // cursor by the next request, if the follower sends one.
            stalled = true;
            break;
          }
          const events = transcript === undefined ? follower.feed(step.value) : follower.feedInto(step.value, transcript);
          if (events.length > 0 && transcript === undefined) yield events;
          if (stopped()) return null;
        }
        cause = broken;
        let events;
        try {
          [events, decision] = follower.finish(broken === undefined ? undefined : describeTransportError(broken), Math.random());
        } catch (error) {
          if (Array.isArray(error.events) && error.events.length > 0) yield* deliver(error.events, transcript);
          throw error;
        }
        yield* deliver(events, transcript);
      }
    } catch (error) {
      throw withCause(error, cause);
    } finally {
      if (!bodyDone && body !== null) body.cancel().catch(() => {});
      controller.abort();
      done();
      release();
    }
    if (decision.type === "done") {
      if (decision.exited && transcript !== undefined) transcript.finish();
      return decision;
    }
    if (decision.type === "reconnect") {
      if (!reconnect) throw fromRecord(decision, cause);
      if (onReconnect !== undefined) onReconnect(decision);
      try {
        await sleep(decision.delayMs, link);
      } catch (error) {
        if (abandoned(error)) return null;
        throw error;
      }
    }
    // "continue": the next request now.
  }
}

/** Events decoded at the end of a body: into the transcript, or yielded. */
function* deliver(events, transcript) {
  if (events.length === 0) return;
  if (transcript === undefined) {
    yield events;
  } else {
    for (const event of events) transcript.push(event);
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
 * cancelled: sends `run.request()`, feeds the answer back, runs its wait
 * clock, gives the actions of each call to `act` (awaited, in order), calls
 * `onReconnect` with the record of a `wait` step that has one and sleeps
 * its `delayMs`. Every decision — what is sent, what an answer means, what
 * is sent again and when — is the run's. Returns the last step (`done` or
 * `cancelled`), or null when `link` was closed by its owner; the run's
 * errors are thrown as they are (after the actions given before them), an
 * AbortError once the client is closed.
 */
export async function converse(client, run, link, { act, onReconnect }) {
  const clock = { waitLimitMs: () => run.waitLimitMs(), waitedMs: (ms) => run.waited(ms) };
  const stopped = () => {
    if (link.closed) return true;
    if (client.closed) throw closedError();
    return false;
  };
  const abandoned = (error) => {
    if (error === ABORTED || link.closed || client.closed) {
      if (stopped()) return true;
      throw closedError();
    }
    return false;
  };
  for (;;) {
    if (stopped()) return null;
    let release;
    try {
      release = await client.permits.acquire(link);
    } catch (error) {
      if (abandoned(error)) return null;
      throw error;
    }
    let step;
    let cause;
    let body = null;
    let bodyDone = false;
    const { controller, done } = link.request();
    try {
      const request = run.request();
      const url = client.url(request);
      let response;
      try {
        // Headers that came are taken, however long they took.
        const got = await WaitClock.within(client.send(request, url, controller.signal), clock, link);
        if (got === STALLED) {
          controller.abort(); // no headers in time
        } else {
          response = got.value;
        }
      } catch (error) {
        if (abandoned(error)) return null;
        cause = error;
      }
      if (response === undefined) {
        step = run.noResponse(cause === undefined ? "" : describeTransportError(cause, request.method, url), Math.random());
      } else {
        const h = (name) => response.headers.get(name);
        // A browser hides a redirect it did not follow (status 0): it is one.
        const status = response.type === "opaqueredirect" ? 302 : response.status;
        run.open(status, h("content-type"), h("ce-process-id"), h("retry-after"));
        const chunks = response.body === null || response.body === undefined ? null : response.body.getReader();
        body = chunks;
        bodyDone = chunks === null;
        let broken;
        while (!bodyDone) {
          let got;
          try {
            got = await WaitClock.within(chunks.read(), clock, link);
          } catch (error) {
            if (abandoned(error)) return null;
            broken = error;
            bodyDone = true;
            break;
          }
          // A stall, or a trickle that ran the clock out: the run reads the
          // rest again from its cursor, if it sends another request.
          if (got === STALLED || got.over) break;
          if (got.value.done) {
            bodyDone = true;
            break;
          }
          await act(run.feed(got.value.value));
          if (stopped()) return null;
        }
        cause = broken;
        let ended;
        try {
          ended = run.finish(broken === undefined ? undefined : describeTransportError(broken), Math.random());
        } catch (error) {
          if (Array.isArray(error.actions) && error.actions.length > 0) await act(error.actions);
          throw error;
        }
        await act(ended.actions);
        step = ended.step;
      }
    } catch (error) {
      throw withCause(error, cause);
    } finally {
      if (!bodyDone && body !== null) body.cancel().catch(() => {});
      controller.abort();
      done();
      release();
    }
    if (step.type === "done" || step.type === "cancelled") return step;
    if (step.type === "wait") {
      if (step.reconnect !== null && onReconnect !== undefined) onReconnect(step.reconnect);
      try {
        await sleep(step.delayMs, link);
      } catch (error) {
        if (abandoned(error)) return null;
        throw error;
      }
    }
    // "send": the next request now.
  }
}
