// The resources of the Dory API: computers, their processes and setup logs.
// Each operation builds its core request or Follower here and hands it to
// the transport (`document`, `identity`), a stream (`OutputStream`) or the
// one-call read (`readToEnd`); a new operation is one more method here.

import { execAnswer, Follower, Request } from "dory-wire";
import { describe } from "../args.js";
import { readToEnd } from "./drive.js";
import { identityOf, resultOf } from "./frames.js";
import {
  built,
  FOLLOW_OPTIONS,
  followArgs,
  hookArg,
  numberArg,
  OFFSETS,
  options,
  READ_OPTIONS,
  START_OPTIONS,
  startArgs,
  startCursor,
  STREAM_OPTIONS,
  transcriptArg,
  whenLoaded,
} from "./options.js";
import { run } from "./run.js";
import { OutputStream } from "./stream.js";

/** One process: read its retained output, kill it. */
class Process {
  #client;
  #computer;

  /** @internal */
  constructor(client, computer, identity) {
    this.#client = client;
    this.#computer = computer;
    /** The process id. */
    this.procId = identity.proc_id;
    /** The process id under the wire's name (a documented alias of `procId`). */
    this.proc_id = identity.proc_id;
    /** Its status when the handle was made. */
    this.status = identity.status;
  }

  #follower(o, allowed) {
    const { cursor, names } = startCursor(o);
    const computerId = this.#computer.id;
    const procId = this.proc_id;
    const args = { cursor, ...followArgs(this.#client, o, allowed) };
    return { cursor, make: () => built(() => Follower.processOutput(computerId, procId, args), names) };
  }

  /**
   * The retained output from per-stream byte offsets (default 0) or a
   * `cursor`, frame by frame: one response, no reconnect.
   */
  iterOutput(outputOptions) {
    const o = options(outputOptions, [...OFFSETS, ...STREAM_OPTIONS], "iterOutput option");
    const { cursor, make } = this.#follower(o, STREAM_OPTIONS);
    return new OutputStream(this.#client, make, cursor, this.proc_id);
  }

  /** The whole output from the offsets, reconnecting as the core decides: a Transcript. */
  async readOutput(readOptions) {
    const o = options(readOptions, [...OFFSETS, ...READ_OPTIONS], "readOutput option");
    const onReconnect = hookArg(o.onReconnect);
    const transcript = transcriptArg(o.transcript);
    const { make } = this.#follower(o, FOLLOW_OPTIONS);
    await this.#client.ready();
    return readToEnd(this.#client, make(), transcript, onReconnect);
  }

  /** Kills the process group (closing a stream never does). */
  kill() {
    return this.#computer.processes.kill(this.proc_id);
  }
}

/** The processes of a computer. */
class Processes {
  #client;
  #computer;

  /** @internal */
  constructor(client, computer) {
    this.#client = client;
    this.#computer = computer;
  }

  /**
   * Starts a background process (`timeoutMs`, sent as `timeoutMs / 1000`
   * seconds; `idempotencyKey`; or their wire spellings `timeout_seconds`,
   * `idempotency_key`). With a key, a repeated start
   * answers the same identity and starts nothing.
   */
  async start(command, startOptions) {
    const o = options(startOptions, START_OPTIONS, "start option");
    const args = startArgs(o);
    return identityOf(await this.#client.identity(() => Request.start(this.#computer.id, command, args)));
  }

  /** A handle on a process (its identity is fetched: an unknown id is an ApiError 404). */
  async get(procId) {
    const identity = await this.#client.identity(() => Request.getProcess(this.#computer.id, procId));
    return new Process(this.#client, this.#computer, identityOf(identity));
  }

  /** Kills a process's group; answers its identity. */
  async kill(procId) {
    return identityOf(await this.#client.identity(() => Request.kill(this.#computer.id, procId)));
  }
}

/** The setup command's logs: one stream (stderr merged into stdout), one offset. */
class Setup {
  #client;
  #computer;

  /** @internal */
  constructor(client, computer) {
    this.#client = client;
    this.#computer = computer;
  }

  #make(o, allowed) {
    const computerId = this.#computer.id;
    const offset = numberArg(o.offset, "offset") ?? 0;
    const args = { offset, ...followArgs(this.#client, o, allowed) };
    return { offset, make: () => built(() => Follower.setupLogs(computerId, args)) };
  }

  /** The setup log from `offset`, frame by frame (one response); resume from the stream's `stdout_offset`. */
  iterLogs(logOptions) {
    const o = options(logOptions, ["offset", ...STREAM_OPTIONS], "iterLogs option");
    const { offset, make } = this.#make(o, STREAM_OPTIONS);
    return new OutputStream(this.#client, make, { stdout: offset, stderr: 0 }, null);
  }

  /** The whole setup log from `offset` (the transcript's stdout), reconnecting like `readOutput`. */
  async readLogs(logOptions) {
    const o = options(logOptions, ["offset", ...READ_OPTIONS], "readLogs option");
    const onReconnect = hookArg(o.onReconnect);
    const transcript = transcriptArg(o.transcript);
    const { make } = this.#make(o, FOLLOW_OPTIONS);
    await this.#client.ready();
    return readToEnd(this.#client, make(), transcript, onReconnect);
  }
}

/** One computer: its processes, its setup logs, exec, run. */
class Computer {
  #client;

  /** @internal */
  constructor(client, id) {
    this.#client = client;
    /** The computer id. */
    this.id = id;
    /** Start, get and kill processes. */
    this.processes = new Processes(client, this);
    /** The setup command's logs. */
    this.setup = new Setup(client, this);
  }

  /**
   * Synchronous exec: waits for the exit and answers the result (each
   * stream cut at the server's limit, flagged `*_truncated`). A keyed
   * replay answers the first run's identity instead.
   */
  async exec(command, execOptions) {
    const o = options(execOptions, START_OPTIONS, "exec option");
    const args = startArgs(o);
    // What the answer means is the core's: a result, or a keyed replay's identity.
    const event = execAnswer(await this.#client.document(() => Request.exec(this.id, command, args)));
    return event.type === "identity" ? identityOf(event) : resultOf(event);
  }

  /**
   * Streaming exec: `started`, the output frames and `exit`, followed to
   * the exit as the core decides: after a cut, from the process's retained
   * output (never by sending the exec again, unless its idempotency key
   * makes that safe). A keyed replay (a JSON identity) yields one
   * `identity` frame, then the first run's output.
   */
  execStream(command, execOptions) {
    const o = options(execOptions, [...START_OPTIONS, ...FOLLOW_OPTIONS.filter((n) => n !== "follow"), "onReconnect"], "execStream option");
    const onReconnect = hookArg(o.onReconnect);
    const { timeoutMs, idempotencyKey } = startArgs(o);
    const args = { timeoutMs, idempotencyKey, ...followArgs(this.#client, o, FOLLOW_OPTIONS) };
    const make = () => built(() => Follower.execStream(this.id, command, args));
    return new OutputStream(this.#client, make, { stdout: 0, stderr: 0 }, null, { reconnect: true, onReconnect });
  }

  /**
   * Runs `command` and returns what an agent's model should see
   * (docs/run.md): bounded previews of stdout, of stderr and of both
   * combined in arrival order, each view saved as it streams by `spill`.
   * Checks everything before any request; starts the command as a keyed
   * background process (the same key re-attaches, never starts twice);
   * follows its output through reconnects; `signal` cancels (the process is
   * killed only with `killOnCancel`; the promise rejects with the signal's
   * reason, never a partial result).
   */
  run(command, runOptions) {
    return run(this.#client, this, command, runOptions);
  }
}

/** The computers of the service. */
export class Computers {
  #client;

  /** @internal */
  constructor(client) {
    this.#client = client;
  }

  /**
   * A computer by id, at once: sends no request (errors come with the
   * first call), so `await` on it is optional. An id the core refuses
   * throws here (`TypeError`, or the core's `InvalidArgument`).
   */
  get(id) {
    whenLoaded(() => Request.setupLogs(id)); // the core's check of a computer id
    if (typeof id !== "string") throw new TypeError(`computerId must be a string, got ${describe(id)}`);
    return new Computer(this.#client, id);
  }
}
