// `SpillDirectory`: a run's spill writer for Node, Deno and Bun
// (docs/run.md, "Spilling as it streams"). Each view is written to a
// temporary file in the directory, created with mode 0600, and renamed to
// `<spillId><suffix>` on commit, so no reader ever sees a partial file.
// node:fs/promises and node:path are got when a file is opened (never
// imported: see random.js), so the client module still loads, and bundles,
// for browsers and Workers.

import { describe } from "../args.js";
import { Run } from "dory-wire";
import { builtin, randomBytes } from "./random.js";

/** `spillId` as a file name with `suffix`: the core's rule (`InvalidArgument` otherwise). */
function plainName(spillId, suffix) {
  if (typeof spillId !== "string") throw new TypeError(`spillId must be a string, got ${describe(spillId)}`);
  return Run.spillFileName(spillId, suffix);
}

/** One view's spill file: `write(data)` as the output streams, then `commit()` or `discard()`. */
class SpillFile {
  #fs;
  #handle;
  #tmp;
  #path;
  #done = false;

  /** @internal */
  constructor(fs, handle, tmp, path) {
    this.#fs = fs;
    this.#handle = handle;
    this.#tmp = tmp;
    this.#path = path;
  }

  /** The absolute path it is saved at on commit. */
  get path() {
    return this.#path;
  }

  #live(what) {
    if (this.#done) throw new Error(`${what} after the spill file of ${this.#path} was committed or discarded`);
    return this.#handle;
  }

  /** Appends `data` (the view's next bytes, in order). */
  async write(data) {
    const handle = this.#live("write()");
    let at = 0;
    while (at < data.length) {
      const { bytesWritten } = await handle.write(data, at, data.length - at);
      at += bytesWritten;
    }
  }

  /** Closes the file and renames it to its path (atomically); returns the absolute path. */
  async commit() {
    const handle = this.#live("commit()");
    this.#done = true;
    try {
      await handle.close();
      await this.#fs.rename(this.#tmp, this.#path);
    } catch (error) {
      await this.#fs.unlink(this.#tmp).catch(() => {});
      throw error;
    }
    return this.#path;
  }

  /** Removes the temporary file (nothing is saved). Idempotent. */
  async discard() {
    if (this.#done) return;
    this.#done = true;
    await this.#handle.close().catch(() => {});
    await this.#fs.unlink(this.#tmp).catch(() => {});
  }
}

/**
 * A spill writer for `computer.run` that saves each view as
 * `<directory>/<spillId><suffix>` (Node, Deno, Bun). The directory is
 * created when needed.
 */
export class SpillDirectory {
  /**
   * @param {string} directory where the spills are saved
   * @param {{suffix?: string}} [options] the file name's ending (default ".txt")
   */
  constructor(directory, options) {
    if (typeof directory !== "string" || directory === "") throw new TypeError(`directory must be a non-empty string, got ${describe(directory)}`);
    if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
      throw new TypeError(`SpillDirectory options must be an object, got ${describe(options)}`);
    }
    for (const key of Object.keys(options ?? {})) {
      if (key !== "suffix") throw new TypeError(`unknown SpillDirectory option "${key}" (expected suffix)`);
    }
    const suffix = options?.suffix ?? ".txt";
    if (typeof suffix !== "string") throw new TypeError(`suffix must be a string, got ${describe(suffix)}`);
    // The core's rule for the suffix, checked now rather than at the first open.
    Run.spillFileName("spill", suffix);
    /** The directory. */
    this.directory = directory;
    /** The file name's ending. */
    this.suffix = suffix;
  }

  /**
   * A new spill file for `spillId`: written to a temporary file in the
   * directory (mode 0600), renamed to `<spillId><suffix>` on commit. Throws
   * the core's `InvalidArgument` (argument `spillId`) for an id that is not
   * a plain file name, the platform's error when the file cannot be made.
   */
  async open(spillId) {
    const name = plainName(spillId, this.suffix);
    const fs = builtin("node:fs/promises");
    const path = builtin("node:path");
    const directory = path.resolve(this.directory);
    await fs.mkdir(directory, { recursive: true });
    const random = Array.from(randomBytes(8), (b) => b.toString(16).padStart(2, "0")).join("");
    const tmp = path.join(directory, `.spill-${random}.tmp`);
    const handle = await fs.open(tmp, "wx", 0o600);
    return new SpillFile(fs, handle, tmp, path.join(directory, name));
  }
}
