// Exercises the whole public API against the declarations: `tsc --noEmit`
// must accept it (and reject misuse marked with @ts-expect-error).
import {
  init,
  OutputReader,
  readEvents,
  Utf8Decoder,
  DoryWireError,
  OutputGap,
  OutputExpired,
  OffsetBeyondOutput,
  ApiError,
  ProtocolError,
  MAX_FRAME_BYTES_LIMIT,
  memoryBytes,
  bound,
  boundAsync,
  StreamingBounder,
  type Cursor,
  type End,
  type Event,
  type Preview,
  type ResumeState,
} from "dory-wire";

function describe(event: Event): string {
  switch (event.type) {
    case "started":
      return event.procId;
    case "stdout":
    case "stderr":
      return `${event.data.byteLength} bytes [${event.start}, ${event.end})`;
    case "skipped":
      return `${event.stream} lost [${event.from}, ${event.to})`;
    case "heartbeat":
      return "heartbeat";
    case "exit":
      return `exit ${event.exitCode ?? "killed"} ${event.timedOut}`;
    case "unknown":
      return event.frameType;
    case "identity":
      return `${event.procId} ${event.status}`;
    case "result":
      return `${event.procId} ${event.stdout.length} ${event.stderr.length} ${event.stdoutTruncated} ${event.stderrTruncated} ${event.exitCode} ${event.timedOut}`;
  }
}

function after(end: End): Cursor | null {
  for (const e of end.events) describe(e);
  switch (end.type) {
    case "exited":
      return end.exitCode === 0 ? null : null;
    case "disconnected":
      return end.reason === "stalled" || end.reason === "gap" || end.reason === "end_of_body" ? end.cursor : null;
    case "document":
      return null;
  }
}

export async function main(): Promise<void> {
  await init();
  const reader = new OutputReader("exec", {
    cursor: { stdout: 0, stderr: 0 },
    gapPolicy: "skip",
    maxFrameBytes: 1 << 20,
    livenessTimeoutMs: 30_000,
    strict: false,
  });
  reader.open(200, "application/x-ndjson", "p_1");
  const events: Event[] = reader.feed(new Uint8Array([]));
  events.forEach(describe);
  const end: End = reader.finish();
  after(end);
  const cursor: Cursor = reader.cursor;
  const pid: string | null = reader.processId;
  const state: ResumeState = reader.resumeState();
  const json: string = reader.resumeStateJson();
  const again = OutputReader.resume("process_output", state, { gapPolicy: "fail" });
  OutputReader.resume("process_output", json);
  const deadline: number | null = again.pollTimeout();
  const stalled: boolean = again.handleTimeout(performance.now());
  again.free();
  void [cursor, pid, deadline, stalled, reader.end, reader.state, MAX_FRAME_BYTES_LIMIT, memoryBytes()];

  const response = await fetch("http://127.0.0.1:1/computers/c/processes/p/output");
  const followed = new OutputReader("process_output");
  const gen = readEvents(followed, response, { liveness: true, now: () => performance.now() });
  for await (const e of gen) describe(e);
  if (response.body) for await (const e of readEvents(new OutputReader("exec"), response.body)) describe(e);
  for await (const e of readEvents(new OutputReader("exec"), [new Uint8Array(1)])) describe(e);

  try {
    reader.feed(new Uint8Array(1));
  } catch (e) {
    if (e instanceof OutputGap) {
      const c: Cursor = e.earliest;
      void [c, e.consumed, e.stream];
    } else if (e instanceof ApiError) {
      void [e.status, e.apiCode, e.serverMessage];
    } else if (e instanceof OutputExpired || e instanceof OffsetBeyondOutput) {
      void e.serverMessage;
    } else if (e instanceof ProtocolError) {
      void [e.code, e.line, e.reason, e.frameType, e.contentType, e.expected, e.found, e.limit];
    } else if (e instanceof DoryWireError) {
      void [e.code, e.reason, e.field, e.value];
    }
  }

  const p: Preview = bound("text", { maxLines: 20, maxBytes: 4096, spill: (id, data) => `/tmp/${id}-${data.length}`, spillId: "abc", hint: "cat it" });
  const q: Preview = await boundAsync(new Uint8Array(3), { maxLines: 20, maxBytes: 4096, spill: async (id) => `/tmp/${id}` });
  void [p.text, p.truncated, p.totalLines, p.totalBytes, p.headBytes, p.tailBytes, p.omittedLines, p.omittedBytes, p.omittedRange, p.spillId, p.spillPath, p.spillError, q];
  const sb = new StreamingBounder({ maxLines: 20, maxBytes: 4096, spillId: null });
  sb.push("chunk");
  sb.push(new Uint8Array(2));
  void [sb.totalBytes, sb.retainedBytes];
  const r: Preview = sb.finish({ spill: (id) => `/tmp/${id}`, hint: null });
  const s: Preview = await new StreamingBounder({ maxLines: 2, maxBytes: 300 }).finishAsync({ spill: async () => null });
  void [r, s];
  const d = new Utf8Decoder();
  const text: string = d.push(new Uint8Array([0xc3])) + d.finish();
  d.free();
  void text;

  // @ts-expect-error: endpoints are a closed set
  new OutputReader("stdout");
  // @ts-expect-error: feed takes bytes, not text
  reader.feed("text");
  // @ts-expect-error: limits are required
  bound("x", { maxLines: 3 });
  // @ts-expect-error: a sync writer cannot be async for bound()... it can return only a path
  bound("x", { maxLines: 3, maxBytes: 300, spill: async () => "/tmp/x" });
}
