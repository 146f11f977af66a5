#!/usr/bin/env node
// The complete retained-output program of the Dory documentation, on
// dory-wire/client.
//
// Starts one bounded process with a fresh idempotency key, replays the start to
// confirm the identity, follows the retained output from per-stream byte
// offsets (reconnecting from the consumed offsets on StreamDisconnected, a
// bounded number of times), fails on a gap or expired output instead of
// restarting the command, verifies the exact bytes (a NUL and a non-UTF-8 byte
// included), and kills the process in cleanup.
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
import { Client, StreamDisconnected } from "dory-wire/client";

const MAX_CONNECTIONS = Number.parseInt(process.env.DORY_MAX_CONNECTIONS ?? "5", 10);
const COMMAND = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"];
const EXPECTED_STDOUT = Buffer.from([104, 101, 108, 108, 111, 0, 255]); // hello\0\xff
const EXPECTED_STDERR = Buffer.from("notice");

const client = new Client({ baseUrl: process.env.DORY_URL ?? "http://127.0.0.1:8080" });
try {
  const computer = client.computers.get(process.env.CE_COMPUTER_ID ?? "c1");
  const options = { timeout_seconds: 30, idempotency_key: randomUUID() };
  const started = await computer.processes.start(COMMAND, options);
  try {
    // Replaying the same start key identifies the same process, not new work.
    const replay = await computer.processes.start(COMMAND, options);
    if (replay.proc_id !== started.proc_id) {
      throw new Error(`process replay changed identity: ${started.proc_id} then ${replay.proc_id}`);
    }
    const handle = await computer.processes.get(started.proc_id);
    let offsets = { stdout_offset: 0, stderr_offset: 0 };
    const output = { stdout: [], stderr: [] };
    let exit = null;
    let connections = 0;
    while (exit === null && connections < MAX_CONNECTIONS) {
      connections++;
      const stream = handle.iterOutput(offsets);
      try {
        for await (const frame of stream) {
          // `bytes` are the core's exact decoding (re-sent overlap trimmed);
          // `data`/`encoding` are the same bytes in the wire's form.
          if (frame.type === "stdout" || frame.type === "stderr") output[frame.type].push(frame.bytes);
          offsets = { stdout_offset: stream.stdout_offset, stderr_offset: stream.stderr_offset };
          if (frame.type === "exit") exit = frame;
        }
      } catch (error) {
        // Only a dropped connection is reconnect permission. OutputGap and
        // OutputExpired end the program: missing bytes need a caller decision;
        // never reset to zero, never start the command again.
        if (!(error instanceof StreamDisconnected)) throw error;
        offsets = { stdout_offset: error.stdout_offset, stderr_offset: error.stderr_offset };
      } finally {
        await stream.close();
      }
    }
    if (exit === null) {
      throw new Error(`output still incomplete after ${MAX_CONNECTIONS} connections (at ${JSON.stringify(offsets)})`);
    }
    if (exit.exit_code !== 0 || exit.timed_out) {
      throw new Error(`guest process failed: exit code ${exit.exit_code}, timed out ${exit.timed_out}`);
    }
    const stdout = Buffer.concat(output.stdout);
    const stderr = Buffer.concat(output.stderr);
    if (!stdout.equals(EXPECTED_STDOUT) || !stderr.equals(EXPECTED_STDERR)) {
      throw new Error(
        `output was incomplete or different: stdout ${JSON.stringify([...stdout])}, stderr ${JSON.stringify(stderr.toString("latin1"))}`,
      );
    }
    console.error(`retained output of ${started.proc_id} read over ${connections} connection(s)`);
    console.log("Retained bytes and replay identity verified");
  } finally {
    await computer.processes.kill(started.proc_id);
  }
} finally {
  client.close();
}
