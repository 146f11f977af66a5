// Exercises dory-wire/client against its declarations: `tsc --strict` must
// accept it (and reject the misuse marked with @ts-expect-error).
import { Buffer } from "node:buffer";
import {
  Client,
  StreamDisconnected,
  Transcript,
  DoryWireError,
  AnswerError,
  LossError,
  ProtocolError,
  ApiError,
  OffsetBeyondOutput,
  OutputGap,
  OutputExpired,
  SpillDirectory,
  type Computer,
  type RunOptions,
  type RunResult,
  type RunSpill,
  type DisconnectReason,
  type ExecResult,
  type Fetch,
  type Frame,
  type OutputStream,
  type Process,
  type ProcessIdentity,
} from "dory-wire/client";
import type { Cursor, End, Reconnect } from "dory-wire";

// A test double or a custom agent: any function of fetch's contract.
const scripted: Fetch = async (url, init) => {
  void url;
  void init.signal;
  return { status: 200, headers: { get: () => "application/x-ndjson" }, body: null };
};
new Client({ baseUrl: "http://127.0.0.1:8080", fetch: scripted, headers: { authorization: "Bearer t" }, livenessTimeoutMs: 30_000 });
// The platform's fetch fits.
new Client({ baseUrl: "http://127.0.0.1:8080", fetch });
// @ts-expect-error: baseUrl is a string
new Client({ baseUrl: new URL("http://x") });
// @ts-expect-error: unknown option
new Client({ base_url: "http://x" });
// A base URL string, like Python's Client(url); the bound on requests in flight.
const byUrl = new Client("http://127.0.0.1:8080", { maxConnections: 10, fetch: scripted });
const bound: number = byUrl.maxConnections;
void bound;
// @ts-expect-error: the base URL is given once
new Client("http://x", { baseUrl: "http://y" });
// computers.get is synchronous: no request.
const syncComputer: Computer = byUrl.computers.get("c1");
void syncComputer;

/** The documented loop: one frame at a time, offsets saved after each. */
async function documentedLoop(process_: Process): Promise<Buffer> {
  let offsets = { stdout_offset: 0, stderr_offset: 0 };
  const stdout: Buffer[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const stream: OutputStream = process_.iterOutput(offsets);
    try {
      for await (const frame of stream) {
        if (frame.type === "stdout" || frame.type === "stderr") {
          const bytes = Buffer.from(frame.data, frame.encoding === "base64" ? "base64" : "utf8");
          const exact: Uint8Array = frame.bytes;
          const range: [number, number, number] = [frame.start, frame.end, frame.offset];
          void exact;
          void range;
          if (frame.type === "stdout") stdout.push(bytes);
        }
        offsets = { stdout_offset: stream.stdout_offset, stderr_offset: stream.stderr_offset };
        if (frame.type === "exit") {
          const code: number | null = frame.exit_code;
          const timedOut: boolean = frame.timed_out;
          void [code, timedOut];
          return Buffer.concat(stdout);
        }
      }
    } catch (error) {
      if (error instanceof StreamDisconnected) {
        const reason: DisconnectReason = error.reason;
        const cursor: Cursor = error.cursor;
        const procId: string | null = error.proc_id;
        void [reason, cursor, procId];
        offsets = { stdout_offset: error.stdout_offset, stderr_offset: error.stderr_offset };
        continue;
      }
      if (error instanceof OutputGap) {
        const earliest: Cursor = error.earliest;
        void earliest;
      }
      throw error;
    } finally {
      await stream.close();
    }
  }
  throw new Error("incomplete");
}

function describeFrame(frame: Frame): string {
  switch (frame.type) {
    case "stdout":
    case "stderr":
      return `${frame.stream} ${frame.data.length} ${frame.encoding}`;
    case "exit":
      return `exit ${frame.exit_code} ${frame.timed_out}`;
    case "started":
      return frame.proc_id;
    case "identity":
      return `${frame.proc_id} ${frame.status}`;
    case "skipped":
      return `${frame.stream} ${frame.start}..${frame.end}`;
    case "heartbeat":
      return "heartbeat";
    case "unknown":
      return frame.frame_type;
  }
}

