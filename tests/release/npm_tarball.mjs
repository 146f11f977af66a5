// Checks the npm tarball as users get it: the exact file list (a stray or a
// missing file fails), its size, `publint` (package.json entry points and
// exports) and `attw` (the types resolve under node10, node16 CJS and ESM and
// bundler resolution). Run after the package is built (npm/dist).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const here = new URL(".", import.meta.url).pathname;
const npmDir = new URL("../../npm/", import.meta.url).pathname;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let failed = false;
const fail = (msg) => {
  console.error(`npm-tarball: ${msg}`);
  failed = true;
};

const scratch = mkdtempSync(join(tmpdir(), "dory-wire-tarball-"));
try {
  const [packed] = JSON.parse(
    execFileSync(npm, ["pack", "--json", "--pack-destination", scratch], { cwd: npmDir, encoding: "utf8" }),
  );
  const files = packed.files.map((f) => f.path).sort();
  const expected = readFileSync(join(here, "npm-files.txt"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .sort();
  const stray = files.filter((f) => !expected.includes(f));
  const missing = expected.filter((f) => !files.includes(f));
  if (stray.length) fail(`files in the tarball that tests/release/npm-files.txt does not list: ${stray.join(", ")}`);
  if (missing.length) fail(`files listed in tests/release/npm-files.txt but missing from the tarball: ${missing.join(", ")}`);
  console.log(
    `npm-tarball: ${packed.filename}: ${files.length} files, ${(packed.size / 1024).toFixed(1)} KiB packed, ` +
      `${(packed.unpackedSize / 1024).toFixed(1)} KiB unpacked`,
  );
  for (const f of packed.files.filter((f) => f.path.endsWith(".wasm"))) {
    console.log(`npm-tarball:   ${f.path}: ${(f.size / 1024).toFixed(1)} KiB`);
  }

  const pkg = JSON.parse(readFileSync(join(npmDir, "package.json"), "utf8"));
  const { messages } = await publint({ pkgDir: npmDir, level: "suggestion", strict: true, pack: "npm" });
  for (const m of messages) {
    const line = `publint ${m.type}: ${formatMessage(m, pkg)}`;
    if (m.type === "suggestion") console.log(line);
    else fail(line);
  }
  console.log(`npm-tarball: publint: ${messages.length} message(s)`);

  const tarball = join(scratch, readdirSync(scratch).find((f) => f.endsWith(".tgz")));
  const attw = join(here, "node_modules", ".bin", "attw");
  try {
    // `dory-wire/web` is the browser build, an ES module on purpose: a require()
    // of it resolving to ESM is expected, and every other entry point has a
    // CommonJS build (checked by npm/test/pack.test.mjs through require()).
    // `dory-wire/web.wasm` is its WebAssembly file, no JavaScript: Workers
    // import it as a module (tests/runtimes checks it in workerd).
    const out = execFileSync(
      attw,
      [tarball, "--format", "table-flipped", "--no-color", "--exclude-entrypoints", "./web", "./web.wasm"],
      { encoding: "utf8" },
    );
    console.log(out.trim());
  } catch (e) {
    console.error((e.stdout ?? "") + (e.stderr ?? ""));
    fail("attw found problems with the types (above)");
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
