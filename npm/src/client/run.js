// `computer.run(command, options)` (docs/run.md): checks everything before
// any request, a keyed background start, then the process's output followed
// by the one read loop (`drive`, the core's Follower) into the core's
// RunBounder, each view's spill and `onOutput`; the three previews are the
// core's renderings. Every decision — what each view shows, the loss line,
// the spill error texts, when to reconnect — is the core's.

import { DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES, Follower, InvalidState, Request, RunBounder, runSpillId, Utf8Decoder } from "dory-wire";
import { describe } from "../args.js";
import { drive } from "./drive.js";
import { built, FOLLOW_OPTIONS, followArgs, given, hookArg, numberArg, options, stringArg } from "./options.js";
import { randomBytes } from "./random.js";

const VIEWS = ["stdout", "stderr", "combined"];

/** The read options of a run: those of every read but `follow` (a run follows to the exit). */
const RUN_FOLLOW_OPTIONS = FOLLOW_OPTIONS.filter((name) => name !== "follow");

/** The options `run` takes (tests/api/surface.json, "run_options"), then `signal` and the read options. */
export const RUN_OPTIONS = [
  "maxLines",
  "maxBytes",
  "spill",
  "idempotencyKey",
  "timeoutSeconds",
  "hint",
  "onOutput",
  "killOnCancel",
  "signal",
  ...RUN_FOLLOW_OPTIONS,
  "onReconnect",
];

/** The core's names of the start's arguments, as the caller wrote them. */
const START_NAMES = { idempotency_key: "idempotencyKey", timeout_seconds: "timeoutSeconds", command: "command" };

function functionArg(value, what) {
  if (given(value) && typeof value !== "function") throw new TypeError(`${what} must be a function, got ${describe(value)}`);
  return given(value) ? value : undefined;
}

function spillArg(spill) {
  if (!given(spill)) return undefined;
  if ((typeof spill !== "object" && typeof spill !== "function") || typeof spill.open !== "function") {
    throw new TypeError(`spill must have an open(spillId) method giving a file with write, commit and discard (e.g. SpillDirectory), got ${describe(spill)}`);
  }
  return spill;
}

function signalArg(signal) {
  if (!given(signal)) return undefined;
  if (typeof signal !== "object" || typeof signal.aborted !== "boolean" || typeof signal.addEventListener !== "function") {
    throw new TypeError(`signal must be an AbortSignal, got ${describe(signal)}`);
  }
  return signal;
}