async function main(): Promise<void> {
  const client = new Client();
  try {
    const computer: Computer = client.computers.get("c1");
    const command = ["sh", "-c", "printf 'hello\\000\\377'"];
    const options = { timeout_seconds: 30, idempotency_key: "k1" };
    const started: ProcessIdentity = await computer.processes.start(command, options);
    if ((await computer.processes.start(command, options)).proc_id !== started.proc_id) throw new Error("replay");
    const handle = await computer.processes.get(started.proc_id);
    const status: "running" | "exited" = handle.status;
    void status;
    await documentedLoop(handle);

    // The one-call version: a core Transcript.
    const transcript: Transcript = await handle.readOutput({
      stdout_offset: 0,
      stderr_offset: 0,
      gapPolicy: "skip",
      retries: 5,
      backoffMs: 250,
      maxBackoffMs: 5000,
      jitter: false,
      onReconnect: (r) => void [r.reason, r.attempt, r.failures, r.delayMs, r.cursor.stdout, r.procId, r.detail],
    });
    const hook = (record: Reconnect): void => void record.delayMs;
    await handle.readOutput({ cursor: { stdout: 3, stderr: 1 }, onReconnect: hook });
    const fromCursor: OutputStream = handle.iterOutput({ cursor: { stdout: 3 } });
    void fromCursor;
    // @ts-expect-error: a cursor or the offsets, not both
    handle.iterOutput({ cursor: { stdout: 3 }, stdout_offset: 3 });
    // @ts-expect-error: the hook receives the core's record, not an error
    await handle.readOutput({ onReconnect: (e: StreamDisconnected) => void e });
    const lost: Array<[number, number]> = transcript.skipped("stdout");
    const bytes: Uint8Array = transcript.bytes("stderr");
    void [lost, bytes, transcript.exit?.exitCode];
    // @ts-expect-error: the gap policy is "fail" or "skip"
    await handle.readOutput({ gapPolicy: "ignore" });
    // @ts-expect-error: offsets are numbers
    handle.iterOutput({ stdout_offset: "0" });

    const result: ExecResult | ProcessIdentity = await computer.exec("printf x");
    if (result.type === "exec_result") {
      const out: Uint8Array = result.stdout;
      const truncated: boolean = result.stdout_truncated;
      void [out, truncated];
    } else {
      const id: string = result.proc_id;
      void id;
    }
    const exec = computer.execStream(["printf", "x"], { idempotency_key: "k2", gapPolicy: "fail", retries: 3, jitter: true, onReconnect: hook });
    for await (const frame of exec) void describeFrame(frame);
    const end: End | null = exec.end;
    void end;
    const logs = computer.setup.iterLogs({ offset: 0, follow: false });
    for await (const frame of logs) void frame;
    const setup: Transcript = await computer.setup.readLogs({ offset: 4 });
    void setup.text("stdout");
    const killed: ProcessIdentity = await handle.kill();
    void killed;
    const controller = new AbortController();
    const runOptions: RunOptions = {
      maxLines: 200,
      maxBytes: 8192,
      maxTokens: 2000,
      tokenizer: "approx",
      spill: new SpillDirectory("/tmp/dory-spill", { suffix: ".log" }),
      idempotencyKey: "tool-call-7",
      timeoutMs: 600_000,
      hint: "read it with exec_command",
      onOutput: ({ stream, data, text }) => void [stream, data.length, text],
      killOnCancel: true,
      signal: controller.signal,
      gapPolicy: "skip",
      retries: 3,
      backoffMs: 100,
      onReconnect: hook,
    };
    const ran: RunResult = await computer.run(["make", "test"], runOptions);
    const shown: string = ran.combined.text;
    const tokens: number | null = ran.combined.tokens;
    void tokens;
    const code: number | null = ran.exitCode;
    const lostBytes: number = ran.stdoutLostBytes + ran.stderrLostBytes;
    void [shown, code, lostBytes, ran.procId, ran.idempotencyKey, ran.timedOut, ran.stdout.spillPath, ran.stderr.spillError];
    const mine: RunSpill = {
      open: async (spillId: string) => ({ write: (data: Uint8Array) => void [spillId, data], commit: () => `/tmp/${spillId}`, discard: () => undefined }),
    };
    await computer.run("true", { spill: mine, onOutput: async () => {} });
    // The previews' options: on by default; off gives the raw text.
    await computer.run("true", { keep: null, terminal: false });
    await computer.run("true", { keep: "defaults", terminal: true });
    await computer.run("true", { keep: ["^FATAL", "panicked at"] });
    // @ts-expect-error: keep is null, "defaults" or patterns
    await computer.run("true", { keep: 1 });
    const file = await new SpillDirectory("/tmp/x").open("run-1-stdout");
    await file.write(new Uint8Array(1));
    const saved: string = await file.commit();
    void saved;
    // @ts-expect-error: run follows to the exit
    await computer.run("true", { follow: false });
    // @ts-expect-error: the run options are camelCase
    await computer.run("true", { idempotency_key: "k" });
    // @ts-expect-error: a spill writer for run has open(), not a (spillId, data) function
    await computer.run("true", { spill: (id: string) => id });
    // @ts-expect-error: commands are a string or strings
    await computer.processes.start([1, 2]);
    // @ts-expect-error: timeout_seconds is a number
    await computer.processes.start("x", { timeout_seconds: "30" });
  } catch (error) {
    if (error instanceof OutputExpired || error instanceof OffsetBeyondOutput || error instanceof ApiError) throw error;
    if (error instanceof LossError || error instanceof AnswerError || error instanceof ProtocolError) throw error;
    if (error instanceof DoryWireError) console.error(error.code);
    throw error;
  } finally {
    client.close();
  }
}

void main;
