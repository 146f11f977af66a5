// Exercises the whole public API against the declarations: `tsc --noEmit`
// must accept it (and reject misuse marked with @ts-expect-error).
import {
  init,
  Reader,
  Transcript,
  iterEvents,
  Utf8Decoder,
  DoryWireError,
  AnswerError,
  LossError,
  ProtocolError,
  ApiError,
  OffsetBeyondOutput,
  OutputGap,
  OutputExpired,
  UnsupportedContentType,
  MalformedFrame,
  UnexpectedFrame,
  IdentityMismatch,
  FrameTooLarge,
  InvalidState,
  InvalidLimits,
  IntegerOutOfRange,
  InvalidArgument,
  StreamDisconnected,
  Follower,
  Request,
  DEFAULT_RETRIES,
  DEFAULT_BACKOFF_MS,
  DEFAULT_MAX_BACKOFF_MS,
  ERROR_CODES,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_LIVENESS_TIMEOUT_MS,
  MAX_FRAME_BYTES_LIMIT,
  MIN_MAX_BYTES,
  memoryBytes,
  bound,
  boundAsync,
  countTokens,
  TOKENIZERS,
  StreamingBounder,
  RunBounder,
  RunPending,
  runSpillId,
  DEFAULT_RUN_MAX_LINES,
  DEFAULT_RUN_MAX_BYTES,
  MIN_RUN_MAX_BYTES,
  type View,
  type Cursor,
  type Disconnected,
  type End,
  type ErrorKind,
  type Event,
  type ExecResult,
  type Exited,
  type IterEventsOptions,
  type Output,
  type Preview,
  type ReaderOptions,
  type ReaderState,
  type ResumeState,
  type Skipped,
  type Stream,
  type Command,
  type Continue,
  type Decision,
  type Done,
  type FollowOptions,
  type FollowerState,
  type Method,
  type Reconnect,
  type Wait,
} from "dory-wire";

function describe(event: Event): string {
  switch (event.type) {
    case "started":
      return event.procId;
    case "output":
      return `${event.stream} ${event.data.byteLength} bytes [${event.start}, ${event.end})`;
    case "skipped":
      return `${event.stream} lost [${event.start}, ${event.end})`;
    case "heartbeat":
      return "heartbeat";
    case "exit":
      return `exit ${event.exitCode ?? "killed"} ${event.timedOut}`;
    case "unknown":
      return event.frameType;
    case "identity":
      return `${event.procId} ${event.status}`;
    case "exec_result":
      return `${event.procId} ${event.stdout.length} ${event.stderr.length} ${event.stdoutTruncated} ${event.stderrTruncated} ${event.exitCode} ${event.timedOut}`;
  }
}

function after(end: End): Cursor | null {
  switch (end.type) {
    case "exited":
      return end.exitCode === 0 && !end.timedOut ? null : null;
    case "disconnected":
      return end.reason === "stalled" || end.reason === "gap" || end.reason === "end_of_body" ? end.cursor : null;
    case "document":
      return null;
  }
}

