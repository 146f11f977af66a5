// The packed npm package on every runtime it claims: the tarball `npm pack`
// makes of npm/ (built), installed the way each runtime's users install it,
// then the same checks (checks.mjs: vectors whole and split, the errors'
// classes, bound(), RunBounder on run vectors, the client's readOutput and
// computer.run against the reference server cutting every response after 80
// bytes, SpillDirectory's files where there is a filesystem and its clear
// error where there is none) run inside each:
//
//   Node (this one, and Node 18 from the npm package `node`), Deno and Bun
//   (npm packages `deno`, `bun`): `npm install <tarball>` (Bun: `bun add`),
//   then tests/runtimes/drivers/main.mjs (import, and require through node:module);
//   Cloudflare Workers: an ES module worker (drivers/worker.mjs) bundled with
//   esbuild as Workers users bundle (conditions workerd, worker, browser; the
//   .wasm a CompiledWasm module handed to init()), run in workerd through miniflare;
//   Firefox (Debian's firefox-esr) and Chromium, headless: a page importing
//   the installed package through an import map, served on loopback.
//
// The tools come from scripts/test-runtimes.sh (target/runtimes/tools, pinned in
// tests/runtimes/package.json): a runtime that is not there is skipped, with the
// reason printed and recorded for `make test`'s summary ("SKIP runtimes <name>: ...").
// EXPECTED_FAILURES lists the checks that fail for a known reason being
// fixed elsewhere: reported as todo ("XFAIL runtimes ..." in the summary), not failed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RefServer } from "../e2e/node/refserver.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "..", "..");
const WORK = join(ROOT, "target", "runtimes", "work");
const TOOLS = process.env.DORY_RUNTIME_TOOLS ?? join(ROOT, "target", "runtimes", "tools");
const RUN_TIMEOUT_MS = 180_000; // hang guard for one runtime's run
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

// Nothing but loopback: no update check (Deno), telemetry or crash report
// (Bun's DO_NOT_TRACK), nor miniflare's fetch of the Request.cf object.
process.env.DENO_NO_UPDATE_CHECK = "1";
process.env.DO_NOT_TRACK = "1";
process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";

/**
 * Checks that fail for a known reason, fixed elsewhere: `runtime/check` →
 * { reason, match } — a failure whose detail matches `match` is expected
 * (todo, "XFAIL" in the summary); any other failure fails, and a pass says
 * to remove the entry. Empty since the client calls fetch with no receiver
 * (it was "workerd/client readOutput", "firefox/…" and "chromium/…": "Illegal
 * invocation" while fetch was called as a method of another object).
 */
const EXPECTED_FAILURES = {};

function summary(kind, name, reason) {
  const line = `${kind} runtimes ${name}: ${reason}`;
  console.log(`# ${line}`);
  if (process.env.DORY_TEST_SUMMARY) appendFileSync(process.env.DORY_TEST_SUMMARY, `${line}\n`);
}

/** The binary `bin` of the runtime installed in TOOLS/<dir> (tests/runtimes/tools/<dir>), or null. */
function tool(dir, bin) {
  const path = join(TOOLS, dir, "node_modules", ".bin", bin);
  return existsSync(path) ? path : null;
}

/** Why the runtime of TOOLS/<dir> is not there: what its install said, else that it was not installed. */
function missing(dir, what) {
  const noted = join(TOOLS, dir, ".unavailable");
  if (existsSync(noted)) return readFileSync(noted, "utf8").trim();
  return `${what} is not installed in ${join(TOOLS, dir)} (scripts/test-runtimes.sh installs it from tests/runtimes/tools/${dir})`;
}

function version(cmd, args = ["--version"]) {
  return execFileSync(cmd, args, { encoding: "utf8", timeout: 30_000 }).trim().split("\n")[0];
}

/** Runs a command to its end (hang guard), resolving { code, stdout, stderr }. */
function run(cmd, args, options = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

/** The report line a driver printed. */
function reportOf(out, what) {
  const line = out.stdout.split("\n").find((l) => l.startsWith("DORY-RUNTIME-REPORT "));
  if (!line) throw new Error(`${what} printed no report (exit ${out.code}${out.signal ? `, ${out.signal}` : ""}):\n${out.stdout}\n${out.stderr}`);
  return JSON.parse(line.slice("DORY-RUNTIME-REPORT ".length));
}

// ----------------------------------------------------------------- set-up

let tarball;
let server;
let vectorsModule;

/** The text of every vector file of the kinds the checks use, for the runtimes' vectors.mjs. */
function vectorTexts() {
  const out = {};
  for (const kind of ["decode", "conversation", "preview", "run"]) {
    const dir = join(ROOT, "tests", "vectors", kind);
    out[kind] = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => readFileSync(join(dir, f), "utf8"));
  }
  return out;
}

