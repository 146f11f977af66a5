// The package's public names against tests/api/surface.json (the table of
// docs/api.md): every listed JS name must be exported at runtime (or, for a
// `js_type_only` name, declared as a type only) and declared in the entry's
// .d.ts, and nothing public may be missing from the list. `concepts` is the
// main entry (`dory-wire`, src/index.d.ts); `client_concepts` the HTTP
// client (`dory-wire/client`, src/client.d.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import * as esm from "dory-wire";
import * as clientEsm from "dory-wire/client";
import { npmDir, rootDir } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const ts = require(join(npmDir, "node_modules", "typescript"));

const surface = JSON.parse(readFileSync(join(rootDir, "tests", "api", "surface.json"), "utf8"));
assert.equal(surface.client.js, "dory-wire/client");

/** One entry point: its list, its modules as loaded, its declarations. */
function entry(name, key, specifier, esmModule, dts) {
  const concepts = surface[key];
  const listed = concepts.filter((c) => c.js !== null && c.js !== undefined);
  return {
    name,
    key,
    concepts,
    listed,
    runtimeListed: new Set(listed.filter((c) => !c.js_type_only).map((c) => c.js)),
    typeListed: new Set(listed.filter((c) => c.js_type_only).map((c) => c.js)),
    esm: esmModule,
    cjs: require(specifier),
    dts: join(npmDir, "src", dts),
  };
}

const entries = [
  entry("dory-wire", "concepts", "dory-wire", esm, "index.d.ts"),
  entry("dory-wire/client", "client_concepts", surface.client.js, clientEsm, "client.d.ts"),
];
const [main, client] = entries;

/**
 * The exports of a .d.ts file: name → { value, from } — whether it is a value
 * (class, function, const), and the file that declares it (a re-export
 * resolves to the declaration it names).
 */
function declared(file) {
  if (!declaredCache.has(file)) declaredCache.set(file, readDeclarations(file));
  return new Map(declaredCache.get(file));
}
const declaredCache = new Map();

