// The npm package ships the component and its WIT as `dory-wire/component`:
// the subpath gives their URLs (ESM and CommonJS), `dory-wire/component/*`
// resolves to the files, they are the last build and the WIT sources, and
// `npm pack` puts them in the tarball.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";

import { rootDir } from "./lib.mjs";

const npmDir = join(rootDir, "npm");
const witDir = join(rootDir, "bindings", "component", "wit");
const witFiles = readdirSync(witDir).filter((f) => f.endsWith(".wit")).sort();
const built = readFileSync(join(rootDir, "target", "component", "dory-wire.wasm"));
const require = createRequire(join(npmDir, "package.json"));

function checkUrls({ componentUrl, witUrl }, how) {
  assert.ok(readFileSync(componentUrl).equals(built), `${how}: ${componentUrl} is not the last build`);
  assert.ok(witFiles.length > 0);
  for (const f of witFiles) {
    assert.equal(readFileSync(new URL(f, witUrl), "utf8"), readFileSync(join(witDir, f), "utf8"), `${how}: ${f} differs from bindings/component/wit`);
  }
}

test("dory-wire/component gives the URLs of the component and its WIT (import and require)", () => {
  // The package imports itself by name from its own directory (self-reference).
  const script = "import * as c from 'dory-wire/component'; console.log(JSON.stringify([c.componentUrl.href, c.witUrl.href]))";
  const [componentUrl, witUrl] = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: npmDir, encoding: "utf8" }));
  checkUrls({ componentUrl: new URL(componentUrl), witUrl: new URL(witUrl) }, "import");
  checkUrls(require("dory-wire/component"), "require");
  assert.equal(require.resolve("dory-wire/component/dory-wire.wasm"), join(npmDir, "component", "dory-wire.wasm"));
  assert.equal(require.resolve("dory-wire/component/wit/decode.wit"), join(npmDir, "component", "wit", "decode.wit"));
});

test("npm pack puts the component, its entry points and its WIT in the tarball", () => {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: npmDir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const files = JSON.parse(out)[0].files.map((f) => f.path);
  const needed = ["dory-wire.wasm", "index.mjs", "index.cjs", "index.d.ts", "index.d.cts", ...witFiles.map((f) => `wit/${f}`)];
  for (const f of needed) assert.ok(files.includes(`component/${f}`), `component/${f} missing from the tarball`);
  assert.ok(!files.some((f) => f.startsWith("component/.")), "dot files of npm/component are not shipped");
});
