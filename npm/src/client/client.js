// The connection to one Dory service (`Client`).

import { Follower, Request } from "dory-wire";
import { describe } from "../args.js";
import { built, DEFAULT_MAX_CONNECTIONS, options, whenLoaded } from "./options.js";
import { Computers } from "./resources.js";
import { Transport } from "./transport.js";

function environment(name) {
  const env = typeof process !== "undefined" && process !== null ? process.env : undefined;
  const value = env ? env[name] : undefined;
  return typeof value === "string" && value !== "" ? value : undefined;
}

const CLIENT_OPTIONS = ["baseUrl", "fetch", "headers", "livenessTimeoutMs", "maxFrameBytes", "maxConnections"];

/**
 * The connection to one Dory service: a base URL and a `fetch`. Close it
 * when done (`close()` aborts whatever is still in flight).
 */
export class Client {
  #transport;

  /**
   * @param {string | object} [urlOrOptions] the base URL, or the options
   *   `{baseUrl, fetch, headers, livenessTimeoutMs, maxFrameBytes, maxConnections}`;
   *   `baseUrl` defaults to the DORY_URL environment variable (Node).
   * @param {object} [clientOptions] the options, after a base URL
   */
  constructor(urlOrOptions, clientOptions) {
    let o;
    if (typeof urlOrOptions === "string") {
      o = { ...options(clientOptions, CLIENT_OPTIONS.filter((n) => n !== "baseUrl"), "Client option"), baseUrl: urlOrOptions };
    } else {
      if (clientOptions !== undefined) throw new TypeError("new Client(options) takes one argument; new Client(baseUrl, options) two");
      o = options(urlOrOptions, CLIENT_OPTIONS, "Client option");
    }
    // The core's rule for every client: InvalidArgument (argument baseUrl)
    // unless an http(s):// URL with a host; none at all included.
    const given = o.baseUrl ?? environment("DORY_URL");
    if (given !== undefined && typeof given !== "string") throw new TypeError(`baseUrl must be a string, got ${describe(given)}`);
    // In a browser before `init()` the core checks it at the first request.
    const baseUrl = whenLoaded(() => Request.baseUrl(given));
    // Kept apart and called with no receiver: Cloudflare Workers' fetch
    // throws "Illegal invocation" when called as a method of another object.
    const fetchImpl = o.fetch ?? (typeof globalThis.fetch === "function" ? globalThis.fetch : undefined);
    if (typeof fetchImpl !== "function") throw new TypeError("no fetch: this platform has none, pass new Client({ fetch })");
    const headers = {};
    if (o.headers !== undefined && o.headers !== null) {
      if (typeof o.headers !== "object" || Array.isArray(o.headers)) {
        throw new TypeError(`headers must be an object of strings, got ${describe(o.headers)}`);
      }
      for (const [k, v] of Object.entries(o.headers)) {
        if (typeof v !== "string") throw new TypeError(`header ${k} must be a string, got ${describe(v)}`);
        headers[k.toLowerCase()] = v;
      }
    }
    const maxConnections = o.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    if (typeof maxConnections !== "number") throw new TypeError(`maxConnections must be a number, got ${describe(maxConnections)}`);
    if (!Number.isInteger(maxConnections) || maxConnections < 1) {
      throw new RangeError(`maxConnections must be an integer >= 1, got ${maxConnections}`);
    }
    const follow = {};
    for (const name of ["livenessTimeoutMs", "maxFrameBytes"]) {
      if (o[name] !== undefined) follow[name] = o[name];
    }
    // The core checks them (a TypeError, or InvalidArgument naming the option).
    whenLoaded(() => built(() => Follower.setupLogs("c", follow)).free());
    this.#transport = new Transport(baseUrl ?? given, fetchImpl, headers, follow, maxConnections, baseUrl !== undefined);
    /** The computers of the service. */
    this.computers = new Computers(this.#transport);
  }

  /** The base URL requests go to. */
  get baseUrl() {
    return this.#transport.baseUrl;
  }

  /** How many requests this client has in flight at most (option `maxConnections`, default 100). */
  get maxConnections() {
    return this.#transport.maxConnections;
  }

  /** Aborts every request and stream in flight; later calls reject. Idempotent. */
  close() {
    this.#transport.close();
  }
}
if (typeof Symbol.dispose === "symbol") {
  Client.prototype[Symbol.dispose] = Client.prototype.close;
}
