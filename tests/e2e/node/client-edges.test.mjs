// The clients' edges, decided by the core and the same in every language: a
// consumer slower than the liveness timeout, a start on a refused
// connection, a redirect to another origin with credentials, and a start
// whose answer was lost (keyed: sent again; unkeyed: NoAnswer). The same
// four cases, against the same reference server, are in
// tests/e2e/python/test_client_edges.py and
// crates/dory-refserver/tests/clients.rs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, RefServer } from "./refserver.mjs";

const { Client, ApiError, NoAnswer } = await import(join(ROOT, "npm", "dist", "node", "client.mjs"));

const SLOW_LINES = "for i in 1 2 3 4 5 6; do echo $i; sleep 0.25; done";
const LINES = "1\n2\n3\n4\n5\n6\n";
const CONSUMER_MS = 800; // longer than the liveness timeout
const LIVENESS_MS = 500;

/** A loopback URL where nothing listens (the port was bound, then freed). */
async function closedPortUrl() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

async function withServer(args, body) {
  const server = await new RefServer(args).start();
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

test("a slow consumer reads every frame", async () => {
  await withServer(["--heartbeat-ms", "200"], async (server) => {
    const client = new Client({ baseUrl: server.url, livenessTimeoutMs: LIVENESS_MS });
    try {
      const { processes } = client.computers.get(server.computer);
      const started = await processes.start(SLOW_LINES);
      const process = await processes.get(started.proc_id);
      let got = "";
      // One response (iterOutput never reconnects): a false stall would throw.
      for await (const frame of process.iterOutput()) {
        if (frame.type === "stdout") {
          got += Buffer.from(frame.bytes).toString();
          await sleep(CONSUMER_MS);
        }
      }
      assert.equal(got, LINES);
    } finally {
      client.close();
    }
  });
});

test("a start on a refused connection is NoAnswer", async () => {
  const client = new Client({ baseUrl: await closedPortUrl() });
  try {
    const err = await client.computers.get("c1").processes.start("true").catch((e) => e);
    assert.ok(err instanceof NoAnswer, `${err}`);
    // Refused every time: never reached the service, so sent again until the budget is spent.
    assert.deepEqual(
      [err.code, err.reason, err.method, err.target, err.attempts, err.reached],
      ["no_answer", "not_connected", "POST", "/computers/c1/processes", 6, false],
    );
    assert.match(err.message, /it never reached the service$/);
    assert.ok(err.cause instanceof Error, "fetch's own error is the cause");
  } finally {
    client.close();
  }
});

test("a redirect is an answer, never followed", async () => {
  const elsewhere = await closedPortUrl(); // followed, the request would be refused instead
  await withServer(["--redirect-to", elsewhere], async (server) => {
    const client = new Client({ baseUrl: server.url, headers: { Authorization: "Bearer secret" } });
    try {
      const { processes } = client.computers.get(server.computer);
      for (const call of [() => processes.get("p_1"), () => processes.start("true")]) {
        const err = await call().catch((e) => e);
        assert.ok(err instanceof ApiError, `${err}`);
        assert.equal(err.status, 302);
        assert.match(err.message, /redirects are not followed/);
      }
    } finally {
      client.close();
    }
  });
});

test("a keyed start whose answer was lost is sent again; an unkeyed one is NoAnswer, sent once", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dory-edges-"));
  const marks = join(dir, "started");
  const command = `echo started >> ${marks}`;
  try {
    await withServer(["--lose-start-answers", "1"], async (server) => {
      const client = new Client({ baseUrl: server.url });
      try {
        const { processes } = client.computers.get(server.computer);
        const identity = await processes.start(command, { idempotency_key: "edge-1" });
        await server.waitExited(identity.proc_id);
        assert.equal(readFileSync(marks, "utf8"), "started\n", "it ran once");
        assert.equal((await processes.get(identity.proc_id)).proc_id, identity.proc_id);
      } finally {
        client.close();
      }
    });
    rmSync(marks);
    await withServer(["--lose-start-answers", "1"], async (server) => {
      const client = new Client({ baseUrl: server.url });
      try {
        const err = await client.computers.get(server.computer).processes.start(command).catch((e) => e);
        assert.ok(err instanceof NoAnswer, `${err}`);
        // Lost before or after its headers, depending on when the connection closed.
        assert.ok(["no_response", "end_of_body"].includes(err.reason), err.reason);
        assert.equal(err.attempts, 1);
        assert.match(err.message, /it may have taken effect/);
        for (let i = 0; i < 200 && !existsSync(marks); i++) await sleep(50);
        assert.equal(readFileSync(marks, "utf8"), "started\n", "never sent twice");
      } finally {
        client.close();
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
