// The frames of a read, iterated once (`OutputStream`).

import { cursorAfter } from "dory-wire";
import { drive } from "./drive.js";
import { endOf, toFrame } from "./frames.js";
import { whenLoaded } from "./options.js";

/**
 * The frames of a read, with the consumed offsets after each frame.
 * Iterate it once; `close()` ends it (the process keeps running). A
 * process-output or setup-log stream reads one response; an exec stream
 * follows its process to the exit as the core decides.
 */
export class OutputStream {
  #client;
  #make;
  #follower;
  #reconnect;
  #onReconnect;
  #cursor;
  #procId;
  #end = null;
  #link = null;
  #iterator = null;
  #closed = false;

  /** @internal */
  constructor(client, make, cursor, procId, { reconnect = false, onReconnect } = {}) {
    this.#client = client;
    this.#make = make;
    this.#follower = whenLoaded(make); // argument errors now, where the core is loaded
    this.#cursor = { stdout: Number(cursor.stdout ?? 0), stderr: Number(cursor.stderr ?? 0) };
    this.#procId = procId;
    this.#reconnect = reconnect;
    this.#onReconnect = onReconnect;
  }

  /** Bytes of stdout consumed: through the last frame delivered. */
  get stdoutOffset() {
    return this.#cursor.stdout;
  }

  /** Bytes of stderr consumed: through the last frame delivered. */
  get stderrOffset() {
    return this.#cursor.stderr;
  }

  /** The process id, once known (an exec stream learns it from `started` or its header). */
  get procId() {
    return this.#procId;
  }

  /** `stdoutOffset` under the wire's name (a documented alias). */
  get stdout_offset() {
    return this.#cursor.stdout;
  }

  /** `stderrOffset` under the wire's name (a documented alias). */
  get stderr_offset() {
    return this.#cursor.stderr;
  }

  /** The consumed offsets as a core Cursor. */
  get cursor() {
    return { stdout: this.#cursor.stdout, stderr: this.#cursor.stderr };
  }

  /** `procId` under the wire's name (a documented alias). */
  get proc_id() {
    return this.#procId;
  }

  /** How the read ended (the core's End), once it did without throwing; null before. */
  get end() {
    return this.#end;
  }

  [Symbol.asyncIterator]() {
    if (this.#iterator !== null) {
      throw new TypeError("an output stream is read once: open another one from its offsets");
    }
    this.#iterator = this.#frames();
    return this.#iterator;
  }

  /** Ends the stream and releases its connection. Never kills the process. */
  async close() {
    this.#closed = true;
    if (this.#link !== null) {
      this.#link.closed = true;
      this.#link.abort();
    }
    if (this.#iterator !== null) await this.#iterator.return(undefined);
    this.#release();
  }

  #release() {
    if (this.#follower !== undefined && this.#follower !== null) {
      this.#follower.free();
      this.#follower = null;
    }
  }

  #learn(follower) {
    this.#procId = follower.procId ?? this.#procId;
  }

  async *#frames() {
    const client = this.#client;
    await client.ready();
    if (this.#closed) return;
    if (this.#follower === undefined) this.#follower = this.#make();
    const follower = this.#follower;
    const link = client.link();
    this.#link = link;
    const run = drive(client, follower, link, { transcript: undefined, reconnect: this.#reconnect, onReconnect: this.#onReconnect });
    try {
      for (;;) {
        let step;
        try {
          step = await run.next();
        } finally {
          if (this.#follower === follower) this.#learn(follower);
        }
        if (step.done) {
          if (step.value !== null) this.#end = endOf(step.value);
          return;
        }
        for (const event of step.value) {
          this.#cursor = cursorAfter(this.#cursor, event);
          if (event.type === "started" || event.type === "identity") this.#procId = event.procId;
          const frame = toFrame(event);
          if (frame !== null) yield frame;
        }
      }
    } finally {
      // Left early (a break, close()): the response is cancelled, its connection given back.
      await run.return(null);
      client.unlink(link);
      this.#link = null;
      this.#release();
    }
  }
}
if (typeof Symbol.asyncDispose === "symbol") {
  OutputStream.prototype[Symbol.asyncDispose] = OutputStream.prototype.close;
}
