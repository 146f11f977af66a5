// The Dory documentation's TypeScript retained-output program
// (documentation-program.ts: the documentation's text, its import naming
// dory-wire/client) runs unchanged on dory-wire/client against the reference
// server, clean and with every response cut after 80 bytes. It runs as a
// module of its own in a temporary directory whose node_modules/dory-wire is
// the package in npm/, so its import resolves as in a project that installed it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, withServer } from "./refserver.mjs";

const PROGRAM = readFileSync(new URL("documentation-program.ts", import.meta.url), "utf8");

for (const drop of [null, "80"]) {
  test(`the documentation's TypeScript program runs unchanged on dory-wire/client: ${drop ? `every response cut after ${drop} bytes` : "clean"}`, async () => {
    assert.match(PROGRAM, /^import \{ Client, StreamDisconnected \} from "dory-wire\/client";$/m);
    const dir = mkdtempSync(join(tmpdir(), "dory-docs-program-"));
    try {
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(join(ROOT, "npm"), join(dir, "node_modules", "dory-wire"), "dir");
      writeFileSync(join(dir, "program.mjs"), PROGRAM);
      await withServer(drop ? ["--drop-after-bytes", drop] : [], async (server) => {
        const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(dir, "program.mjs")], {
          cwd: dir,
          env: { ...process.env, DORY_URL: server.url, CE_COMPUTER_ID: "docs" },
          timeout: 120_000,
        });
        assert.equal(stdout, "Retained bytes and replay identity verified\n");
        assert.equal(stderr, "");
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