/** `declared`, read by the TypeScript compiler (once per file). */
function readDeclarations(file) {
  const program = ts.createProgram([file], { noEmit: true, types: [], lib: ["lib.es2022.d.ts", "lib.dom.d.ts"] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  assert.ok(moduleSymbol, `${file} is not a module`);
  const out = new Map();
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const from = symbol.declarations?.[0]?.getSourceFile().fileName ?? "";
    out.set(exported.getName(), { value: (symbol.flags & ts.SymbolFlags.Value) !== 0, from });
  }
  return out;
}

/** The listed names that a runtime export list lacks, and the exports not listed. */
function runtimeMismatch(e, exported) {
  const missing = [...e.runtimeListed].filter((n) => !exported.includes(n));
  const unlisted = exported.filter((n) => !e.runtimeListed.has(n));
  return { missing, unlisted };
}

/** The listed names a .d.ts lacks, and its exports not listed. */
function declaredMismatch(e, names) {
  const missing = [...e.runtimeListed, ...e.typeListed].filter((n) => !names.has(n));
  const unlisted = [...names.keys()].filter((n) => !e.runtimeListed.has(n) && !e.typeListed.has(n));
  return { missing, unlisted };
}

for (const e of entries) {
  test(`surface.json lists each ${e.name} name once, with a note for every missing one`, () => {
    const seen = new Set();
    for (const c of e.listed) {
      assert.ok(!seen.has(c.js), `${c.js} is listed twice in ${e.key}`);
      seen.add(c.js);
    }
    for (const c of e.concepts.filter((x) => x.js === null)) {
      assert.ok(typeof c.note === "string" && c.note.length > 0, `"${c.concept}" has no JS name and no note`);
    }
    assert.ok(e.runtimeListed.size > 0 && e.typeListed.size > 0);
  });

  test(`the runtime exports of ${e.name} are exactly the listed names (ES module and CommonJS)`, () => {
    const esmNames = Object.keys(e.esm).filter((k) => k !== "default").sort();
    const cjsNames = Object.keys(e.cjs).sort();
    assert.deepEqual(esmNames, cjsNames, "import and require export different names");
    const { missing, unlisted } = runtimeMismatch(e, cjsNames);
    assert.deepEqual(
      { missing, unlisted },
      { missing: [], unlisted: [] },
      `the runtime exports of ${e.name} and ${e.key} of tests/api/surface.json disagree:\n` +
        `  listed, not exported: ${missing.join(", ")}\n  exported, not listed: ${unlisted.join(", ")}`,
    );
    for (const name of e.typeListed) {
      assert.ok(!(name in e.cjs), `${name} is js_type_only in ${e.key} but exported at runtime`);
    }
    for (const name of cjsNames) {
      assert.equal(e.esm[name], e.cjs[name], `${name}: import and require give different objects`);
    }
  });

  test(`${e.dts.slice(npmDir.length + 1)} declares exactly the listed names, values as values and types as types`, () => {
    const names = declared(e.dts);
    const { missing, unlisted } = declaredMismatch(e, names);
    assert.deepEqual(
      { missing, unlisted },
      { missing: [], unlisted: [] },
      `the declarations of ${e.name} and ${e.key} of tests/api/surface.json disagree:\n` +
        `  listed, not declared: ${missing.join(", ")}\n  declared, not listed: ${unlisted.join(", ")}`,
    );
    for (const name of e.runtimeListed) {
      assert.equal(names.get(name).value, true, `${name} is exported at runtime but declared as a type only`);
    }
    for (const name of e.typeListed) {
      assert.equal(names.get(name).value, false, `${name} is js_type_only but declared as a value`);
    }
  });
}

test("the client's from_core names are the core's own objects and declarations", () => {
  const fromCore = new Set(client.listed.filter((c) => c.from_core?.includes("js")).map((c) => c.js));
  assert.ok(fromCore.size > 0);
  const clientDeclared = declared(client.dts);
  const coreNames = new Set([...main.runtimeListed, ...main.typeListed]);
  for (const name of client.runtimeListed) {
    const same = name in main.cjs && client.cjs[name] === main.cjs[name];
    assert.equal(same, fromCore.has(name), fromCore.has(name) ? `dory-wire/client's ${name} is not dory-wire's` : `${name} is dory-wire's own object: mark it from_core`);
  }
  for (const name of fromCore) {
    assert.ok(coreNames.has(name), `${name} is from_core but not a listed dory-wire name`);
    assert.equal(clientDeclared.get(name).from, main.dts, `client.d.ts must re-export ${name} from index.d.ts`);
  }
});

test("the checks can fail: a renamed name is caught both ways", () => {
  const exported = Object.keys(client.cjs).map((n) => (n === "StreamDisconnected" ? "StreamDropped" : n));
  assert.deepEqual(runtimeMismatch(client, exported), { missing: ["StreamDisconnected"], unlisted: ["StreamDropped"] });
  const names = declared(client.dts);
  names.set("OutputReader", { value: true, from: client.dts });
  names.delete("OutputStream");
  assert.deepEqual(declaredMismatch(client, names), { missing: ["OutputStream"], unlisted: ["OutputReader"] });
});

// ------------------------------------------------------- client_options

test("client_options: the JS names are the client's read options (and new Client's maxConnections), with the core's defaults", async () => {
  const { Follower } = esm;
  const { Client } = clientEsm;
  const options = surface.client_options;
  assert.ok(Array.isArray(options) && options.length > 0);
  for (const o of options) {
    if (o.js === null) assert.ok(typeof o.note === "string" && o.note.length > 0, `"${o.option}" has no JS name and no note`);
  }
  const listed = options.filter((o) => o.js !== null);
  /** The listed default in JS units: a duration ("unit": "s") in ms. */
  const jsDefault = (o) => (o.unit === "s" ? o.default * 1000 : o.default);
  /** The names an options argument accepts, as its TypeError for an unknown one lists them. */
  const accepted = async (call) => {
    let error;
    try {
      await call({ "no such option": 1 });
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof TypeError, String(error));
    return new Set(/\(expected ([^)]*)\)/.exec(error.message)[1].split(", "));
  };
  const fetch = async () => ({ status: 200, headers: new Headers({ "content-type": "application/x-ndjson" }), body: new Response('{"type":"exit","exit_code":0,"timed_out":false}\n').body });
  const client = new Client({ baseUrl: "http://dory.test", fetch });
  const computer = client.computers.get("c1");
  // A process handle: its identity comes from a scripted answer.
  const identityFetch = async () => ({ status: 200, headers: new Headers({ "content-type": "application/json" }), body: new Response('{"proc_id":"p1","status":"running"}').body });
  const process_ = await new Client({ baseUrl: "http://dory.test", fetch: identityFetch }).computers.get("c1").processes.get("p1");
  const readOutput = (o) => process_.readOutput(o);
  const readLogs = (o) => computer.setup.readLogs(o);
  const notOptions = new Set(["stdout_offset", "stderr_offset", "cursor", "offset", "transcript"]);
  for (const [name, call] of [
    ["readOutput", readOutput],
    ["readLogs", readLogs],
  ]) {
    const names = [...(await accepted(call))].filter((n) => !notOptions.has(n)).sort();
    assert.deepEqual(names, listed.filter((o) => o.js !== "maxConnections").map((o) => o.js).sort(), `${name}'s options and client_options`);
  }
  assert.ok((await accepted((o) => new Client("http://dory.test", o))).has("maxConnections"));
  for (const o of listed) {
    if (o.js === "maxConnections") {
      assert.equal(new Client("http://dory.test").maxConnections, o.default, "the client's default");
      continue;
    }
    if (o.js in Follower.defaults) {
      assert.equal(Follower.defaults[o.js], jsDefault(o), `${o.js}: the listed default is the core's`);
    } else {
      assert.equal(o.default, null, `${o.js} is not a core option: no default`);
    }
    // The real client takes the option with its listed default, on both reads.
    const value = jsDefault(o);
    const done = new Client({ baseUrl: "http://dory.test", fetch });
    const t = await done.computers.get("c1").setup.readLogs({ [o.js]: value });
    assert.deepEqual(t.exit, { exitCode: 0, timedOut: false }, o.js);
  }
});