export async function main(): Promise<void> {
  await init();
  const options: ReaderOptions = {
    cursor: { stdout: 0, stderr: 0 },
    gapPolicy: "skip",
    maxFrameBytes: Math.min(1 << 20, MAX_FRAME_BYTES_LIMIT),
    livenessTimeoutMs: DEFAULT_LIVENESS_TIMEOUT_MS,
    strict: false,
  };
  const reader = new Reader("exec", options);
  reader.open(200, "application/x-ndjson", "p_1");
  const events: Event[] = reader.feed(new Uint8Array([]));
  events.forEach(describe);
  const [last, end]: [Event[], End] = reader.finish();
  last.forEach(describe);
  after(end);
  const cursor: Cursor = reader.cursor;
  const pid: string | null = reader.procId;
  const state: ResumeState = reader.resumeState();
  const saved: [number, string | null, Cursor, boolean, number | null, boolean] = [state.version, state.procId, state.cursor, state.exitSeen, state.exitCode, state.timedOut];
  const json: string = reader.resumeStateJson();
  const again = Reader.resume("process_output", state, { gapPolicy: "fail" });
  Reader.resume("process_output", json);
  const deadline: number | null = again.pollTimeoutMs();
  const stalled: boolean = again.handleTimeoutMs(performance.now());
  const life: ReaderState = again.state;
  again.free();
  void [cursor, pid, saved, deadline, stalled, life, reader.end, DEFAULT_MAX_FRAME_BYTES, MIN_MAX_BYTES, memoryBytes()];

  const transcript = new Transcript();
  const followed = new Reader("process_output");
  followed.open(200, "application/x-ndjson", null);
  const others: Event[] = followed.feedInto(new Uint8Array(1), transcript);
  for (const e of followed.finish()[0]) transcript.push(e);
  transcript.finish();
  const stream: Stream = "stderr";
  const bytes: Uint8Array = transcript.bytes(stream);
  const text: string = transcript.text();
  const lost: Array<[number, number]> = transcript.skipped("stdout");
  const complete: boolean = transcript.isComplete(stream);
  const exit: { exitCode: number | null; timedOut: boolean } | null = transcript.exit;
  transcript.free();
  void [others, bytes, text, lost, complete, exit];

  const response = await fetch("http://127.0.0.1:1/computers/c/processes/p/output");
  const iterOptions: IterEventsOptions = { liveness: true, now: () => performance.now() };
  const gen = iterEvents(new Reader("process_output"), response, iterOptions);
  for await (const e of gen) describe(e);
  if (response.body) for await (const e of iterEvents(new Reader("exec"), response.body)) describe(e);
  for await (const e of iterEvents(new Reader("exec"), [new Uint8Array(1)])) describe(e);
  const output: Output | Skipped | ExecResult | Exited | Disconnected | null = null;
  void output;

  try {
    reader.feed(new Uint8Array(1));
  } catch (e) {
    if (e instanceof OutputGap) {
      const c: Cursor = e.earliest;
      const s: Stream = e.stream;
      void [c, e.consumed, s];
    } else if (e instanceof ApiError) {
      void [e.status, e.apiCode, e.serverMessage];
    } else if (e instanceof OutputExpired || e instanceof OffsetBeyondOutput) {
      void e.serverMessage;
    } else if (e instanceof UnsupportedContentType) {
      const ct: string = e.contentType;
      void ct;
    } else if (e instanceof MalformedFrame) {
      const line: number = e.line;
      void [line, e.reason];
    } else if (e instanceof UnexpectedFrame) {
      void [e.line, e.frameType, e.reason];
    } else if (e instanceof IdentityMismatch) {
      void [e.expected, e.found];
    } else if (e instanceof FrameTooLarge) {
      const limit: number = e.limit;
      void limit;
    } else if (e instanceof InvalidState || e instanceof InvalidLimits) {
      const reason: string = e.reason;
      void reason;
    } else if (e instanceof IntegerOutOfRange) {
      const value: bigint = e.value;
      void [e.field, value];
    } else if (e instanceof AnswerError || e instanceof LossError || e instanceof ProtocolError) {
      const kind: ErrorKind | null = e.kind;
      void kind;
    } else if (e instanceof DoryWireError) {
      void [e.code, e.kind, e.events];
    }
  }
  const gap = new OutputGap("output_gap: …", { stream: "stdout" });
  const base: LossError = gap;
  for (const row of ERROR_CODES) {
    const kind: ErrorKind = row.kind;
    void [row.code, row.class, kind, row.fields.join(",")];
  }
  void base;

  const p: Preview = bound("text", { maxLines: 20, maxBytes: 4096, spill: (id, data) => `/tmp/${id}-${data.length}`, spillId: "abc", hint: "cat it" });
  const q: Preview = await boundAsync(new Uint8Array(3), { maxLines: 20, maxBytes: 4096, spill: async (id) => `/tmp/${id}` });
  void [p.text, p.truncated, p.totalLines, p.totalBytes, p.headBytes, p.tailBytes, p.omittedLines, p.omittedBytes, p.omittedRange, p.spillId, p.spillPath, p.spillError, q];
  // The token limit: a third limit on every bounder; `tokens` its count.
  const names: readonly string[] = TOKENIZERS;
  const t: Preview = bound("text", { maxLines: 20, maxBytes: 4096, maxTokens: 500, tokenizer: names[0] });
  const counted: number | null = t.tokens;
  const recounted: number = countTokens(t.text, "approx") + countTokens(t.text);
  void [counted, recounted, t.toJSON().tokens, new StreamingBounder({ maxLines: 20, maxBytes: 4096, maxTokens: null, tokenizer: "approx" })];
  void new RunBounder({ maxLines: 20, maxBytes: 4096, maxTokens: 100, tokenizer: null });
  RunBounder.checkLimits(20, 4096, { maxTokens: 100, tokenizer: "approx" });
  // @ts-expect-error: maxTokens is a number
  bound("x", { maxLines: 3, maxBytes: 300, maxTokens: "100" });
  // @ts-expect-error: countTokens counts text
  countTokens(new Uint8Array(1), "approx");
  const sb = new StreamingBounder({ maxLines: 20, maxBytes: 4096, spillId: null });
  sb.push("chunk");
  sb.push(new Uint8Array(2));
  void [sb.totalBytes, sb.retainedBytes];
  const r: Preview = sb.finish({ spill: (id) => `/tmp/${id}`, hint: null });
  const s: Preview = await new StreamingBounder({ maxLines: 2, maxBytes: 300 }).finishAsync({ spill: async () => null });
  void [r, s];
  const d = new Utf8Decoder();
  const decoded: string = d.push(new Uint8Array([0xc3])) + d.finish();
  d.free();
  void decoded;

  // @ts-expect-error: endpoints are a closed set
  new Reader("stdout");
  // @ts-expect-error: feed takes bytes, not text
  reader.feed("text");
  // @ts-expect-error: an End carries no events
  void end.events;
  // @ts-expect-error: the views take a stream name
  transcript.bytes("stdin");
  // @ts-expect-error: limits are required
  bound("x", { maxLines: 3 });
  // @ts-expect-error: a sync writer cannot be async for bound()... it can return only a path
  bound("x", { maxLines: 3, maxBytes: 300, spill: async () => "/tmp/x" });
}