/** A fresh idempotency key: `run-` and 32 random hex digits. */
function freshKey() {
  const bytes = randomBytes(16);
  return `run-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Awaits what a hook or a spill file's method returned, when it is a promise. */
async function settled(value) {
  if (value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function") await value;
}

/** One view's spill: opened on the view's first byte; after a failure, written no more and remembered for the preview. */
class ViewSpill {
  file = null;
  failed = false;
  error = undefined;

  async write(spill, spillId, data) {
    if (this.failed) return;
    try {
      if (this.file === null) this.file = await spill.open(spillId);
      await settled(this.file.write(data));
    } catch (error) {
      this.failed = true;
      this.error = error;
      await this.discard();
    }
  }

  /** Drops the file, if one is open (given up either way: its errors are not the run's). */
  async discard() {
    const file = this.file;
    this.file = null;
    if (file === null || file === undefined) return;
    try {
      await settled(file.discard());
    } catch {
      // nothing was saved either way
    }
  }
}

/** Where a run's events go: the core's run bounder, each view's spill, and `onOutput`. */
class RunSink {
  #bounder;
  #spill;
  #onOutput;
  #ids;
  #files = { stdout: new ViewSpill(), stderr: new ViewSpill(), combined: new ViewSpill() };
  #decoders = null;

  constructor(bounder, spill, onOutput) {
    this.#bounder = bounder;
    this.#spill = spill;
    this.#onOutput = onOutput;
    this.#ids = Object.fromEntries(VIEWS.map((view) => [view, bounder.spillId(view)]));
    if (onOutput !== undefined) this.#decoders = { stdout: new Utf8Decoder(), stderr: new Utf8Decoder() };
  }

  /** One event of the follower, in order. */
  async feed(event) {
    if (event.type === "output") {
      const { stream, data } = event;
      this.#bounder.push(stream, data);
      if (this.#spill !== undefined) {
        await this.#files[stream].write(this.#spill, this.#ids[stream], data);
        await this.#files.combined.write(this.#spill, this.#ids.combined, data);
      }
      if (this.#onOutput !== undefined) await settled(this.#onOutput({ stream, data, text: this.#decoders[stream].push(data) }));
    } else if (event.type === "skipped") {
      // Bytes after a gap do not complete a character before it.
      await this.#flush(event.stream);
      this.#bounder.lose(event.stream, event.start, event.end);
    }
  }

  /** Ends a stream's text: an incomplete character becomes U+FFFD, given to the hook with empty bytes. */
  async #flush(stream) {
    if (this.#onOutput === undefined) return;
    const rest = this.#decoders[stream].finish();
    if (rest !== "") await settled(this.#onOutput({ stream, data: new Uint8Array(0), text: rest }));
  }

  /** Each view's preview and lost bytes: the last text of each stream to `onOutput`, each view committed (cut) or discarded (fits). */
  async finish(hint) {
    await this.#flush("stdout");
    await this.#flush("stderr");
    const pending = this.#bounder.finish();
    try {
      const previews = {};
      for (const view of VIEWS) previews[view] = await this.#render(pending, view, hint);
      return { previews, stdoutLostBytes: pending.lost("stdout").bytes, stderrLostBytes: pending.lost("stderr").bytes };
    } finally {
      pending.free();
    }
  }

  async #render(pending, view, hint) {
    const spill = this.#files[view];
    if (spill.failed) return pending.renderWriter(view, { threw: spill.error, hint });
    if (spill.file === null || !pending.needsSpill(view)) {
      await spill.discard();
      return pending.render(view, { hint });
    }
    const file = spill.file;
    spill.file = null;
    let returned;
    try {
      returned = await file.commit();
    } catch (error) {
      return pending.renderWriter(view, { threw: error, hint });
    }
    return pending.renderWriter(view, { returned, hint });
  }

  /** Drops every spill file (the call failed or was cancelled) and the decoders. */
  async discard() {
    for (const view of VIEWS) await this.#files[view].discard();
  }

  free() {
    this.#bounder.free();
    if (this.#decoders !== null) {
      this.#decoders.stdout.free();
      this.#decoders.stderr.free();
      this.#decoders = null;
    }
  }
}

/** Kills the process of a cancelled run (`procId` null: cancelled while starting, so the keyed start is sent again to learn it); a failure to kill is not the call's error. */
async function killCancelled(client, computer, start, procId) {
  try {
    const id = procId ?? (await client.identity(() => start)).procId;
    await computer.processes.kill(id);
  } catch {
    // the cancellation is what the caller gets
  }
}

/**
 * Runs `command` on `computer` and returns its RunResult (docs/run.md).
 * `client` is the computer's transport.
 */
export async function run(client, computer, command, runOptions) {
  const o = options(runOptions, RUN_OPTIONS, "run option");
  await client.ready();
  // 1. Everything that can be checked, before any request.
  const signal = signalArg(o.signal);
  const maxLines = given(o.maxLines) ? o.maxLines : DEFAULT_RUN_MAX_LINES;
  const maxBytes = given(o.maxBytes) ? o.maxBytes : DEFAULT_RUN_MAX_BYTES;
  RunBounder.checkLimits(maxLines, maxBytes);
  const spill = spillArg(o.spill);
  const hint = stringArg(o.hint, "hint");
  const onOutput = functionArg(o.onOutput, "onOutput");
  const onReconnect = hookArg(o.onReconnect);
  const killOnCancel = given(o.killOnCancel) ? o.killOnCancel : false;
  if (typeof killOnCancel !== "boolean") throw new TypeError(`killOnCancel must be a boolean, got ${describe(killOnCancel)}`);
  const timeoutSeconds = numberArg(o.timeoutSeconds, "timeoutSeconds");
  const idempotencyKey = stringArg(o.idempotencyKey, "idempotencyKey");
  const key = idempotencyKey ?? freshKey();
  const start = built(() => Request.start(computer.id, command, { timeoutSeconds, idempotencyKey: key }), START_NAMES);
  const args = followArgs(client, o, RUN_FOLLOW_OPTIONS);
  // The core checks the follow options when it builds a follower: one now
  // (for no process yet), so a bad option starts nothing.
  built(() => Follower.processOutput(computer.id, key, args)).free();
  if (signal?.aborted) throw signal.reason;

  // 2. The keyed start (a repeated key answers the same process, started once).
  let identity;
  try {
    identity = await client.identity(() => start, signal);
  } catch (error) {
    if (!signal?.aborted) throw error;
    if (killOnCancel) await killCancelled(client, computer, start, null);
    throw signal.reason;
  }
  const procId = identity.procId;

  // 3. Its output from offset 0, followed to the exit through reconnects.
  const sink = new RunSink(new RunBounder({ maxLines, maxBytes, spillId: runSpillId(key) }), spill, onOutput);
  try {
    const follower = built(() => Follower.processOutput(computer.id, procId, args));
    const link = client.link();
    const abort = () => {
      link.closed = true;
      link.abort();
    };
    signal?.addEventListener("abort", abort, { once: true });
    let done = null;
    try {
      const steps = drive(client, follower, link, { transcript: undefined, reconnect: true, onReconnect });
      try {
        for (;;) {
          const step = await steps.next();
          if (step.done) {
            done = step.value;
            break;
          }
          for (const event of step.value) await sink.feed(event);
          if (signal?.aborted) break;
        }
      } finally {
        // Left early (aborted, an error): the response is cancelled, its connection given back.
        await steps.return(null);
      }
    } finally {
      signal?.removeEventListener("abort", abort);
      client.unlink(link);
      follower.free();
    }
    if (signal?.aborted) {
      await sink.discard();
      if (killOnCancel) await killCancelled(client, computer, start, procId);
      throw signal.reason;
    }
    if (done === null || !done.exited) throw new InvalidState(`invalid_state: the output of ${procId} ended without its exit`, { reason: `the output of ${procId} ended without its exit` });

    // 4. Each view bounded; a cut one names its committed spill.
    const { previews, stdoutLostBytes, stderrLostBytes } = await sink.finish(hint);
    return {
      procId,
      idempotencyKey: key,
      exitCode: done.exitCode,
      timedOut: done.timedOut,
      stdout: previews.stdout,
      stderr: previews.stderr,
      combined: previews.combined,
      stdoutLostBytes,
      stderrLostBytes,
    };
  } catch (error) {
    await sink.discard();
    throw error;
  } finally {
    sink.free();
  }
}