// ---------------------------------------------------------- run_options

test("run_options: the JS names are computer.run's options, with the core's defaults", async () => {
  const { bound, runSpillId, DEFAULT_RUN_MAX_LINES, DEFAULT_RUN_MAX_BYTES } = esm;
  const { Client } = clientEsm;
  const options = surface.run_options;
  assert.ok(Array.isArray(options) && options.length > 0);
  for (const o of options) assert.ok(typeof o.js === "string" && o.js.length > 0, `"${o.option}" has no JS name`);
  const lines = "x\n".repeat(DEFAULT_RUN_MAX_LINES + 1);
  /** A service whose keyed start answers p1 and whose output is `lines` then the exit. */
  const fetch = async (url, init) => {
    if (init.method === "POST") return { status: 200, headers: new Headers({ "content-type": "application/json" }), body: new Response('{"proc_id":"p1","status":"running"}').body };
    const frames = `${JSON.stringify({ type: "stdout", data: lines, offset: lines.length })}\n{"type":"exit","exit_code":0,"timed_out":false}\n`;
    return { status: 200, headers: new Headers({ "content-type": "application/x-ndjson" }), body: new Response(frames).body };
  };
  const computer = new Client({ baseUrl: "http://dory.test", fetch }).computers.get("c1");
  let error;
  try {
    await computer.run("true", { "no such option": 1 });
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof TypeError, String(error));
  const accepted = /\(expected ([^)]*)\)/.exec(error.message)[1].split(", ");
  // Exactly the run options, the signal and the read options of every read but `follow`.
  const reads = surface.client_options.map((o) => o.js).filter((n) => n !== null && n !== "follow" && n !== "maxConnections");
  assert.deepEqual([...accepted].sort(), [...options.map((o) => o.js), "signal", ...reads].sort());
  const defaults = { maxLines: DEFAULT_RUN_MAX_LINES, maxBytes: DEFAULT_RUN_MAX_BYTES, killOnCancel: false, keep: "defaults", terminal: true };
  for (const o of options) {
    if (o.js === "tokenizer") {
      // The core's default tokenizer: maxTokens alone is maxTokens with it
      // (refused alike, before any request, where this build lacks it).
      const alone = await computer.run("true", { maxTokens: 1000 }).catch((e) => e);
      const named = await computer.run("true", { maxTokens: 1000, tokenizer: o.default }).catch((e) => e);
      if (esm.TOKENIZERS.includes(o.default)) {
        assert.deepEqual(named.combined, alone.combined, "maxTokens alone uses the listed default tokenizer");
      } else {
        for (const e of [alone, named]) assert.ok(e instanceof esm.InvalidArgument && e.argument === "tokenizer", `${o.default} is not in this build: ${e}`);
      }
      continue;
    }
    assert.equal(o.default, o.js in defaults ? defaults[o.js] : null, `${o.js}: the listed default is the core's`);
    // The real call takes the option with its listed default.
    const result = await computer.run("true", { [o.js]: o.default });
    assert.equal(result.exitCode, 0, o.js);
  }
  // The defaults are the ones used: the combined view is bound() of the
  // bytes at the core's default limits and options (one line too many: cut),
  // less the end line's room, then the end line (docs/run.md, "The result").
  const result = await computer.run("true");
  const end = "[... exit code 0 ...]";
  const less = { maxLines: DEFAULT_RUN_MAX_LINES - 1, maxBytes: DEFAULT_RUN_MAX_BYTES - end.length - 2 };
  const expected = bound(lines, { ...less, spillId: `${runSpillId(result.idempotencyKey)}-combined`, keep: "defaults", terminal: true, split: "tail" });
  assert.equal(expected.truncated, true);
  expected.text += `${end}\n`;
  expected.notices.push({ kind: "end", line: DEFAULT_RUN_MAX_LINES, text: end });
  assert.deepEqual(result.combined, expected);
  assert.deepEqual(result.stdout, bound(lines, { maxLines: DEFAULT_RUN_MAX_LINES, maxBytes: DEFAULT_RUN_MAX_BYTES, spillId: `${runSpillId(result.idempotencyKey)}-stdout`, keep: "defaults", terminal: true, split: "tail" }));
  assert.match(result.idempotencyKey, /^run-[0-9a-f]{32}$/, "the default key is a fresh run- key");
});

