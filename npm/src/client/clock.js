// The follower's clock on the platform's timers: waits bounded by the
// core's deadlines, and the delays it decides.

/** A wait given up: the link was closed, or the client. */
export const ABORTED = Symbol("aborted");
export const STALLED = Symbol("stalled");

function now() {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

/**
 * The follower's clock for one request: the time spent waiting for the
 * network (its headers, then its body), in ms from the request. A consumer
 * that takes long over its frames is not waiting for the network: its time
 * never counts as a stall.
 */
export class WaitClock {
  ms = 0;

  /**
   * Waits for `promise` unless the follower's deadline (`pollTimeoutMs()`)
   * passes first or `link` is aborted. Resolves `{value}`, STALLED (the
   * follower said the wait is over), or rejects with what `promise` did, or
   * with ABORTED.
   */
  within(promise, follower, link) {
    const began = now();
    const at = () => this.ms + (now() - began);
    return new Promise((resolve, reject) => {
      let timer = null;
      let settled = false;
      const settle = (how, value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        link.signal.removeEventListener("abort", aborted);
        this.ms = at();
        how(value);
      };
      const aborted = () => settle(reject, ABORTED);
      const arm = () => {
        const deadline = follower.pollTimeoutMs();
        if (deadline === null) return;
        timer = setTimeout(
          () => {
            if (settled) return;
            // The timer may fire a little early on this clock: the deadline counts as reached.
            if (follower.handleTimeoutMs(Math.max(at(), deadline))) settle(resolve, STALLED);
            else arm();
          },
          Math.max(0, Math.ceil(deadline - at())),
        );
      };
      if (link.signal.aborted) {
        aborted();
        return;
      }
      link.signal.addEventListener("abort", aborted);
      arm();
      promise.then(
        (value) => settle(resolve, { value }),
        (error) => settle(reject, error),
      );
    });
  }
}

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
