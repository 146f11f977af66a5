// The driver of the server-side runtimes (Node, Deno, Bun): run from a
// project that installed the packed tarball, it loads the package the way
// their users do (`import`, and `require` through node:module), runs the
// shared checks (checks.mjs) and prints the report as one line.
//
//   <runtime> main.mjs SERVER_URL COMPUTER_ID
import process from "node:process";
import { createRequire } from "node:module";
import * as api from "dory-wire";
import * as client from "dory-wire/client";
import { runChecks } from "./checks.mjs";
import vectors from "./vectors.mjs";

const require = createRequire(import.meta.url);
const [url, computer] = process.argv.slice(2);
await api.init(); // harmless where the module loads synchronously
const report = await runChecks({
  api,
  client,
  cjs: require("dory-wire"),
  vectors,
  server: url ? { url, computer } : undefined,
});
console.log(`DORY-RUNTIME-REPORT ${JSON.stringify(report)}`);