/** A whole read driven through a Follower over fetch: the loop of its documentation. */
export async function follow(base: string): Promise<number | null> {
  const options: FollowOptions = {
    follow: true,
    gapPolicy: "fail",
    retries: DEFAULT_RETRIES,
    backoffMs: DEFAULT_BACKOFF_MS,
    maxBackoffMs: DEFAULT_MAX_BACKOFF_MS,
    jitter: true,
    livenessTimeoutMs: DEFAULT_LIVENESS_TIMEOUT_MS,
    maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
    strict: false,
  };
  const defaults: Readonly<Required<FollowOptions>> = Follower.defaults;
  const follower = Follower.processOutput("c1", "p1", { ...options, cursor: { stdout: 0 } });
  const transcript = new Transcript();
  for (;;) {
    const r: Request = follower.request();
    const method: Method = r.method;
    const wait: Wait = r.wait;
    const query: ReadonlyArray<readonly [string, string]> = r.query;
    const response = await fetch(base + r.target, { method, headers: { ...r.headers }, body: r.body });
    follower.open(response.status, response.headers.get("content-type"), response.headers.get("ce-process-id"), response.headers.get("retry-after"));
    try {
      const body = response.body?.getReader();
      for (let step = await body?.read(); step && !step.done; step = await body?.read()) follower.feedInto(step.value, transcript);
    } catch (error) {
      const [, broken] = follower.finish(error instanceof Error ? error : String(error), Math.random());
      void broken;
      continue;
    }
    const [events, decision]: [Event[], Decision] = follower.finish();
    events.forEach(describe);
    void [wait, query, r.path, r.idempotent, defaults];
    switch (decision.type) {
      case "done": {
        const done: Done = decision;
        const at: Cursor = done.cursor;
        void [at, done.exited, done.timedOut, done.procId];
        return done.exitCode;
      }
      case "reconnect": {
        const again: Reconnect = decision;
        void [again.attempt, again.failures, again.reason, again.cursor, again.procId, again.detail];
        await new Promise((resolve) => setTimeout(resolve, again.delayMs));
        break;
      }
      case "continue": {
        const next: Continue = decision;
        void next;
        break;
      }
    }
  }
}

