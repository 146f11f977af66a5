// The error classes, built from the core's error table (`core.errorCodes`,
// `core.kinds`: the module's `core_tables_json()`): `DoryWireError`, the
// base class of each kind, and one class per code, each with the brand check
// that makes `instanceof` hold across copies of the package. The client
// raises these very classes (it imports them from the core entry).

import { core, wasm } from "#platform";

/** `server_message` → `serverMessage`: the core's field names in JS case. */
export function camel(name) {
  return name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
}

// A registered symbol brands every error, so `instanceof` also works between
// two copies of the package (two versions installed, or the browser build and
// the Node build in one bundle): each class tests the brand and the code.
export const BRAND = Symbol.for("dory-wire.error");

/** The table row of each error class (`{code, class, kind, fields}`), by class. */
const ROW = new Map();

/** Base class of every error the library raises about the data it decodes or its use. */
export class DoryWireError extends Error {
  /**
   * @param {string} message
   * @param {object} [fields] the fields of the code (camelCase); `code` for a base class
   */
  constructor(message, fields) {
    super(message);
    Object.defineProperty(this, BRAND, { value: true });
    if (fields && fields.cause !== undefined) {
      // As Error's own `cause` option: not enumerable, not one of the code's fields.
      Object.defineProperty(this, "cause", { value: fields.cause, configurable: true, writable: true });
    }
    Object.defineProperty(this, "name", { value: new.target.name, configurable: true, writable: true });
    const row = ROW.get(new.target) ?? BY_CODE.get(fields?.code);
    this.code = row ? row.code : (fields?.code ?? "dory_wire_error");
    this.kind = row ? row.kind : (KIND_OF_BASE.get(new.target) ?? null);
    if (fields) {
      for (const key of Object.keys(fields)) {
        if (key !== "code" && key !== "kind" && key !== "message" && key !== "cause") this[key] = fields[key];
      }
    }
  }
}

/** The base class of each kind (null: the kind's classes derive from DoryWireError). */
const BASES = {};
const KIND_OF_BASE = new Map();
for (const { kind, base } of core.kinds) {
  if (base !== null && BASES[base] === undefined) {
    // `{ [base]: class … }[base]` gives the class its name.
    BASES[base] = { [base]: class extends DoryWireError {} }[base];
    KIND_OF_BASE.set(BASES[base], kind);
  }
}
const BASE_OF_KIND = new Map(core.kinds.map(({ kind, base }) => [kind, base === null ? DoryWireError : BASES[base]]));

/** One class per code: the core's table, then the codes of this binding. */
export const ERROR_CODES = Object.freeze(
  [...core.errorCodes, ...core.bindingErrorCodes].map((r) =>
    Object.freeze({ code: r.code, class: r.class, kind: r.kind, fields: Object.freeze(r.fields.map(camel)) }),
  ),
);
const BY_CODE = new Map(ERROR_CODES.map((row) => [row.code, row]));
const CLASSES = {};
for (const row of ERROR_CODES) {
  const Base = BASE_OF_KIND.get(row.kind) ?? DoryWireError;
  const cls = { [row.class]: class extends Base {} }[row.class];
  ROW.set(cls, row);
  CLASSES[row.class] = cls;
}

// `instanceof`: the prototype chain, or (an error of another copy of the
// package) the brand and a code of the class.
const nativeInstanceOf = Function.prototype[Symbol.hasInstance];
function brandCheck(cls, codes) {
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(x) {
      if (nativeInstanceOf.call(this, x)) return true;
      return x !== null && typeof x === "object" && x[BRAND] === true && (codes === null || codes.has(x.code));
    },
  });
}
brandCheck(DoryWireError, null);
for (const [name, base] of Object.entries(BASES)) {
  const kind = KIND_OF_BASE.get(base);
  brandCheck(base, new Set(ERROR_CODES.filter((r) => r.kind === kind).map((r) => r.code)));
  void name;
}
for (const row of ERROR_CODES) brandCheck(CLASSES[row.class], new Set([row.code]));

