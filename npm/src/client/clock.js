// The follower's clock on the platform's timers: waits bounded by the
// core's deadlines, and the delays it decides.

/** A wait given up: the link was closed, or the client. */
export const ABORTED = Symbol("aborted");
export const STALLED = Symbol("stalled");

function now() {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

/**
 * The follower's wait clock, on the platform's timers: each wait for the
 * network (the headers, then each piece of the body) is bounded by
 * `follower.waitLimitMs()` and reported with `follower.waitedMs()`. Only
 * those waits count: a consumer that takes long over its frames is not
 * waiting for the network, so its time never counts as a stall (the core
 * keeps the clock; docs/PROTOCOL.md, "The liveness clock").
 */
export const WaitClock = Object.freeze({
  /**
   * Waits for `promise` within the follower's limit, unless `link` is
   * aborted first. Resolves `{value, over}` (`over`: the wait spent the
   * liveness timeout), STALLED (the limit passed first), or rejects with
   * what `promise` did, or with ABORTED.
   */
  within(promise, follower, link) {
    let began = now();
    return new Promise((resolve, reject) => {
      let timer = null;
      let settled = false;
      const settle = (how, value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        link.signal.removeEventListener("abort", aborted);
        how(value);
      };
      const aborted = () => settle(reject, ABORTED);
      const arm = () => {
        const limit = follower.waitLimitMs();
        if (limit === null) return;
        timer = setTimeout(
          () => {
            if (settled) return;
            // The timer may fire a little early: it waited the whole limit.
            const over = follower.waitedMs(Math.max(now() - began, limit));
            began = now();
            if (over) settle(resolve, STALLED);
            else arm();
          },
          Math.max(0, Math.ceil(limit)),
        );
      };
      if (link.signal.aborted) {
        aborted();
        return;
      }
      link.signal.addEventListener("abort", aborted);
      arm();
      promise.then(
        (value) => {
          if (!settled) settle(resolve, { value, over: follower.waitedMs(now() - began) });
        },
        (error) => {
          if (!settled) follower.waitedMs(now() - began);
          settle(reject, error);
        },
      );
    });
  },
});

/** Sleeps `ms`; rejects with ABORTED when `link` is aborted first. */
export function sleep(ms, link) {
  if (link.signal.aborted) return Promise.reject(ABORTED);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const aborted = () => {
      clearTimeout(timer);
      reject(ABORTED);
    };
    const timer = setTimeout(() => {
      link.signal.removeEventListener("abort", aborted);
      resolve();
    }, ms);
    link.signal.addEventListener("abort", aborted, { once: true });
  });
}