/**
 * A scratch project for one runtime: the package installed from the tarball
 * (`install(dir)`, npm by default), the driver, a checks.mjs re-exporting the
 * shared module and vectors.mjs holding the vector files' text.
 */
function project(name, install = (dir) => execFileSync(npm, ["install", "--no-audit", "--no-fund", "--offline", tarball], { cwd: dir, stdio: "pipe" })) {
  const dir = join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `dory-wire-on-${name}`, version: "1.0.0", private: true, type: "module" }, null, 2));
  install(dir);
  for (const f of ["main.mjs", "worker.mjs"]) copyFileSync(join(here, "drivers", f), join(dir, f));
  writeFileSync(join(dir, "checks.mjs"), `export * from ${JSON.stringify(join(here, "checks.mjs"))};\n`);
  writeFileSync(join(dir, "vectors.mjs"), vectorsModule);
  return dir;
}

before(async () => {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  if (process.env.DORY_RUNTIMES_TARBALL) {
    tarball = resolve(process.env.DORY_RUNTIMES_TARBALL); // another build of the package, e.g. a release's
  } else {
    const [packed] = JSON.parse(execFileSync(npm, ["pack", "--json", "--pack-destination", WORK], { cwd: join(ROOT, "npm"), encoding: "utf8" }));
    tarball = join(WORK, packed.filename);
  }
  console.log(`# the package: ${tarball}`);
  vectorsModule = `export default ${JSON.stringify(vectorTexts())};\n`;
  // Every response cut after 80 bytes; frames of at most 32 bytes of output,
  // so one gets through each response (a larger one never would): computer.run's
  // 347 bytes take a reconnect every 32.
  server = await new RefServer(["--drop-after-bytes", "80", "--max-chunk-bytes", "32"]).start();
});

after(async () => {
  await server?.stop();
});

/**
 * One runtime: skipped with `unavailable()`'s reason when it says one; else
 * `runIt()` answers { version, report } and each check is a subtest.
 */
function runtime(name, unavailable, runIt) {
  test(name, async (t) => {
    const reason = unavailable();
    if (reason) {
      summary("SKIP", name, reason);
      t.skip(reason);
      return;
    }
    const started = Date.now();
    const { version: v, report } = await runIt();
    console.log(`# ${name}: ${v} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    assert.ok(report.results.length >= 9, `${name}: ${report.results.length} checks ran: ${JSON.stringify(report)}`);
    for (const r of report.results) {
      const expected = EXPECTED_FAILURES[`${name}/${r.name}`];
      const xfail = expected && !r.ok && expected.match.test(r.detail);
      if (xfail) summary("XFAIL", `${name} ${r.name}`, `expected failure: ${expected.reason} (${r.detail.split("\n")[0]})`);
      else if (expected && r.ok) console.log(`# ${name} ${r.name}: passes now: remove it from EXPECTED_FAILURES`);
      await t.test(r.name, xfail ? { todo: expected.reason } : {}, () => {
        console.log(`# ${name} ${r.name}: ${r.ok ? "ok" : "FAILED"} (${r.ms} ms) ${r.ok ? r.detail : ""}`);
        if (!r.ok) throw new Error(`${name} ${r.name}:\n${r.detail}`);
      });
    }
  });
}

// ------------------------------------------------------------------- Node, Deno, Bun

/** The empty directory the run's SpillDirectory writes in, in the project `dir`. */
const spillsOf = (dir) => join(dir, "spills");

/** A driver run of `main.mjs` in `dir` by `cmd args` (the spills in spillsOf(dir)). */
async function driver(what, dir, cmd, args) {
  const spills = spillsOf(dir);
  mkdirSync(spills);
  const out = await run(cmd, [...args, "main.mjs", server.url, server.computer, spills], { cwd: dir });
  return reportOf(out, what);
}

runtime(
  "node",
  () => null,
  async () => {
    const dir = project("node");
    return { version: `Node ${process.version}`, report: await driver("node", dir, process.execPath, []) };
  },
);

