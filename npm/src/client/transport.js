// What every resource of a client shares (`Transport`): the base URL, the
// platform's fetch (called with no receiver), the headers and limits, the
// bound on requests in flight (`Permits`) and the operations that
// `close()` aborts (`Link`); and the one-document requests.

import { Follower, identityAnswer, init, Request } from "dory-wire";
import { ABORTED } from "./clock.js";
import { drive } from "./drive.js";
import { closedError } from "./errors.js";

/**
 * The bound on requests in flight: a FIFO semaphore. A permit is taken
 * before a request is sent and given back when its response body ended or
 * was cancelled (or no response came).
 */
export class Permits {
  #free;
  #waiting = [];

  constructor(limit) {
    this.#free = limit;
  }

  /** A function that gives the permit back (once); rejects with ABORTED when `link` is aborted first. */
  acquire(link) {
    if (link.signal.aborted) return Promise.reject(ABORTED);
    if (this.#free > 0 && this.#waiting.length === 0) {
      this.#free--;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = { resolve, link, aborted: null };
      waiter.aborted = () => {
        const i = this.#waiting.indexOf(waiter);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(ABORTED);
      };
      link.signal.addEventListener("abort", waiter.aborted, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #releaser() {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next === undefined) {
        this.#free++;
      } else {
        next.link.signal.removeEventListener("abort", next.aborted);
        next.resolve(this.#releaser());
      }
    };
  }
}

/**
 * What one operation (a read, a stream, a request) is cancelled through:
 * its owner closing it (`closed`: it ends quietly) or the client closing
 * (its operations reject with an AbortError).
 */
export class Link {
  #controller = new AbortController();
  closed = false;

  get signal() {
    return this.#controller.signal;
  }

  abort() {
    this.#controller.abort();
  }

  /** A controller for one request, aborted with the link. */
  request() {
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (this.signal.aborted) controller.abort();
    else this.signal.addEventListener("abort", abort, { once: true });
    return { controller, done: () => this.signal.removeEventListener("abort", abort) };
  }
}


/** What every resource shares: the URL, fetch, headers, limits, permits and the operations in flight. */
export class Transport {
  #fetch;

  #urlChecked;

  /** `urlChecked`: whether the core has checked `baseUrl` (not yet in a browser before `init()`). */
  constructor(baseUrl, fetchImpl, headers, follow, maxConnections, urlChecked = true) {
    this.baseUrl = baseUrl;
    this.#urlChecked = urlChecked;
    this.#fetch = fetchImpl;
    this.headers = headers;
    this.livenessTimeoutMs = follow.livenessTimeoutMs;
    this.maxFrameBytes = follow.maxFrameBytes;
    this.maxConnections = maxConnections;
    this.permits = new Permits(maxConnections);
    this.closed = false;
    this.links = new Set();
  }

  /** Where `request` goes: the base URL, then its target. */
  url(request) {
    if (!this.#urlChecked) {
      // A request exists, so the core is loaded: its rule, as in Node at construction.
      this.baseUrl = Request.baseUrl(this.baseUrl);
      this.#urlChecked = true;
    }
    return this.baseUrl + request.target;
  }

  /**
   * Sends the core's `request` with fetch (called with no receiver): its
   * method; its headers, then the client's where it sets none of that
   * name; its body, as `application/json`.
   */
  send(request, url, signal) {
    const headers = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
    if (request.body !== null && !Object.prototype.hasOwnProperty.call(headers, "content-type")) headers["content-type"] = "application/json";
    for (const [name, value] of Object.entries(this.headers)) {
      if (!Object.prototype.hasOwnProperty.call(headers, name)) headers[name] = value;
    }
    // Redirects are answers, never followed (docs/api.md, "Redirects"): in
    // a browser a redirect reads as status 0, `opaqueredirect`.
    const init = { method: request.method, headers, signal, redirect: "manual" };
    if (request.body !== null) init.body = request.body;
    return Promise.resolve().then(() => this.#fetch.call(undefined, url, init));
  }

  async ready() {
    this.check();
    await init();
    this.check();
  }

  check() {
    if (this.closed) throw closedError();
  }

  /** A cancellable operation; `close()` aborts them all. */
  link() {
    this.check();
    const link = new Link();
    this.links.add(link);
    return link;
  }

  unlink(link) {
    this.links.delete(link);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    for (const link of this.links) link.abort();
    this.links.clear();
  }

  /**
   * Sends the request `build()` makes (a core `Request`), answered by one
   * JSON document: the core's one-answer conversation (`Follower.call`)
   * decides what is sent again and when. Returns the answer's events (what
   * they mean is the core's: `identityAnswer`, `execAnswer`). Error answers
   * throw the core's errors; no answer throws `NoAnswer` (its `cause`,
   * fetch's own error). An optional `signal` aborts it (then it rejects
   * with an AbortError; the caller knows why).
   */
  async document(build, signal) {
    await this.ready();
    const follower = Follower.call(build(), this.#callOptions());
    const link = this.link();
    const abort = () => link.abort();
    if (signal !== undefined) {
      if (signal.aborted) abort();
      else signal.addEventListener("abort", abort, { once: true });
    }
    try {
      const events = [];
      const run = drive(this, follower, link, { reconnect: true });
      for (;;) {
        const step = await run.next();
        if (step.done) {
          if (step.value === null) throw closedError();
          break;
        }
        events.push(...step.value);
      }
      return events;
    } finally {
      this.unlink(link);
      follower.free();
      signal?.removeEventListener("abort", abort);
    }
  }

  /** The options of a call's follower: the client's liveness timeout bounds each of its waits. */
  #callOptions() {
    const options = {};
    if (this.livenessTimeoutMs !== undefined) options.livenessTimeoutMs = this.livenessTimeoutMs;
    if (this.maxFrameBytes !== undefined) options.maxFrameBytes = this.maxFrameBytes;
    return options;
  }

  /** The identity event a start, get or kill was answered by: the core's rule (`identityAnswer`), its `UnexpectedFrame` for any other answer. */
  async identity(build, signal) {
    return identityAnswer(await this.document(build, signal));
  }
}
