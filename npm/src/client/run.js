// `computer.run(command, options)` (docs/run.md): the IO of the core's run
// machine (`Run`; docs/run.md, "The conversation"). The machine checks
// everything before any request, decides every request (the keyed start,
// the output read from offset 0 and its reconnects, a cancel's keyed start
// again and kill), every wait and what each answer means, and gives the
// actions — bytes for a view's spill, text for `onOutput`, the commits and
// discards — and the result. This module does the IO: fetch (`converse`),
// sleeping, the spill files, the caller's hooks, and the abort signal.

import { Run } from "dory-wire";
import { describe } from "../args.js";
import { converse } from "./drive.js";
import { FOLLOW_OPTIONS, followArgs, given, hookArg, numberArg, options } from "./options.js";
import { randomBytes } from "./random.js";

const VIEWS = ["stdout", "stderr", "combined"];

/** The read options of a run: those of every read but `follow` (a run follows to the exit). */
const RUN_FOLLOW_OPTIONS = FOLLOW_OPTIONS.filter((name) => name !== "follow");

/** The options `run` takes (tests/api/surface.json, "run_options"), then `signal` and the read options. */
export const RUN_OPTIONS = [
  "maxLines",
  "maxBytes",
  "maxTokens",
  "tokenizer",
  "spill",
  "idempotencyKey",
  "timeoutMs",
  "hint",
  "onOutput",
  "killOnCancel",
  "keep",
  "terminal",
  "signal",
  ...RUN_FOLLOW_OPTIONS,
  "onReconnect",
];

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

/** Awaits what a hook or a spill file's method returned, when it is a promise. */
async function settled(value) {
  if (value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function") await value;
}

/** Drops a spill file (given up either way: its errors are not the run's). */
async function discardFile(file) {
  if (file === null || file === undefined) return;
  try {
    await settled(file.discard());
  } catch {
    // nothing was saved either way
  }
}

/**
 * The IO of a run's actions: each view's spill file (opened, written,
 * committed or discarded as the run says) and the live output hook. A
 * writer that fails is written no more, and reported to the run once the
 * call that gave the action returned.
 */
class RunIo {
  #spill;
  #onOutput;
  #files = { stdout: null, stderr: null, combined: null };
  #failed = [];
  #commits = [];

  constructor(spill, onOutput) {
    this.#spill = spill;
    this.#onOutput = onOutput;
  }

  /** Does `actions` in order (until `stop()` says the call was cancelled), then reports the writers that failed. */
  async act(run, actions, stop) {
    try {
      for (const action of actions) {
        if (stop !== undefined && stop()) break;
        await this.#do(action);
      }
    } finally {
      for (const [view, error] of this.#failed.splice(0)) run.spillFailed(view, error);
    }
  }

  async #do(action) {
    const view = action.view;
    switch (action.type) {
      case "openSpill":
        if (this.#spill === undefined) return;
        try {
          this.#files[view] = await this.#spill.open(action.spillId);
        } catch (error) {
          this.#files[view] = null;
          this.#failed.push([view, error]);
        }
        return;
      case "writeSpill": {
        const file = this.#files[view];
        if (file === null || file === undefined) return;
        try {
          await settled(file.write(action.data));
        } catch (error) {
          this.#files[view] = null;
          this.#failed.push([view, error]);
          await discardFile(file);
        }
        return;
      }
      case "output":
        if (this.#onOutput !== undefined) await settled(this.#onOutput({ stream: action.stream, data: action.data, text: action.text }));
        return;
      case "commitSpill":
        this.#commits.push(view);
        return;
      case "discardSpill": {
        const file = this.#files[view];
        this.#files[view] = null;
        await discardFile(file);
        return;
      }
      default:
        throw new Error(`dory-wire/client: unknown run action ${action.type}`);
    }
  }

  /** Commits each view the run asked to, and reports what saving gave. */
  async commit(run) {
    for (const view of this.#commits.splice(0)) {
      const file = this.#files[view];
      this.#files[view] = null;
      if (file === null || file === undefined) {
        run.spillCommitted(view, { returned: null });
        continue;
      }
      let returned;
      try {
        returned = await file.commit();
      } catch (error) {
        run.spillCommitted(view, { threw: error });
        continue;
      }
      run.spillCommitted(view, { returned });
    }
  }

  /** Drops every file still open (the call failed). */
  async discard() {
    for (const view of VIEWS) {
      const file = this.#files[view];
      this.#files[view] = null;
      await discardFile(file);
    }
  }
}

/** Drives the kill a cancelled run asks for (`step` is `send`); a failure to kill is not the call's error. */
async function killCancelled(client, machine) {
  let link;
  try {
    link = client.link();
    await converse(client, machine, link, { act: async () => {}, onReconnect: undefined });
  } catch {
    // the cancellation is what the caller gets
  } finally {
    if (link !== undefined) client.unlink(link);
  }
}

/**
 * Runs `command` on `computer` and returns its RunResult (docs/run.md).
 * `client` is the computer's transport.
 */
export async function run(client, computer, command, runOptions) {
  const o = options(runOptions, RUN_OPTIONS, "run option");
  await client.ready();
  // 1. Everything that can be checked, before any request: the client's
  //    arguments here, the rest by the run machine.
  const signal = signalArg(o.signal);
  const spill = spillArg(o.spill);
  const onOutput = functionArg(o.onOutput, "onOutput");
  const onReconnect = hookArg(o.onReconnect);
  // The process's deadline: whole seconds on the wire, rounded up.
  const timeoutMs = numberArg(o.timeoutMs, "timeoutMs");
  const machine = new Run(computer.id, command, {
    ...followArgs(client, o, RUN_FOLLOW_OPTIONS),
    random: randomBytes(16),
    maxLines: o.maxLines,
    maxBytes: o.maxBytes,
    // The previews' token limit, read by the core (token_limit): none by default.
    maxTokens: o.maxTokens,
    tokenizer: o.tokenizer,
    idempotencyKey: o.idempotencyKey,
    timeoutMs,
    hint: o.hint,
    killOnCancel: o.killOnCancel,
    // The previews' options: undefined is the core's default (the default
    // patterns, terminal on); null keep is off.
    keep: o.keep,
    terminal: o.terminal,
    spill: spill !== undefined,
    onOutput: onOutput !== undefined,
    answerTimeoutMs: client.livenessTimeoutMs,
  });
  const io = new RunIo(spill, onOutput);
  try {
    if (signal?.aborted) throw signal.reason;
    // 2. The conversation: the keyed start, then the output to the exit.
    const link = client.link();
    const abort = () => {
      link.closed = true;
      link.abort();
    };
    const aborted = () => signal?.aborted === true;
    signal?.addEventListener("abort", abort, { once: true });
    let step;
    try {
      step = await converse(client, machine, link, { act: (actions) => io.act(machine, actions, aborted), onReconnect });
    } catch (error) {
      if (!aborted()) throw error;
    } finally {
      signal?.removeEventListener("abort", abort);
      client.unlink(link);
    }
    // 3. Cancelled: the open spills discarded, then the kill the run asks for.
    if (aborted() || step === null || step === undefined) {
      const cancelled = machine.cancel();
      await io.act(machine, cancelled.actions);
      if (cancelled.step.type === "send") await killCancelled(client, machine);
      if (signal?.aborted) throw signal.reason;
    }
    if (step?.type !== "done") throw new Error("dory-wire/client: the run ended without its result");
    // 4. Each cut view's spill committed, then the core's previews.
    await io.commit(machine);
    return machine.result();
  } catch (error) {
    await io.discard();
    throw error;
  } finally {
    machine.free();
  }
}