const node18 = tool("node-18", "node");
runtime(
  "node-18",
  () => (node18 ? null : missing("node-18", "the npm package node@18")),
  async () => {
    const dir = project("node-18");
    return { version: `Node ${version(node18)}`, report: await driver("node 18", dir, node18, []) };
  },
);

const deno = tool("deno", "deno");
runtime(
  "deno",
  () => (deno ? null : missing("deno", "the npm package deno")),
  async () => {
    // A Deno project with a package.json: npm install, then Deno resolves the
    // bare names through node_modules. Read, write in the spill directory
    // only, and loopback network only.
    const dir = project("deno");
    const args = ["run", "--quiet", "--no-lock", "--node-modules-dir=manual", "--allow-read", `--allow-write=${spillsOf(dir)}`, "--allow-net=127.0.0.1"];
    return { version: version(deno), report: await driver("deno", dir, deno, args) };
  },
);

const bun = tool("bun", "bun");
runtime(
  "bun",
  () => (bun ? null : missing("bun", "the npm package bun")),
  async () => {
    const dir = project("bun", (d) => execFileSync(bun, ["add", tarball], { cwd: d, stdio: "pipe", env: { ...process.env, BUN_INSTALL_CACHE_DIR: join(WORK, "bun-cache") } }));
    return { version: `Bun ${version(bun)}`, report: await driver("bun", dir, bun, ["run"]) };
  },
);

// ----------------------------------------------------------------- Workers

const WORKERD = join(TOOLS, "workerd");
const toolsRequire = existsSync(join(WORKERD, "package.json")) ? createRequire(join(WORKERD, "package.json")) : null;
function resolvable(name) {
  try {
    return toolsRequire?.resolve(name) ?? null;
  } catch {
    return null;
  }
}

/**
 * What wrangler does with a `*.wasm` import (its CompiledWasm rule), for
 * esbuild: resolve it as usual (package exports), copy it next to the
 * bundle, and leave the import for workerd, which gives a WebAssembly.Module.
 */
function wasmModules(outdir) {
  return {
    name: "wasm-modules",
    setup(build) {
      build.onResolve({ filter: /\.wasm$/ }, async (args) => {
        if (args.pluginData?.wasm) return undefined;
        const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { wasm: true } });
        if (found.errors.length) return { errors: found.errors };
        copyFileSync(found.path, join(outdir, basename(found.path)));
        return { path: `./${basename(found.path)}`, external: true };
      });
    },
  };
}

runtime(
  "workerd",
  () => {
    for (const name of ["miniflare", "esbuild"]) {
      if (!resolvable(name) || !tool("workerd", "workerd")) return missing("workerd", `the npm package ${name}`);
    }
    return null;
  },
  async () => {
    const dir = project("workerd");
    const outdir = join(dir, "dist");
    mkdirSync(outdir);
    const esbuild = await import(pathToFileURL(resolvable("esbuild")));
    await esbuild.build({
      entryPoints: [join(dir, "worker.mjs")],
      outfile: join(outdir, "worker.js"),
      bundle: true,
      format: "esm",
      platform: "browser",
      conditions: ["workerd", "worker", "browser"],
      target: "es2022",
      logLevel: "warning",
      plugins: [wasmModules(outdir)],
    });
    const { Miniflare } = await import(pathToFileURL(resolvable("miniflare")));
    const mf = new Miniflare({
      modules: true,
      scriptPath: join(outdir, "worker.js"),
      modulesRules: [{ type: "CompiledWasm", include: ["**/*.wasm"] }],
      compatibilityDate: "2026-04-01",
      cf: false, // a placeholder Request.cf, not one fetched from Cloudflare
    });
    try {
      const query = new URLSearchParams({ server: server.url, computer: server.computer });
      const response = await mf.dispatchFetch(`http://localhost/?${query}`);
      const text = await response.text();
      if (response.status !== 200) throw new Error(`the worker answered ${response.status}: ${text}`);
      const miniflareVersion = JSON.parse(readFileSync(join(WORKERD, "node_modules", "miniflare", "package.json"), "utf8")).version;
      return { version: `workerd ${version(tool("workerd", "workerd")).replace(/^workerd /, "")} (miniflare ${miniflareVersion}, esbuild ${esbuild.version})`, report: JSON.parse(text) };
    } finally {
      await mf.dispose();
    }
  },
);

