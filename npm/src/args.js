// Argument checks and conversions shared by every module of the package
// (the client's too): what a wrong argument is told (TypeError, RangeError,
// naming the argument and `describe`-ing what it got). Protocol values are
// the core's to check; these only check the JavaScript types.

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const STREAMS = ["stdout", "stderr"];

export function describe(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return v.constructor ? `a ${v.constructor.name}` : "an object";
  return `a ${typeof v}`;
}

export function checkName(value, allowed, what) {
  if (typeof value !== "string") {
    throw new TypeError(`${what} must be a string (one of ${allowed.map((a) => `"${a}"`).join(", ")}), got ${describe(value)}`);
  }
  if (!allowed.includes(value)) {
    throw new RangeError(`unknown ${what} "${value}" (expected one of ${allowed.map((a) => `"${a}"`).join(", ")})`);
  }
  return value;
}

export function checkInteger(value, what, min, max) {
  if (typeof value === "bigint") {
    if (value < BigInt(min) || value > BigInt(max)) {
      throw new RangeError(`${what} must be an integer from ${min} to ${max}, got ${value}`);
    }
    return Number(value);
  }
  if (typeof value !== "number") {
    throw new TypeError(`${what} must be a number, got ${describe(value)}`);
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${what} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

/**
 * Option names that were renamed by the JS naming rule (the SDK's own names
 * are camelCase; every duration is in milliseconds, its name ending `Ms`):
 * the old name is refused with a TypeError naming the new one.
 */
export const RENAMED_OPTIONS = Object.freeze({ timeoutSeconds: "timeoutMs" });

/** The TypeError of a renamed option, naming the one to use. */
export function renamedOption(what, key) {
  return new TypeError(`unknown ${what} "${key}": use ${RENAMED_OPTIONS[key]} (durations are in milliseconds)`);
}

export function checkOptions(options, allowed, what) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`${what} must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (Object.prototype.hasOwnProperty.call(RENAMED_OPTIONS, key) && !allowed.includes(key)) throw renamedOption(what, key);
    if (!allowed.includes(key)) {
      throw new TypeError(`unknown ${what} "${key}" (expected ${allowed.join(", ")})`);
    }
  }
  return options;
}

/**
 * The `timeoutMs` option of a start, an exec or an exec stream, as the
 * seconds the core sends: exactly `timeoutMs / 1000` (a whole number of
 * seconds is sent as an integer, others as a decimal). Undefined when
 * absent; a wrong type is a TypeError; a value that is not a positive
 * finite number is the core's InvalidArgument, naming `timeoutMs`.
 */
export function timeoutMsArg(value, InvalidArgument) {
  const ms = optionalNumber(value, "timeoutMs");
  if (ms === undefined) return undefined;
  if (!(Number.isFinite(ms) && ms > 0)) {
    const reason = `must be a positive number of milliseconds, not ${ms}`;
    throw new InvalidArgument(`invalid_argument: timeoutMs: ${reason}`, { argument: "timeoutMs", reason });
  }
  return ms / 1000;
}

/** Views bytes as a Uint8Array without copying; anything else is a TypeError. */
export function toBytes(value, what) {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof value === "string") {
    throw new TypeError(`${what} takes bytes (a Uint8Array), not a string: encode text with new TextEncoder().encode(text)`);
  }
  throw new TypeError(`${what} takes bytes (a Uint8Array), got ${describe(value)}`);
}

/** The record tag of a stream name (0 stdout, 1 stderr); the default is stdout. */
export function streamTag(stream, what) {
  if (stream === undefined) return 0;
  return checkName(stream, STREAMS, what) === "stdout" ? 0 : 1;
}

/** The keys of the JS resume state and of its language-neutral JSON form. */
const RESUME_KEYS = [
  ["version", "version"],
  ["procId", "proc_id"],
  ["cursor", "cursor"],
  ["exitSeen", "exit_seen"],
  ["exitCode", "exit_code"],
  ["timedOut", "timed_out"],
];

/** The neutral JSON of a resume state given as `resumeState()`'s object or as JSON text. */
export function resumeJson(state) {
  if (typeof state === "string") return state;
  if (state === null || typeof state !== "object" || Array.isArray(state)) {
    throw new TypeError(`resume state must be the object of resumeState() or the string of resumeStateJson(), got ${describe(state)}`);
  }
  const known = new Map(RESUME_KEYS);
  const neutral = {};
  for (const key of Object.keys(state)) {
    const to = known.get(key);
    if (to === undefined) {
      throw new TypeError(
        `unknown resume state key "${key}" (expected ${RESUME_KEYS.map(([k]) => k).join(", ")}; the snake_case form is the string of resumeStateJson())`,
      );
    }
    neutral[to] = state[key];
  }
  return JSON.stringify(neutral, (key, value) => {
    if (typeof value === "bigint") return value <= BigInt(MAX_SAFE) ? Number(value) : value.toString();
    if (typeof value === "number" && !Number.isSafeInteger(value)) {
      throw new RangeError(`resume state field "${key}" must be a safe integer, got ${value}`);
    }
    return value;
  });
}

/** A string argument; anything else is a TypeError naming it. */
export function checkString(value, what) {
  if (typeof value !== "string") throw new TypeError(`${what} must be a string, got ${describe(value)}`);
  return value;
}

/** An optional string argument (undefined or null: absent). */
export function optionalString(value, what) {
  if (value === undefined || value === null) return undefined;
  return checkString(value, what);
}

/** A number argument (a bigint is taken as its number); its value is the core's to check. */
export function checkNumber(value, what) {
  if (typeof value === "bigint") return Number(value);
  if (typeof value !== "number") throw new TypeError(`${what} must be a number, got ${describe(value)}`);
  return value;
}

/** An optional number argument (undefined or null: absent). */
export function optionalNumber(value, what) {
  if (value === undefined || value === null) return undefined;
  return checkNumber(value, what);
}

export function checkBoolean(value, what) {
  if (typeof value !== "boolean") throw new TypeError(`${what} must be a boolean, got ${describe(value)}`);
  return value;
}

/** A command: a shell line (a string) or an argv (an array of strings), as JSON for the core. */
export function commandJson(command) {
  const ok = typeof command === "string" || (Array.isArray(command) && command.every((a) => typeof a === "string"));
  if (!ok) {
    throw new TypeError(`command must be a string (a shell line) or an array of strings (an argv), got ${describe(command)}`);
  }
  return JSON.stringify(command);
}

/** `{stdout, stderr}` offsets as two numbers (absent ones are 0); their values are the core's to check. */
export function cursorArgs(cursor, what) {
  if (cursor === undefined || cursor === null) return [0, 0];
  if (typeof cursor !== "object" || Array.isArray(cursor)) {
    throw new TypeError(`${what} must be an object {stdout, stderr}, got ${describe(cursor)}`);
  }
  return [
    cursor.stdout === undefined ? 0 : checkNumber(cursor.stdout, `${what}.stdout`),
    cursor.stderr === undefined ? 0 : checkNumber(cursor.stderr, `${what}.stderr`),
  ];
}

/** What the transport said: a string, or an Error's message; undefined or null: nothing went wrong. */
export function transportDetail(value, what) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (value instanceof Error || (typeof value === "object" && typeof value.message === "string")) {
    return value.message === "" ? String(value.name ?? "Error") : value.message;
  }
  throw new TypeError(`${what} must be a string or an Error, got ${describe(value)}`);
}

/** The caller's random value in [0, 1] for a delay; by default Math.random(). */
export function jitterArg(jitter) {
  if (jitter === undefined || jitter === null) return Math.random();
  return checkNumber(jitter, "jitter");
}

