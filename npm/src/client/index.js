// `dory-wire/client`: the HTTP client of the Dory process API on the
// platform's `fetch`, driving the core. Nothing here knows the protocol:
// every request is the core's (`Request.*`, or a `Follower`'s `request()`);
// every read of output is a core `Follower`, which says what each answer
// means, when to reconnect, how long to wait first and when to give up; JSON
// answers are decoded by a core `Reader`. These modules do the IO the core
// asks for: they send the requests with `fetch`, feed back the status,
// headers and body, run the core's clock (timers at its deadlines), sleep
// the delays it decides, bound the connections in flight, and turn core
// events into frames with the wire's field names.
//
// They import the core from "dory-wire": build.mjs bundles them over the
// core entry of each build (dist/node/index.cjs, dist/web/index.js) without
// copying it, so the client shares the core's classes (`instanceof
// OutputGap` works on what it throws). src/client.d.ts declares this entry.
//
// `StreamDisconnected` — a read ended before `exit` and may not go on by
// itself — is the core's class of `stream_disconnected` (kind `transport`),
// so `instanceof` holds whichever entry point raised it. It reads `reason`,
// `cursor`, `procId` and, under the wire's names, `stdout_offset`,
// `stderr_offset` and `proc_id`; `cause` is the transport's error.

export { Client } from "./client.js";
export { SpillDirectory } from "./spill.js";
export {
  AnswerError,
  ApiError,
  DoryWireError,
  LossError,
  OffsetBeyondOutput,
  OutputExpired,
  NoAnswer,
  OutputGap,
  ProtocolError,
  StreamDisconnected,
  Transcript,
} from "dory-wire";
