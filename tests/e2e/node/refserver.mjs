// Start and stop the reference server (`dory-refserver`) for the Node
// end-to-end tests, and read process output with the npm package; the seeded
// trials' shared part (runTrials).
//
// The binary is $DORY_REFSERVER_BIN when set, else target/debug/dory-refserver
// (scripts/test-e2e.sh builds it first). Each server listens on a free loopback
// port (--port 0; the URL is read from the one line it prints) and is always
// stopped with SIGTERM, then SIGKILL if it does not exit.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Buffer } from "node:buffer";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const wire = await import(join(ROOT, "npm", "dist", "node", "index.mjs"));
const { Reader, iterEvents } = wire;

const START_TIMEOUT_MS = 30_000; // hang guard
const STOP_TIMEOUT_MS = 15_000; // hang guard

export function serverBinary() {
  const path = process.env.DORY_REFSERVER_BIN || join(ROOT, "target", "debug", "dory-refserver");
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `dory-refserver binary not found at ${path}: run \`cargo build -p dory-refserver\` (scripts/test-e2e.sh does) or set DORY_REFSERVER_BIN`,
    );
  }
  return path;
}

export class RefServer {
  /** @param {string[]} args extra flags, e.g. ["--retention-bytes", "1000"] */
  constructor(args = [], env = {}) {
    this.args = ["--port", "0", ...args];
    this.env = env;
    this.child = null;
    this.url = "";
    this.computer = process.env.CE_COMPUTER_ID ?? "e2e";
  }