// ----------------------------------------------------------------- browsers

const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

const PAGE = `<!doctype html><meta charset="utf-8"><title>dory-wire runtimes</title>
<script type="importmap">{"imports": {"dory-wire": "/node_modules/dory-wire/dist/web/index.js", "dory-wire/client": "/node_modules/dory-wire/dist/web/client.js"}}</script>
<script type="module">
const post = (body) => fetch("/report", { method: "POST", body: JSON.stringify(body) });
addEventListener("error", (e) => post({ crashed: String(e.message) }));
addEventListener("unhandledrejection", (e) => post({ crashed: String(e.reason?.stack ?? e.reason) }));
try {
  const api = await import("dory-wire");
  const client = await import("dory-wire/client");
  const { runChecks } = await import("/tests/runtimes/checks.mjs");
  const vectors = await (await fetch("/vectors.json")).json();
  await api.init();
  const params = new URLSearchParams(location.search);
  post(await runChecks({ api, client, vectors, server: { url: location.origin + "/dory", computer: params.get("computer") } }));
} catch (e) {
  post({ crashed: String(e?.stack ?? e) });
}
</script>`;

/**
 * Serves the page, the installed package (node_modules of `dir`), the shared
 * checks and the vectors, proxies /dory/* to the reference server (same
 * origin: no CORS; a cut upstream is a cut here), and resolves `report` with
 * what the page posts to /report.
 */
function browserServer(dir) {
  let deliver;
  const report = new Promise((r) => (deliver = r));
  const vectors = JSON.stringify(vectorTexts());
  const upstream = new URL(server.url);
  const http = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    if (url.pathname === "/") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(PAGE);
    }
    if (url.pathname === "/favicon.ico") {
      res.writeHead(404);
      return res.end();
    }
    if (url.pathname === "/vectors.json") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(vectors);
    }
    if (url.pathname === "/report" && req.method === "POST") {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        res.writeHead(204);
        res.end();
        deliver(JSON.parse(body));
      });
      return undefined;
    }
    if (url.pathname.startsWith("/dory/")) {
      const headers = { ...req.headers, host: upstream.host };
      delete headers.connection;
      const up = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: url.pathname.slice("/dory".length) + url.search, headers }, (ures) => {
        const out = { ...ures.headers };
        delete out.connection;
        delete out["keep-alive"];
        res.writeHead(ures.statusCode, out);
        ures.on("data", (d) => res.write(d));
        ures.on("end", () => (ures.complete ? res.end() : res.destroy()));
        ures.on("error", () => res.destroy());
        ures.on("aborted", () => res.destroy());
      });
      up.on("error", () => res.destroy());
      req.pipe(up);
      return undefined;
    }
    const roots = [
      [join(dir, "node_modules"), "/node_modules/"],
      [join(ROOT, "tests", "runtimes"), "/tests/runtimes/"],
      [join(ROOT, "npm", "test"), "/npm/test/"],
    ];
    for (const [base, prefix] of roots) {
      if (!url.pathname.startsWith(prefix)) continue;
      const path = normalize(join(base, decodeURIComponent(url.pathname.slice(prefix.length))));
      if (path.startsWith(base) && existsSync(path)) {
        res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
        return res.end(readFileSync(path));
      }
    }
    res.writeHead(404);
    return res.end();
  });
  return new Promise((r) => http.listen(0, "127.0.0.1", () => r({ http, report, url: `http://127.0.0.1:${http.address().port}/?computer=${encodeURIComponent(server.computer)}` })));
}

/**
 * Firefox's prefs for a closed network: no update, telemetry, safe browsing,
 * captive portal or other background traffic, and what is left goes to a
 * proxy on a closed loopback port, so no name is looked up (loopback itself
 * is never proxied).
 */
