#!/usr/bin/env node
// The seed's "complete retained-output program", on dory-wire and fetch.
//
// Starts one bounded process with a fresh idempotency key, replays the start to
// confirm the identity, follows the retained output from per-stream byte
// offsets (reconnecting from the consumed offsets when the connection drops, a
// bounded number of times), fails on a gap or expired output instead of
// restarting the command, verifies the exact bytes, and kills the process in
// cleanup.
//
// Environment:
//   DORY_URL              base URL of the server (default http://127.0.0.1:8080),
//                         e.g. the one `dory-refserver --port 0` prints
//   CE_COMPUTER_ID        the computer to use (default "c1"; the reference
//                         server serves any id unless started with --computer-id)
//   DORY_MAX_CONNECTIONS  how many output connections to open at most (default 5)
//
// Prints "Retained bytes and replay identity verified" and exits 0 on success;
// how many connections the output took goes to stderr.
//
// Run from a checkout after building the package (npm run build in npm/):
//   DORY_URL=http://127.0.0.1:41237 node npm/examples/retained-output.mjs

import { randomUUID } from "node:crypto";
import { Buffer } from "node:buffer";
import { Reader, iterEvents } from "dory-wire";

const BASE = (process.env.DORY_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
const COMPUTER = process.env.CE_COMPUTER_ID ?? "c1";
const MAX_CONNECTIONS = Number.parseInt(process.env.DORY_MAX_CONNECTIONS ?? "5", 10);

const COMMAND = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"];
const EXPECTED_STDOUT = Buffer.from([104, 101, 108, 108, 111, 0, 255]); // hello\0\xff
const EXPECTED_STDERR = Buffer.from("notice");

function url(path) {
  return `${BASE}/computers/${encodeURIComponent(COMPUTER)}${path}`;
}

/** A JSON identity answer, checked by the reader (Content-Type, shape, error answers). */
async function identity(method, path, body, headers = {}) {
  const response = await fetch(url(path), {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const reader = new Reader("document");
  const events = [];
  for await (const event of iterEvents(reader, response)) events.push(event);
  const document = events.find((e) => e.type === "identity");
  if (!document) throw new Error(`${method} ${path}: expected a process identity, got ${JSON.stringify(events)}`);
  return document;
}

/**
 * The body as it arrives. A dropped connection just ends it (fetch rejects the
 * read with "terminated"): the reader then reports `disconnected` with the
 * offsets to resume from.
 */
async function* bodyChunks(body) {
  if (body === null) return;
  const it = body[Symbol.asyncIterator]();
  for (;;) {
    let step;
    try {
      step = await it.next();
    } catch {
      return; // transport error: the connection is gone
    }
    if (step.done) return;
    yield step.value;
  }
}

/** The process's complete output, and how many connections it took. */
async function follow(procId) {
  let cursor = { stdout: 0, stderr: 0 };
  const output = { stdout: [], stderr: [] };
  for (let connection = 1; connection <= MAX_CONNECTIONS; connection++) {
    // The default gap policy is "fail": missing bytes throw OutputGap.
    const reader = new Reader("process_output", { cursor });
    const query = new URLSearchParams({
      stdout_offset: String(cursor.stdout),
      stderr_offset: String(cursor.stderr),
      follow: "true",
    });
    const response = await fetch(url(`/processes/${procId}/output?${query}`));
    reader.open(response.status, response.headers.get("content-type"), response.headers.get("ce-process-id"));
    // OutputGap and OutputExpired are thrown from this loop and end the program:
    // missing bytes require a caller decision; never reset to zero, never start
    // the command again. Only a dropped connection (below) is reconnect permission.
    for await (const event of iterEvents(reader, bodyChunks(response.body))) {
      if (event.type === "output") output[event.stream].push(Buffer.from(event.data));
    }
    const end = reader.end;
    if (end.type === "exited") {
      if (end.exitCode !== 0 || end.timedOut) {
        throw new Error(`guest process failed: exit code ${end.exitCode}, timed out ${end.timedOut}`);
      }
      return { stdout: Buffer.concat(output.stdout), stderr: Buffer.concat(output.stderr), connection };
    }
    if (end.type !== "disconnected") throw new Error(`unexpected end of the output stream: ${JSON.stringify(end)}`);
    // Reconnect to the retained output from the consumed offsets.
    cursor = end.cursor;
  }
  throw new Error(`output still incomplete after ${MAX_CONNECTIONS} connections (at ${JSON.stringify(cursor)})`);
}

async function main() {
  const key = randomUUID();
  const body = { command: COMMAND, timeout_seconds: 30 };
  const started = await identity("POST", "/processes", body, { "idempotency-key": key });
  try {
    // Replaying the same start key identifies the same process, not new work.
    const replay = await identity("POST", "/processes", body, { "idempotency-key": key });
    if (replay.procId !== started.procId) {
      throw new Error(`process replay changed identity: ${started.procId} then ${replay.procId}`);
    }
    const { stdout, stderr, connection } = await follow(started.procId);
    if (!stdout.equals(EXPECTED_STDOUT) || !stderr.equals(EXPECTED_STDERR)) {
      throw new Error(
        `output was incomplete or different: stdout ${JSON.stringify([...stdout])}, stderr ${JSON.stringify(stderr.toString("latin1"))}`,
      );
    }
    console.error(`retained output of ${started.procId} read over ${connection} connection(s)`);
    console.log("Retained bytes and replay identity verified");
  } finally {
    await identity("POST", `/processes/${started.procId}/kill`);
  }
}

await main();