  async start() {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("DORY_")));
    const child = spawn(serverBinary(), this.args, { env: { ...env, ...this.env }, stdio: ["ignore", "pipe", "pipe"] });
    this.child = child;
    this.exited = new Promise((res) => child.once("exit", (code, signal) => res({ code, signal })));
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    try {
      this.url = await new Promise((res, rej) => {
        let out = "";
        const timer = setTimeout(() => rej(new Error(`dory-refserver ${this.args.join(" ")} printed no URL within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
        child.stdout.on("data", (d) => {
          out += d;
          const nl = out.indexOf("\n");
          if (nl < 0) return;
          clearTimeout(timer);
          const line = out.slice(0, nl).trim();
          if (!line.startsWith("listening on ")) rej(new Error(`unexpected first line from dory-refserver: ${line}`));
          else res(line.slice("listening on ".length));
        });
        child.once("exit", (code) => {
          clearTimeout(timer);
          rej(new Error(`dory-refserver exited (${code}) before listening: ${stderr}`));
        });
        child.once("error", (e) => {
          clearTimeout(timer);
          rej(e);
        });
      });
    } catch (error) {
      await this.stop();
      throw error;
    }
    return this;
  }

  async stop() {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    let timer;
    const killed = new Promise((res) => {
      timer = setTimeout(() => {
        child.kill("SIGKILL");
        res();
      }, STOP_TIMEOUT_MS);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    await this.exited;
  }

  path(suffix) {
    return `${this.url}/computers/${encodeURIComponent(this.computer)}${suffix}`;
  }

  /** One request, whole body: {status, contentType, procId, body: Buffer}. */
  async request(method, suffix, body, headers = {}) {
    const response = await fetch(this.path(suffix), {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      procId: response.headers.get("ce-process-id"),
      body: Buffer.from(await response.arrayBuffer()),
    };
  }

  async json(method, suffix, body, headers) {
    const r = await this.request(method, suffix, body, headers);
    if (r.status !== 200 || !(r.contentType ?? "").startsWith("application/json")) {
      throw new Error(`${method} ${suffix}: ${r.status} ${r.contentType} ${r.body.subarray(0, 500)}`);
    }
    return JSON.parse(r.body.toString());
  }

  async startProcess(command, { key, timeout } = {}) {
    const body = { command };
    if (timeout !== undefined) body.timeout_seconds = timeout;
    const identity = await this.json("POST", "/processes", body, key ? { "idempotency-key": key } : {});
    return identity.proc_id;
  }

  kill(procId) {
    return this.json("POST", `/processes/${procId}/kill`);
  }

  /** Polls the identity until the process has exited (hang guard: timeoutMs). */
  async waitExited(procId, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    while ((await this.json("GET", `/processes/${procId}`)).status !== "exited") {
      if (Date.now() > deadline) throw new Error(`process ${procId} still running after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** Runs `fn(server)` with a started server, always stopping it. */
export async function withServer(args, fn, env) {
  const server = await new RefServer(args, env).start();
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/**
 * The body as it arrives. A connection cut by the server (fetch rejects the
 * read with "terminated") just ends it: the reader then reports
 * `disconnected`, which is exactly what happened.
 */
export async function* bodyChunks(body) {
  if (body === null) return;
  const it = body[Symbol.asyncIterator]();
  for (;;) {
    let step;
    try {
      step = await it.next();
    } catch {
      return;
    }
    if (step.done) return;
    yield step.value;
  }
}

/**
 * Reads a process's retained output with a Reader, reconnecting from the
 * consumed offsets after each `disconnected` end until `exited` (or after one
 * connection with follow=false). Reader errors (OutputGap, ...) propagate;
 * maxConnections is a hang guard.
 */
export async function followOutput(server, procId, { cursor, gapPolicy = "fail", follow = true, maxConnections = 100 } = {}) {
  const got = { stdout: [], stderr: [], events: [], ends: [], connections: 0 };
  for (;;) {
    if (got.connections >= maxConnections) {
      throw new Error(`${procId}: no exit after ${maxConnections} connections (at ${JSON.stringify(cursor)})`);
    }
    got.connections++;
    const reader = new Reader("process_output", { cursor, gapPolicy });
    const query = new URLSearchParams({
      stdout_offset: String(reader.cursor.stdout),
      stderr_offset: String(reader.cursor.stderr),
      follow: String(follow),
    });
    const response = await fetch(server.path(`/processes/${procId}/output?${query}`));
    reader.open(response.status, response.headers.get("content-type"), response.headers.get("ce-process-id"));
    for await (const event of iterEvents(reader, bodyChunks(response.body))) {
      if (event.type === "output") {
        const copy = Buffer.from(event.data); // event data may be views into a shared buffer
        got[event.stream].push(copy);
        got.events.push({ ...event, data: copy });
      } else {
        got.events.push(event);
      }
    }
    const end = reader.end;
    got.ends.push(end);
    got.end = end;
    if (end.type !== "disconnected" || !follow) break;
    cursor = end.cursor;
  }
  got.stdout = Buffer.concat(got.stdout);
  got.stderr = Buffer.concat(got.stderr);
  got.reconnects = got.connections - 1;
  return got;
}

// ------------------------------------------------------------ seeded trials

export const TRIALS = Number.parseInt(process.env.DORY_E2E_TRIALS ?? "200", 10);
export const SEED = Number.parseInt(process.env.DORY_E2E_SEED ?? "6", 10);
export const TRIAL_PARALLEL = 4;
const STREAMS = ["stdout", "stderr"];

const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * A shell script writing `bytesPerStream` random bytes to stdout and as many
 * to stderr, interleaved in blocks of seeded random sizes (`r.int(lo, hi)`),
 * and appending each block to the file of its stream in `dir` too (tee).
 */
export function trialCommand(r, dir, bytesPerStream) {
  const files = { stdout: quote(join(dir, "stdout")), stderr: quote(join(dir, "stderr")) };
  const blocks = [];
  for (const stream of STREAMS) {
    for (let left = bytesPerStream; left > 0; ) {
      const size = Math.min(left, r.int(1, Math.max(1, Math.floor(bytesPerStream / 4))));
      blocks.push([stream, size]);
      left -= size;
    }
  }
  for (let i = blocks.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [blocks[i], blocks[j]] = [blocks[j], blocks[i]];
  }
  const lines = ["set -e", `: > ${files.stdout}`, `: > ${files.stderr}`];
  for (const [stream, size] of blocks) {
    lines.push(`head -c ${size} /dev/urandom | tee -a ${files[stream]}${stream === "stderr" ? " >&2" : ""}`);
  }
  return lines.join("\n");
}

/**
 * Each stream read (`got.stdout`, `got.stderr`: Buffers) equals the file the
 * process wrote in `dir`, byte for byte; then `dir` is removed.
 */
export function checkTrialOutput(dir, got, bytesPerStream, context) {
  for (const stream of STREAMS) {
    const written = readFileSync(join(dir, stream));
    assert.equal(written.length, bytesPerStream, `${context}: the process wrote ${written.length} ${stream} bytes`);
    const data = got[stream];
    if (!data.equals(written)) {
      let first = 0;
      while (first < Math.min(data.length, written.length) && data[first] === written[first]) first++;
      assert.fail(`${context}: ${stream} differs: got ${data.length} bytes, wrote ${written.length}, first difference at ${first}`);
    }
  }
  rmSync(dir, { recursive: true });
}

/**
 * Runs TRIALS trials, TRIAL_PARALLEL at a time, against one server that cuts
 * every response after a seeded random 1..=`dropMax` body bytes (seed SEED).
 * `open(server)` answers `{ trial, close }`: `trial(n, dir)` runs trial `n` in
 * a fresh empty directory and answers a number; `close()`, if given, is called
 * after the last. The numbers, in trial order.
 */
export async function runTrials(prefix, dropMax, open) {
  const drop = ["--drop-seed", String(SEED), "--drop-probability", "1.0", "--drop-max-bytes", String(dropMax)];
  const root = mkdtempSync(join(tmpdir(), prefix));
  try {
    const results = await withServer(drop, async (server) => {
      const { trial, close } = await open(server);
      try {
        const out = new Array(TRIALS);
        let next = 0;
        const worker = async () => {
          while (next < TRIALS) {
            const n = next++;
            const dir = join(root, `trial-${n}`);
            mkdirSync(dir);
            out[n] = await trial(n, dir);
          }
        };
        await Promise.all(Array.from({ length: TRIAL_PARALLEL }, worker));
        return out;
      } finally {
        close?.();
      }
    });
    assert.equal(results.length, TRIALS);
    return results;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