// StreamDisconnected (the core's `stream_disconnected`, which the HTTP
// client raises too: one class for both entry points) also answers to the
// wire's names the documented programs read: `stdout_offset` and
// `stderr_offset` (its cursor's), and `proc_id` (its `procId`).
if (CLASSES.StreamDisconnected !== undefined) {
  const Disconnected = CLASSES.StreamDisconnected;
  // The error of a reconnect record, for a caller that does not reconnect
  // (a one-response iterator): the core's message, the record's fields.
  Object.defineProperty(Disconnected, "fromReconnect", {
    value: function fromReconnect(record, cause) {
      const { stdout, stderr } = record.cursor;
      const message = wasm.stream_disconnected_message(record.reason, BigInt(stdout), BigInt(stderr), record.detail ?? "");
      if (message === undefined || message === null) throw new TypeError(`not a disconnect reason: ${String(record.reason)}`);
      const fields = { reason: record.reason, cursor: { stdout, stderr }, procId: record.procId ?? null, detail: record.detail ?? "" };
      if (cause !== undefined) fields.cause = cause;
      return new Disconnected(message, fields);
    },
    configurable: true,
    writable: true,
  });
  Object.defineProperties(Disconnected.prototype, {
    stdout_offset: {
      get() {
        return this.cursor?.stdout;
      },
      configurable: true,
    },
    stderr_offset: {
      get() {
        return this.cursor?.stderr;
      },
      configurable: true,
    },
    proc_id: {
      get() {
        return this.procId ?? null;
      },
      set(value) {
        this.procId = value;
      },
      configurable: true,
    },
  });
}

/**
 * Turns an error object that crossed the boundary (`code`, `message` and
 * the fields under their core names) into an instance of its class.
 */
export function toError(obj) {
  if (obj.code === "range_error") return new RangeError(obj.message);
  const row = BY_CODE.get(obj.code);
  const fields = {};
  for (const key of Object.keys(obj)) {
    if (key !== "code" && key !== "message") fields[camel(key)] = obj[key];
  }
  if (obj.code === "integer_out_of_range" && typeof obj.value === "string") fields.value = BigInt(obj.value);
  if (row === undefined) {
    // A code this layer does not know (a binding mismatch): keep it visible.
    fields.code = obj.code;
    return new DoryWireError(obj.message, fields);
  }
  return new CLASSES[row.class](obj.message, fields);
}

/** Rethrows what a wasm export threw: error-object JSON strings become errors. */
export function rethrow(thrown) {
  if (typeof thrown === "string" && thrown.charCodeAt(0) === 123 /* { */) {
    let obj;
    try {
      obj = JSON.parse(thrown);
    } catch {
      throw new DoryWireError(thrown);
    }
    throw toError(obj);
  }
  throw thrown;
}

export function misuse(reason) {
  return new CLASSES.InvalidState(`invalid_state: ${reason}`, { reason });
}


/**
 * The classes exported by name. The core's table decides which exist; this
 * list only names them for the ES module exports (and src/index.d.ts), and
 * loading the package fails if the two differ (a binding mismatch).
 */
const NAMES = [
  "LossError",
  "AnswerError",
  "ProtocolError",
  "OutputGap",
  "OutputExpired",
  "OffsetBeyondOutput",
  "ApiError",
  "UnsupportedContentType",
  "MalformedFrame",
  "UnexpectedFrame",
  "IdentityMismatch",
  "FrameTooLarge",
  "InvalidLimits",
  "InvalidState",
  "InvalidArgument",
  "StreamDisconnected",
  "NoAnswer",
  "IntegerOutOfRange",
];
const BUILT = { ...BASES, ...CLASSES };
{
  const built = Object.keys(BUILT).sort().join(", ");
  const named = [...NAMES].sort().join(", ");
  if (built !== named) {
    throw new Error(`dory-wire: the core's error classes (${built}) are not those this package exports (${named}) (binding mismatch)`);
  }
}

export const {
  LossError,
  AnswerError,
  ProtocolError,
  OutputGap,
  OutputExpired,
  OffsetBeyondOutput,
  ApiError,
  UnsupportedContentType,
  MalformedFrame,
  UnexpectedFrame,
  IdentityMismatch,
  FrameTooLarge,
  InvalidLimits,
  InvalidState,
  InvalidArgument,
  StreamDisconnected,
  NoAnswer,
  IntegerOutOfRange,
} = BUILT;
