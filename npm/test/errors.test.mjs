// The error classes against the core's table (dory_wire::ERROR_CODES, read
// from the wasm module itself): one class per code, the hierarchy of
// docs/api.md, every field of the code on every error the reader raises,
// and index.d.ts declaring each class with its code and fields.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import * as api from "dory-wire";
import { npmDir } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const core = JSON.parse(require(join(npmDir, "dist", "node", "wasm", "dory_wire_wasm.js")).core_tables_json());
const ts = require(join(npmDir, "node_modules", "typescript"));

// The core's field names in JS case.
const camel = (name) => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const enc = (s) => new TextEncoder().encode(s);
const line = (o) => JSON.stringify(o) + "\n";
const NDJSON = "application/x-ndjson";

/** docs/api.md: the base class of each kind. */
const BASE_OF_KIND = {
  answer: "AnswerError",
  loss: "LossError",
  protocol: "ProtocolError",
  misuse: "DoryWireError",
  limits: "DoryWireError",
  transport: "DoryWireError",
};

test("ERROR_CODES is the core's table, then integer_out_of_range", () => {
  const expected = [
    ...core.errorCodes,
    { code: "integer_out_of_range", class: "IntegerOutOfRange", kind: "limits", fields: ["field", "value"] },
  ].map((r) => ({ ...r, fields: r.fields.map(camel) }));
  assert.deepEqual(api.ERROR_CODES.map((r) => ({ ...r, fields: [...r.fields] })), expected);
  assert.ok(Object.isFrozen(api.ERROR_CODES) && api.ERROR_CODES.every((r) => Object.isFrozen(r) && Object.isFrozen(r.fields)));
  // The core's bases are those of docs/api.md.
  for (const { kind, base } of core.kinds) {
    assert.equal(base ?? "DoryWireError", BASE_OF_KIND[kind], `kind ${kind}`);
  }
  // The codes of docs/api.md, each once.
  assert.deepEqual(
    api.ERROR_CODES.map((r) => r.code).sort(),
    [
      "api_error",
      "frame_too_large",
      "identity_mismatch",
      "integer_out_of_range",
      "invalid_argument",
      "invalid_limits",
      "invalid_state",
      "malformed_frame",
      "no_answer",
      "offset_beyond_output",
      "output_expired",
      "output_gap",
      "stream_disconnected",
      "unexpected_frame",
      "unsupported_content_type",
    ],
  );
});

test("one exported class per code, under the base of its kind", () => {
  const bases = ["AnswerError", "LossError", "ProtocolError"];
  for (const row of api.ERROR_CODES) {
    const cls = api[row.class];
    assert.equal(typeof cls, "function", `${row.class} is not exported`);
    assert.equal(cls.name, row.class);
    const base = api[BASE_OF_KIND[row.kind]];
    assert.equal(Object.getPrototypeOf(cls), base, `${row.class} must extend ${BASE_OF_KIND[row.kind]}`);
    const e = new cls(`${row.code}: test`, {});
    assert.equal(e.code, row.code);
    assert.equal(e.kind, row.kind);
    assert.equal(e.name, row.class);
    assert.equal(e.message, `${row.code}: test`);
    assert.ok(e instanceof cls && e instanceof base && e instanceof api.DoryWireError && e instanceof Error);
    for (const other of bases.filter((b) => b !== BASE_OF_KIND[row.kind])) {
      assert.ok(!(e instanceof api[other]), `${row.class} must not be a ${other}`);
    }
    for (const sibling of api.ERROR_CODES.filter((r) => r.code !== row.code)) {
      assert.ok(!(e instanceof api[sibling.class]), `${row.class} must not be a ${sibling.class}`);
    }
  }
  for (const base of bases) assert.equal(Object.getPrototypeOf(api[base]), api.DoryWireError);
  assert.equal(Object.getPrototypeOf(api.DoryWireError), Error);
  // Every exported error class is a table class, a base, or DoryWireError.
  const errorClasses = Object.entries(api)
    .filter(([, v]) => typeof v === "function" && (v === api.DoryWireError || v.prototype instanceof api.DoryWireError))
    .map(([k]) => k)
    .sort();
  assert.deepEqual(errorClasses, [...api.ERROR_CODES.map((r) => r.class), ...bases, "DoryWireError"].sort());
  // `instanceof ProtocolError` holds for every protocol code, and only those.
  for (const row of api.ERROR_CODES) {
    const e = new api[row.class]("x");
    assert.equal(e instanceof api.ProtocolError, row.kind === "protocol", row.code);
  }
});

