// A Node host of the dory-wire component, transpiled to JavaScript by jco
// (`npx @bytecodealliance/jco transpile dory-wire.wasm -o out/`): follows a
// process's output across a dropped connection, shows a loss as an error
// value, and bounds a long output with the spill handshake. It prints the
// same text as host.py; scripts/test-component.sh checks both.
//
//   node host.mjs [path/to/transpiled/dory-wire.js]
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const entry = process.argv[2] ? resolve(process.argv[2]) : join(here, "..", "..", "target", "component", "jco", "dory-wire.js");
// jco's module instantiates the component with a top-level await.
const { decode, preview } = await import(pathToFileURL(entry).href);

const hex = (bytes) => Buffer.from(bytes).toString("hex");

function show(prefix, event) {
  const e = event.val;
  if (event.tag === "output") console.log(`${prefix}: output ${e.stream} [${e.start}, ${e.end}) ${hex(e.data)}`);
  else if (event.tag === "exit") console.log(`${prefix}: exit ${e.exitCode ?? "None"}`);
  else console.log(`${prefix}: ${event.tag}`);
}

function showError(prefix, err) {
  console.log(`${prefix}: ${err.code} (${err.kind}, ${err.className}): ${err.message}`);
  for (const f of err.fields) {
    const v = f.value.val;
    console.log(`${prefix}:   ${f.name} = ${f.value.tag === "cursor" ? `stdout=${v.stdout} stderr=${v.stderr}` : v}`);
  }
}

// 1. The first connection drops in the middle of a frame; the second, resumed
//    from the saved state, re-sends from a chunk boundary and the overlap is trimmed.
const enc = new TextEncoder();
const bodies = [
  '{"type":"stdout","data":"hello\\u0000","offset":6}\n{"type":"stdo',
  '{"type":"stdout","data":"hello\\u0000","offset":6}\n' +
    '{"type":"stdout","data":"/w==","encoding":"base64","offset":7}\n' +
    '{"type":"stderr","data":"notice","offset":6}\n' +
    '{"type":"exit","exit_code":0,"timed_out":false}\n',
].map((s) => enc.encode(s));
let saved;
for (const [i, body] of bodies.entries()) {
  const prefix = `attempt ${i + 1}`;
  const reader = saved === undefined ? new decode.Reader("process-output", {}) : decode.Reader.resumeJson("process-output", saved, {});
  reader.open(200, "application/x-ndjson", undefined);
  for (let at = 0; at < body.length; at += 7) {
    // As the HTTP client yields them.
    const fed = reader.feed(body.subarray(at, at + 7));
    for (const event of fed.events) show(prefix, event);
    if (fed.error) throw new Error(fed.error.message);
  }
  const finished = reader.finish();
  for (const event of finished.events) show(prefix, event);
  if (finished.end.tag === "err") throw new Error(finished.end.val.message);
  const end = finished.end.val;
  if (end.tag === "disconnected") {
    const c = end.val.cursor;
    console.log(`${prefix}: end disconnected (${end.val.reason}), resume from stdout=${c.stdout} stderr=${c.stderr}`);
    saved = reader.resumeStateJson();
    console.log(`saved: ${saved}`);
  } else {
    console.log(`${prefix}: end ${end.tag} (exit code ${end.val.exitCode})`);
  }
  reader[Symbol.dispose]();
}

// 2. Lost output is an error value, never joined over silently.
const reader = new decode.Reader("process-output", { cursor: { stdout: 4096n, stderr: 0n } });
reader.open(200, "application/x-ndjson", undefined);
const fed = reader.feed(enc.encode('{"type":"gap","earliest_stdout_offset":1048576,"earliest_stderr_offset":0}\n'));
showError("gap", fed.error);
reader[Symbol.dispose]();

// 3. A long output bounded to 6 lines and 300 bytes. The component asks for a
//    spill; the host saves the output (here it only names the file) and renders.
let text = "";
for (let i = 1; i <= 1000; i++) text += `step ${i}\n`;
const bounded = preview.bound(enc.encode(text), 6n, 300n, undefined); // throws the error record on error
const pending = bounded.val; // bounded.tag === "needs-spill"
const path = `/tmp/spill/${pending.spillId()}.txt`;
const p = pending.render({ tag: "saved", val: path }, "read it with sed");
pending[Symbol.dispose]();
console.log(`preview: ${p.omittedLines} lines omitted, ${enc.encode(p.text).length} bytes`);
process.stdout.write(p.text);
