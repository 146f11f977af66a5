// The package's main entry (`dory-wire`): every public name, re-exported
// from the module of its concept. build.mjs bundles this file once per
// platform (the `#platform` import: platform-node.js or platform-web.js);
// src/index.d.ts declares it.

export { init } from "#platform";
export { iterEvents, Reader } from "./reader.js";
export { Follower } from "./follow.js";
export { Run } from "./run.js";
export { Request } from "./request.js";
export { Transcript, Utf8Decoder } from "./transcript.js";
export { cursorAfter, execAnswer, identityAnswer, wireForm } from "./answers.js";
export { bound, boundAsync, countTokens, DEFAULT_KEEP_PATTERNS, RUN_PRESET, StreamingBounder, TOKENIZERS } from "./preview.js";
export { DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES, MIN_RUN_MAX_BYTES, RunBounder, RunPending, runSpillId } from "./run-bounder.js";
export { Searcher, searchChunks } from "./search.js";
export { memoryBytes } from "./memory.js";
export {
  DEFAULT_BACKOFF_MS,
  DEFAULT_LIVENESS_TIMEOUT_MS,
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_RETRIES,
  MAX_FRAME_BYTES_LIMIT,
  MIN_MAX_BYTES,
} from "./constants.js";
export {
  AnswerError,
  ApiError,
  DoryWireError,
  ERROR_CODES,
  FrameTooLarge,
  IdentityMismatch,
  IntegerOutOfRange,
  InvalidArgument,
  InvalidLimits,
  InvalidState,
  LossError,
  MalformedFrame,
  OffsetBeyondOutput,
  OutputExpired,
  OutputGap,
  ProtocolError,
  StreamDisconnected,
  NoAnswer,
  UnexpectedFrame,
  UnsupportedContentType,
} from "./errors.js";
