// The requests of the Dory API as values, built by the core (`Request`).

import { ready, wasm } from "#platform";
import { checkBoolean, checkNumber, checkOptions, checkString, commandJson, cursorArgs, optionalString, timeoutMsArg } from "./args.js";
import { FOLLOW_DEFAULTS } from "./constants.js";
import { InvalidArgument, rethrow } from "./errors.js";

/** A request that crossed as JSON, as a plain frozen object (its body bytes a Uint8Array). */
function requestObject(json) {
  const r = JSON.parse(json);
  return Object.freeze({
    method: r.method,
    path: r.path,
    query: Object.freeze(r.query.map((pair) => Object.freeze(pair))),
    headers: Object.freeze(r.headers),
    body: r.body === null ? null : new TextEncoder().encode(r.body),
    wait: r.wait,
    idempotent: r.idempotent,
    target: r.target,
  });
}

/**
 * The one-answer requests built here, each with how to build its call
 * (`Follower.call`): the name of the wasm constructor and its arguments.
 */
const CALLS = new WeakMap();

/** How to build the one-answer call of `request`, or undefined when it is not one built by `Request`. */
export function callOf(request) {
  return typeof request === "object" && request !== null ? CALLS.get(request) : undefined;
}

/** Calls a wasm export that returns request JSON or throws an error-object JSON string. */
export function built(call, asCall) {
  let json;
  try {
    json = call();
  } catch (e) {
    rethrow(e);
  }
  const request = requestObject(json);
  if (asCall !== undefined) CALLS.set(request, asCall);
  return request;
}

/**
 * The requests of the Dory API as values, built by the core: `{method,
 * path, query, headers, body, wait, idempotent, target}`, to send with any
 * HTTP client (`fetch(base + r.target, {method: r.method, headers:
 * r.headers, body: r.body})`). Ids are percent-encoded path segments.
 */
export const Request = Object.freeze({
  /**
   * The API's base URL as every client takes it (the core's rule): an
   * absolute `http://` or `https://` URL with a host, without spaces, a
   * query or a fragment, returned without its trailing `/`; the core's
   * `InvalidArgument` (argument `baseUrl`) otherwise, `undefined` and `""`
   * included.
   */
  baseUrl(url) {
    ready();
    if (url !== undefined && url !== null) checkString(url, "baseUrl");
    try {
      return wasm.request_base_url(url ?? undefined);
    } catch (e) {
      return rethrow(e);
    }
  },
  /** `POST /computers/{id}/processes`: starts `command` in the background. */
  start(computerId, command, options) {
    ready();
    checkString(computerId, "computerId");
    const cmd = commandJson(command);
    const o = checkOptions(options, ["timeoutMs", "idempotencyKey"], "Request.start option");
    const timeout = timeoutMsArg(o.timeoutMs, InvalidArgument);
    const key = optionalString(o.idempotencyKey, "idempotencyKey");
    return built(() => wasm.request_start(computerId, cmd, timeout, key), ["call_start", computerId, cmd, timeout, key]);
  },
  /** `POST /computers/{id}/exec`: runs `command`; `stream: true` asks for its frames, else its result. */
  exec(computerId, command, options) {
    ready();
    checkString(computerId, "computerId");
    const cmd = commandJson(command);
    const o = checkOptions(options, ["timeoutMs", "idempotencyKey", "stream"], "Request.exec option");
    const timeout = timeoutMsArg(o.timeoutMs, InvalidArgument);
    const key = optionalString(o.idempotencyKey, "idempotencyKey");
    const stream = o.stream === undefined ? false : checkBoolean(o.stream, "stream");
    return built(() => wasm.request_exec(computerId, cmd, timeout, key, stream), stream ? undefined : ["call_exec", computerId, cmd, timeout, key]);
  },
  /** `GET /computers/{id}/processes/{procId}`: the process's identity. */
  getProcess(computerId, procId) {
    ready();
    checkString(computerId, "computerId");
    checkString(procId, "procId");
    return built(() => wasm.request_get_process(computerId, procId), ["call_get_process", computerId, procId]);
  },
  /** `POST /computers/{id}/processes/{procId}/kill`. */
  kill(computerId, procId) {
    ready();
    checkString(computerId, "computerId");
    checkString(procId, "procId");
    return built(() => wasm.request_kill(computerId, procId), ["call_kill", computerId, procId]);
  },
  /** `GET …/processes/{procId}/output` from `cursor` (default zeros), followed until exit when `follow` (default the core's). */
  output(computerId, procId, cursor, follow) {
    ready();
    checkString(computerId, "computerId");
    checkString(procId, "procId");
    const [stdout, stderr] = cursorArgs(cursor, "cursor");
    const f = follow === undefined ? FOLLOW_DEFAULTS.follow : checkBoolean(follow, "follow");
    return built(() => wasm.request_output(computerId, procId, stdout, stderr, f));
  },
  /** `GET /computers/{id}/setup/logs` from `offset` (default 0), followed when `follow` (default the core's). */
  setupLogs(computerId, offset, follow) {
    ready();
    checkString(computerId, "computerId");
    const at = offset === undefined ? 0 : checkNumber(offset, "offset");
    const f = follow === undefined ? FOLLOW_DEFAULTS.follow : checkBoolean(follow, "follow");
    return built(() => wasm.request_setup_logs(computerId, at, f));
  },
});