// ------------------------------------------------------- preview_options

test("preview_options: every bounder takes keep, terminal, split, maxTokens and tokenizer, with the listed defaults", async () => {
  const options = surface.preview_options;
  const calls = surface.preview_option_calls.js;
  assert.ok(Array.isArray(options) && options.length > 0);
  const log = Array.from({ length: 300 }, (_, i) => (i === 149 ? "error: boom\n" : `\x1b[32mok\x1b[0m ${i}\n`)).join("");
  // Each preview's text and token count (a tokenizer alone changes only the count).
  const shown = (p) => JSON.stringify({ text: p.text, tokens: p.tokens });
  const make = {
    bound: (o) => shown(esm.bound(log, { maxLines: 12, maxBytes: 400, ...o })),
    boundAsync: async (o) => shown(await esm.boundAsync(log, { maxLines: 12, maxBytes: 400, ...o })),
    StreamingBounder: (o) => {
      const s = new esm.StreamingBounder({ maxLines: 12, maxBytes: 400, ...o });
      s.push(log);
      return shown(s.finish());
    },
    RunBounder: (o) => {
      const r = new esm.RunBounder({ maxLines: 12, maxBytes: 400, ...o });
      r.push("stdout", log);
      return shown(r.finish().render("stdout"));
    },
  };
  assert.deepEqual(Object.keys(make).sort(), [...calls].sort(), "the calls listed are the bounders");
  const outcome = async (call) => {
    try {
      return await call();
    } catch (e) {
      return e;
    }
  };
  // A tokenizer of this build, for the token limit to be taken.
  const tokenizer = esm.TOKENIZERS.at(-1);
  /** Another value than the default, for each option: it changes the preview. */
  const taken = { keep: { keep: "defaults" }, terminal: { terminal: true }, split: { split: "tail" }, maxTokens: { maxTokens: 40, tokenizer }, tokenizer: { tokenizer } };
  assert.deepEqual(Object.keys(taken).sort(), options.map((o) => o.js).sort(), "every listed option is tried");
  const plain = make.bound({});
  for (const name of calls) {
    for (const o of options) {
      if (o.js === "tokenizer") {
        // The listed default is the tokenizer of maxTokens alone (refused
        // alike where this build lacks it); a tokenizer alone only counts.
        const alone = await outcome(() => make[name]({ maxTokens: 40 }));
        const named = await outcome(() => make[name]({ maxTokens: 40, tokenizer: o.default }));
        if (esm.TOKENIZERS.includes(o.default)) {
          assert.equal(named, alone, `${name}: maxTokens alone uses ${o.default}`);
        } else {
          for (const e of [alone, named]) assert.ok(e instanceof esm.InvalidArgument && e.argument === "tokenizer", `${name}: ${o.default} is not in this build: ${e}`);
        }
        const counted = JSON.parse(await make[name]({ tokenizer }));
        assert.equal(counted.text, JSON.parse(plain).text, `${name}: a tokenizer alone changes no text`);
        assert.equal(counted.tokens, esm.countTokens(counted.text, tokenizer), `${name}: a tokenizer alone counts`);
        continue;
      }
      // The option given its listed default changes nothing; another value changes the preview.
      assert.equal(await make[name]({ [o.js]: o.default }), plain, `${name}: ${o.js} = ${JSON.stringify(o.default)}`);
      assert.notEqual(await make[name](taken[o.js]), plain, `${name}: ${JSON.stringify(taken[o.js])} is taken`);
    }
    let error;
    try {
      await make[name]({ "no such option": 1 });
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof TypeError, `${name} refuses an unknown option: ${error}`);
    const accepted = /\(expected ([^)]*)\)/.exec(error.message)[1].split(", ");
    for (const o of options) assert.ok(accepted.includes(o.js), `${name} lists ${o.js} among its options: ${accepted}`);
  }
});