const FIREFOX_PREFS = {
  "network.proxy.type": 1,
  "network.proxy.http": "127.0.0.1",
  "network.proxy.http_port": 9,
  "network.proxy.ssl": "127.0.0.1",
  "network.proxy.ssl_port": 9,
  "network.proxy.socks_remote_dns": true,
  "network.proxy.allow_hijacking_localhost": false,
  "network.proxy.failover_direct": false,
  "app.update.enabled": false,
  "app.update.auto": false,
  "app.normandy.enabled": false,
  "browser.shell.checkDefaultBrowser": false,
  "browser.startup.homepage_override.mstone": "ignore",
  "browser.aboutwelcome.enabled": false,
  "browser.safebrowsing.malware.enabled": false,
  "browser.safebrowsing.phishing.enabled": false,
  "browser.safebrowsing.downloads.enabled": false,
  "browser.safebrowsing.blockedURIs.enabled": false,
  "browser.search.update": false,
  "browser.newtabpage.enabled": false,
  "browser.ping-centre.telemetry": false,
  "datareporting.healthreport.uploadEnabled": false,
  "datareporting.policy.dataSubmissionEnabled": false,
  "toolkit.telemetry.enabled": false,
  "toolkit.telemetry.unified": false,
  "toolkit.telemetry.server": "",
  "network.captive-portal-service.enabled": false,
  "network.connectivity-service.enabled": false,
  "network.dns.disablePrefetch": true,
  "network.http.speculative-parallel-limit": 0,
  "network.prefetch-next": false,
  "extensions.update.enabled": false,
  "extensions.getAddons.cache.enabled": false,
  "extensions.blocklist.enabled": false,
  "services.settings.server": "http://127.0.0.1:9/",
  "media.gmp-manager.url": "http://127.0.0.1:9/",
  "dom.push.enabled": false,
  "geo.provider.network.url": "",
  "browser.region.network.url": "",
  "browser.topsites.contile.enabled": false,
  "browser.discovery.enabled": false,
  "extensions.systemAddon.update.enabled": false,
  "network.trr.mode": 5,
  "toolkit.telemetry.reportingpolicy.firstRun": false,
};

/** Loads the page in a headless browser started by `launch(url, profile)`, then stops it (its own process group). */
async function inBrowser(name, launch) {
  const dir = project(name);
  const { http, report, url } = await browserServer(dir);
  const profile = mkdtempSync(join(tmpdir(), `dory-wire-${name}-`));
  const child = launch(url, profile);
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise((r) => child.once("exit", (code, signal) => r(`${name} exited (${code ?? signal}) before the page reported:\n${output.slice(-3000)}`)));
  let timer;
  try {
    const got = await Promise.race([
      report,
      exited.then((m) => Promise.reject(new Error(m))),
      new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`no report from the page within ${RUN_TIMEOUT_MS} ms:\n${output.slice(-3000)}`)), RUN_TIMEOUT_MS))),
    ]);
    if (got.crashed) throw new Error(`the page crashed: ${got.crashed}`);
    return got;
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    http.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const FIREFOX = process.env.DORY_FIREFOX ?? "/usr/bin/firefox-esr";
runtime(
  "firefox",
  () => (existsSync(FIREFOX) ? null : process.env.DORY_FIREFOX_UNAVAILABLE || `Firefox is not installed at ${FIREFOX} (apt-get install firefox-esr; scripts/test-runtimes.sh tries)`),
  async () => {
    const v = version(FIREFOX);
    const report = await inBrowser("firefox", (url, profile) => {
      writeFileSync(join(profile, "user.js"), Object.entries(FIREFOX_PREFS).map(([k, val]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(val)});\n`).join(""));
      return spawn(FIREFOX, ["--headless", "--no-remote", "--profile", profile, url], {
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        // MOZ_REMOTE_SETTINGS_DEVTOOLS: release builds read services.settings.server only with it.
        env: { ...process.env, MOZ_HEADLESS: "1", MOZ_CRASHREPORTER_DISABLE: "1", MOZ_REMOTE_SETTINGS_DEVTOOLS: "1" },
      });
    });
    return { version: v, report };
  },
);

const CHROMIUM = process.env.DORY_CHROMIUM ?? "/usr/bin/chromium";
runtime(
  "chromium",
  () => (existsSync(CHROMIUM) ? null : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium; scripts/setup-browsers.sh does it)`),
  async () => {
    const v = version(CHROMIUM);
    const report = await inBrowser("chromium", (url, profile) =>
      spawn(
        CHROMIUM,
        [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--no-first-run",
          "--disable-quic",
          "--disable-component-update",
          "--disable-sync",
          "--disable-extensions",
          // Every name but loopback fails unresolved: no lookup leaves the machine.
          "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
          `--user-data-dir=${profile}`,
          url,
        ],
        { detached: true, stdio: ["ignore", "pipe", "pipe"] },
      ),
    );
    return { version: v, report };
  },
);