export function conversations(): void {
  const command: Command = ["sh", "-c", "echo hi"];
  const exec = Follower.execStream("c1", command, { timeoutMs: 30_000, idempotencyKey: "k1", retries: 2 });
  const logs = Follower.setupLogs("c1", { offset: 5, follow: false });
  const resumed = Follower.resume("c1", exec.resumeState(), { gapPolicy: "skip" });
  Follower.resume("c1", logs.resumeStateJson());
  exec.request();
  const decision: Decision = exec.noResponse(new Error("connection reset"), 0.5);
  const gone: Decision = exec.noResponse();
  const refused: Decision = exec.notConnected(new Error("connect ECONNREFUSED"), 0.5);
  void [decision, gone, refused];
  const state: FollowerState = resumed.state;
  const limit: number | null = resumed.waitLimitMs();
  const over: boolean = resumed.waitedMs(250);
  const resumeState: ResumeState = resumed.resumeState();
  void [state, limit, over, resumeState, resumed.cursor, resumed.procId, resumed.attempts, resumed.options.retries];
  resumed.open(200, "application/x-ndjson");
  resumed.feed(new Uint8Array(1));
  resumed.free();
  logs.free();

  const start: Request = Request.start("c1", "echo hi", { timeoutMs: 30_000, idempotencyKey: null });
  const run: Request = Request.exec("c1", ["true"], { stream: true });
  const get: Request = Request.getProcess("c1", "p1");
  const kill: Request = Request.kill("c1", "p1");
  const output: Request = Request.output("c1", "p1", { stdout: 3 }, true);
  const setup: Request = Request.setupLogs("c1", 0, false);
  void [start.body, run.headers["Accept"], get.target, kill.method, output.query, setup.wait];

  try {
    Request.start("", "x");
  } catch (e) {
    if (e instanceof InvalidArgument) {
      const argument: string = e.argument;
      const reason: string = e.reason;
      void [argument, reason];
    } else if (e instanceof StreamDisconnected) {
      const cursor: Cursor = e.cursor;
      const procId: string | null = e.procId;
      const offsets: [number, number] = [e.stdout_offset, e.stderr_offset];
      const reason: "end_of_body" | "gap" | "stalled" | "no_response" | "not_connected" | "unavailable" = e.reason;
      void [cursor, procId, offsets, reason, e.proc_id];
    }
  }

  RunBounder.checkLimits(DEFAULT_RUN_MAX_LINES, Math.max(DEFAULT_RUN_MAX_BYTES, MIN_RUN_MAX_BYTES));
  const runBounder = new RunBounder({ maxLines: 40, maxBytes: 2000, spillId: runSpillId("key-1") });
  runBounder.push("stdout", "compiling\n");
  runBounder.push("stderr", new Uint8Array([101, 10]));
  runBounder.lose("stdout", 10, 20n);
  const runIds: Array<string | null> = (["stdout", "stderr", "combined"] as const).map((v) => runBounder.spillId(v));
  void [runIds, runBounder.totalBytes("combined"), runBounder.lostBytes("stdout"), runBounder.retainedBytes];
  const pendingRun: RunPending = runBounder.finish();
  const views: View[] = ["stdout", "stderr", "combined"];
  for (const view of views) {
    const shown: Preview = pendingRun.needsSpill(view) ? pendingRun.render(view, { spillPath: `/w/${pendingRun.spillId(view)}.txt`, hint: null }) : pendingRun.render(view);
    const { bytes, ranges }: { bytes: number; ranges: number } = pendingRun.lost(view);
    void [shown.text, bytes, ranges, pendingRun.totalBytes(view)];
  }
  void pendingRun.renderWriter("combined", { threw: new Error("disk full") });
  void pendingRun.renderWriter("combined", { returned: 42, hint: "cat it" });
  // @ts-expect-error: a view is stdout, stderr or combined
  pendingRun.render("both");
  // @ts-expect-error: a RunPending comes from RunBounder.finish()
  new RunPending();
  // @ts-expect-error: only the streams are pushed to
  runBounder.push("combined", "x");

  // @ts-expect-error: followers are built by the static constructors
  new Follower();
  // @ts-expect-error: options are the core's names in JS case
  Follower.processOutput("c1", "p1", { gap_policy: "skip" });
  // @ts-expect-error: a command is a string or strings
  Request.start("c1", [1, 2]);
  // @ts-expect-error: a request is frozen
  start.target = "/elsewhere";
}