/** One real error of each code, raised through the public API. */
function raise(code) {
  const body = (endpoint, status, contentType, text, options, pid) => {
    const r = new api.Reader(endpoint, options);
    r.open(status, contentType, pid);
    r.feed(enc(text));
    r.finish();
  };
  switch (code) {
    case "output_gap":
      return body("process_output", 200, NDJSON, line({ type: "stdout", data: "x", offset: 11 }), { cursor: { stdout: 3 } });
    case "output_expired":
      return body("process_output", 410, "application/json", JSON.stringify({ error: "output_expired", message: "gone" }));
    case "offset_beyond_output":
      return body("process_output", 400, "application/json", JSON.stringify({ error: "offset_beyond_output", message: "too far" }));
    case "api_error":
      return body("process_output", 404, "application/json", JSON.stringify({ error: "not_found", message: "no such process" }));
    case "unsupported_content_type":
      return body("process_output", 200, "text/html", "");
    case "malformed_frame":
      return body("process_output", 200, NDJSON, "nope\n");
    case "unexpected_frame":
      return body("process_output", 200, NDJSON, line({ type: "exit", exit_code: 0, timed_out: false }) + line({ type: "heartbeat" }));
    case "identity_mismatch":
      return body("exec", 200, NDJSON, line({ type: "started", proc_id: "p_2" }), undefined, "p_1");
    case "frame_too_large":
      return body("process_output", 200, NDJSON, "x".repeat(100), { maxFrameBytes: 10 });
    case "invalid_state":
      return new api.Reader("process_output").feed(enc(""));
    case "invalid_limits":
      return api.bound("x", { maxLines: 0, maxBytes: 4096 });
    case "invalid_argument":
      return api.Request.start("", "true");
    case "stream_disconnected": {
      const f = api.Follower.processOutput("c1", "p1", { retries: 0 });
      f.request();
      return f.noResponse("connection refused", 0);
    }
    case "no_answer": {
      const f = api.Follower.call(api.Request.start("c1", "make"));
      f.request();
      return f.noResponse("connection refused", 0);
    }
    case "integer_out_of_range":
      return body("process_output", 200, NDJSON, line({ type: "stdout", data: "a", offset: 2 ** 53 + 2 }));
    default:
      throw new Error(`no way to raise ${code} in this test: add one`);
  }
}

test("every error the library raises carries exactly the fields of its code", () => {
  for (const row of api.ERROR_CODES) {
    let error;
    try {
      raise(row.code);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof api[row.class], `${row.code}: got ${error}`);
    assert.equal(error.code, row.code);
    assert.equal(error.kind, row.kind);
    assert.match(error.message, new RegExp(`^${row.code}: `));
    const own = Object.keys(error).filter((k) => k !== "code" && k !== "kind").sort();
    assert.deepEqual(own, [...row.fields].sort(), `${row.code}: fields`);
    for (const field of row.fields) assert.notEqual(error[field], undefined, `${row.code}.${field}`);
  }
});

test("fields are converted by kind: cursors, streams, optional strings, integers", () => {
  const gap = (() => {
    try {
      raise("output_gap");
    } catch (e) {
      return e;
    }
  })();
  assert.deepEqual([gap.stream, gap.consumed, gap.earliest], ["stdout", { stdout: 3, stderr: 0 }, { stdout: 10, stderr: 0 }]);
  const r = new api.Reader("process_output");
  r.open(503, "text/plain");
  r.feed(enc("busy"));
  assert.throws(() => r.finish(), (e) => e instanceof api.ApiError && e.status === 503 && e.apiCode === null && typeof e.serverMessage === "string");
  assert.throws(() => raise("frame_too_large"), (e) => e.limit === 10);
  assert.throws(() => raise("malformed_frame"), (e) => e.line === 1 && typeof e.reason === "string");
  assert.throws(
    () => raise("invalid_argument"),
    (e) => e.argument === "computerId" && e.name === "InvalidArgument" && e.reason === "must not be empty" && e.message === "invalid_argument: computerId: must not be empty",
  );
  assert.throws(
    () => raise("stream_disconnected"),
    (e) =>
      e.reason === "no_response" &&
      JSON.stringify(e.cursor) === JSON.stringify({ stdout: 0, stderr: 0 }) &&
      e.procId === "p1" &&
      e.name === "StreamDisconnected",
  );
  // Under the fail policy the hole before it is a gap whose earliest offset is 2^53 + 1.
  assert.throws(() => raise("integer_out_of_range"), (e) => e.value === 9007199254740993n && e.field === "stdout offset");
});

test("index.d.ts declares every class of the table with its base, code and fields", () => {
  const file = join(npmDir, "src", "index.d.ts");
  const source = ts.createSourceFile(file, ts.sys.readFile(file), ts.ScriptTarget.ES2022, true);
  const classes = new Map();
  source.forEachChild((node) => {
    if (ts.isClassDeclaration(node) && node.name) classes.set(node.name.text, node);
  });
  for (const row of api.ERROR_CODES) {
    const node = classes.get(row.class);
    assert.ok(node, `index.d.ts does not declare class ${row.class}`);
    const base = node.heritageClauses?.[0]?.types[0]?.expression.getText(source);
    assert.equal(base, BASE_OF_KIND[row.kind], `${row.class} extends`);
    const members = new Map(node.members.filter((m) => m.name).map((m) => [m.name.getText(source), m]));
    const code = members.get("code");
    assert.ok(code && code.type.getText(source) === JSON.stringify(row.code), `${row.class}: code: "${row.code}"`);
    for (const field of row.fields) {
      assert.ok(members.has(field), `index.d.ts: ${row.class} does not declare ${field}`);
      assert.ok(!members.get(field).questionToken, `index.d.ts: ${row.class}.${field} is always set`);
    }
  }
});
