// The Dory documentation's TypeScript retained-output program, as the
// documentation writes it but for its import, which names dory-wire/client.
// documentation-program.test.mjs runs it (it is also valid JavaScript).

import { randomUUID } from "node:crypto";
import { Buffer } from "node:buffer";
import { Client, StreamDisconnected } from "dory-wire/client";

const id = process.env.CE_COMPUTER_ID;
if (!id) throw new Error("Set CE_COMPUTER_ID");
const client = new Client();
try {
  const computer = client.computers.get(id);
  const command = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"];
  const options = { timeout_seconds: 30, idempotency_key: randomUUID() };
  const started = await computer.processes.start(command, options);
  try {
    if ((await computer.processes.start(command, options)).proc_id !== started.proc_id) throw new Error("Replay identity changed");
    const handle = await computer.processes.get(started.proc_id);
    let offsets = { stdout_offset: 0, stderr_offset: 0 };
    /** @type {Buffer[]} */
    const stdout = [];
    /** @type {Buffer[]} */
    const stderr = [];
    let finished = false;
    for (let attempt = 0; attempt < 3; attempt++) {
      const stream = handle.iterOutput(offsets);
      try {
        for await (const frame of stream) {
          if (frame.type === "stdout" || frame.type === "stderr") {
            const bytes = Buffer.from(frame.data, frame.encoding === "base64" ? "base64" : "utf8");
            (frame.type === "stdout" ? stdout : stderr).push(bytes);
          }
          offsets = { stdout_offset: stream.stdout_offset, stderr_offset: stream.stderr_offset };
          if (frame.type === "exit") {
            if (frame.exit_code !== 0 || frame.timed_out) throw new Error("Guest process failed");
            finished = true;
          }
        }
        if (finished) break;
      } catch (error) {
        offsets = { stdout_offset: stream.stdout_offset, stderr_offset: stream.stderr_offset };
        // OutputGap/OutputExpired and other errors are not reconnect permission.
        if (!(error instanceof StreamDisconnected) || attempt === 2) throw error;
      } finally { await stream.close(); }
    }
    if (!finished || !Buffer.concat(stdout).equals(Buffer.from([104, 101, 108, 108, 111, 0, 255]))
        || Buffer.concat(stderr).toString() !== "notice") throw new Error("Incomplete retained output");
    console.log("Retained bytes and replay identity verified");
  } finally { await computer.processes.kill(started.proc_id); }
} finally { client.close(); }

