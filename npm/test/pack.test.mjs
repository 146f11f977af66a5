// `npm pack`, install the tarball into a scratch project, and decode a vector
// there through `import` and through `require` (no bundler, no flags); load
// `dory-wire/client` both ways too and read an output through it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadVectors, npmDir } from "./helpers.mjs";
import { toB64 } from "./vector-lib.mjs";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const require = createRequire(import.meta.url);

test("the packed tarball installs and decodes via import and require", (t) => {
  const scratch = mkdtempSync(join(tmpdir(), "dory-wire-pack-"));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const packed = JSON.parse(execFileSync(npm, ["pack", "--json", "--pack-destination", scratch], { cwd: npmDir, encoding: "utf8" }));
  const files = packed[0].files.map((f) => f.path);
  const client = ["dist/node/client.cjs", "dist/node/client.mjs", "dist/web/client.js", "dist/client.d.ts", "dist/client.d.cts"];
  for (const needed of ["dist/node/index.cjs", "dist/node/index.mjs", "dist/web/index.js", "dist/index.d.ts", "dist/node/wasm/dory_wire_wasm_bg.wasm", "dist/web/wasm/dory_wire_wasm_bg.wasm", "README.md", "package.json", ...client]) {
    assert.ok(files.includes(needed), `${needed} missing from the tarball: ${files.join(", ")}`);
  }
  assert.ok(!files.some((f) => f.startsWith("test/") || f.startsWith("src/") || f.startsWith("node_modules/")), "the tarball ships only dist/");
  const tarball = join(scratch, readdirSync(scratch).find((f) => f.endsWith(".tgz")));
  const project = join(scratch, "project");
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", version: "1.0.0", private: true }));
  execFileSync(npm, ["install", "--no-audit", "--no-fund", "--offline", tarball], { cwd: project, stdio: "pipe" });

  // A vector with output and an exit: a stream, not a document.
  const v = loadVectors().find((x) => x.kind === "decode" && x.endpoint === "exec" && x.expect.end?.type === "exited" && x.expect.events.some((e) => e.type === "stdout"));
  assert.ok(v, "no exec vector with stdout and exit");
  const body = v.body_b64 ?? Buffer.from(v.body, "utf8").toString("base64");
  const script = (load) => `${load}
const v = ${JSON.stringify({ endpoint: v.endpoint, status: v.status, content_type: v.content_type, pid: v.process_id_header ?? null, body })};
const r = new dory.Reader(v.endpoint);
r.open(v.status, v.content_type, v.pid ?? undefined);
const events = r.feed(Buffer.from(v.body, "base64")).map((e) => e.data ? { ...e, data: Buffer.from(e.data).toString("base64") } : e);
const [, end] = r.finish();
console.log(JSON.stringify({ events, end: end.type, cursor: r.cursor, gap: typeof dory.OutputGap, init: typeof dory.init }));
`;
  writeFileSync(join(project, "esm.mjs"), script('import * as dory from "dory-wire";'));
  writeFileSync(join(project, "cjs.cjs"), script('const dory = require("dory-wire");'));
  const expectedOut = v.expect.events.filter((e) => e.type === "stdout").map((e) => e.data_b64);
  for (const file of ["esm.mjs", "cjs.cjs"]) {
    const out = JSON.parse(execFileSync(process.execPath, [file], { cwd: project, encoding: "utf8" }));
    assert.equal(out.end, "exited", file);
    assert.deepEqual(out.cursor, v.expect.cursor, file);
    assert.deepEqual(out.events.filter((e) => e.type === "output" && e.stream === "stdout").map((e) => e.data), expectedOut, file);
    assert.equal(out.gap, "function", file);
    assert.equal(out.init, "function", file);
  }

  // dory-wire/client: the same exports both ways, the core's own classes (one
  // copy of each, shared with dory-wire), and an output read through a
  // scripted fetch, decoded by the installed core.
  const clientScript = (load) => `${load}
const frames = ${JSON.stringify(
    [
      { type: "stdout", data: toB64(new Uint8Array([104, 105, 0, 255])), encoding: "base64", offset: 4 },
      { type: "exit", exit_code: 3, timed_out: false },
    ]
      .map((f) => JSON.stringify(f) + "\n")
      .join(""),
  )};
const answers = [
  ["application/json", JSON.stringify({ proc_id: "p_1", status: "exited" })],
  ["application/x-ndjson", frames],
];
const urls = [];
const fetch = async (url) => {
  urls.push(new URL(url).pathname + new URL(url).search);
  const [type, body] = answers.shift();
  return new Response(body, { status: 200, headers: { "content-type": type } });
};
(async () => {
  const c = new client.Client({ baseUrl: "http://dory.invalid", fetch });
  const p = await (c.computers.get("c1")).processes.get("p_1");
  const t = await p.readOutput();
  console.log(JSON.stringify({
    names: Object.keys(client).filter((k) => k !== "default").sort(),
    shared: ["Transcript", "DoryWireError", "OutputGap"].every((k) => client[k] === dory[k]),
    disconnected: new client.StreamDisconnected("x", { reason: "gap", cursor: { stdout: 0, stderr: 0 } }) instanceof dory.DoryWireError,
    transcript: t instanceof dory.Transcript,
    stdout: Buffer.from(t.bytes("stdout")).toString("base64"),
    exit: t.exit,
    urls,
  }));
})();
`;
  writeFileSync(join(project, "client-esm.mjs"), clientScript('import * as client from "dory-wire/client";\nimport * as dory from "dory-wire";'));
  writeFileSync(join(project, "client-cjs.cjs"), clientScript('const client = require("dory-wire/client");\nconst dory = require("dory-wire");'));
  const clientNames = Object.keys(require("dory-wire/client")).sort();
  for (const file of ["client-esm.mjs", "client-cjs.cjs"]) {
    const out = JSON.parse(execFileSync(process.execPath, [file], { cwd: project, encoding: "utf8" }));
    assert.deepEqual(out.names, clientNames, `${file}: the installed client exports what the build does`);
    assert.ok(out.shared && out.disconnected && out.transcript, `${file}: ${JSON.stringify(out)}`);
    assert.equal(out.stdout, toB64(new Uint8Array([104, 105, 0, 255])), file);
    assert.deepEqual(out.exit, { exitCode: 3, timedOut: false }, file);
    assert.deepEqual(out.urls, ["/computers/c1/processes/p_1", "/computers/c1/processes/p_1/output?stdout_offset=0&stderr_offset=0&follow=true"], file);
  }
});
