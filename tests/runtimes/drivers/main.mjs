// The driver of the server-side runtimes (Node, Deno, Bun): run from a
// project that installed the packed tarball, it loads the package the way
// their users do (`import`, and `require` through node:module), runs the
// shared checks (checks.mjs) and prints the report as one line. SPILL_DIR,
// an empty directory, is where the run's SpillDirectory writes (the checks
// read it back through node:fs).
//
//   <runtime> main.mjs SERVER_URL COMPUTER_ID SPILL_DIR
import process from "node:process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import * as api from "dory-wire";
import * as client from "dory-wire/client";
import { runChecks } from "./checks.mjs";
import vectors from "./vectors.mjs";

const require = createRequire(import.meta.url);
const [url, computer, spills] = process.argv.slice(2);
const files = spills
  ? {
      dir: spills,
      list: (dir) => readdirSync(dir),
      stat: (path) => {
        const s = statSync(path);
        return { size: s.size, mode: s.mode };
      },
      read: (path) => new Uint8Array(readFileSync(path)),
    }
  : undefined;
await api.init(); // harmless where the module loads synchronously
const report = await runChecks({
  api,
  client,
  cjs: require("dory-wire"),
  vectors,
  server: url ? { url, computer } : undefined,
  files,
});
console.log(`DORY-RUNTIME-REPORT ${JSON.stringify(report)}`);
