// The core's constants and follow defaults, from its tables (nothing typed
// again here).

import { core } from "#platform";

export const { DEFAULT_MAX_FRAME_BYTES, DEFAULT_LIVENESS_TIMEOUT_MS, MAX_FRAME_BYTES_LIMIT, MIN_MAX_BYTES } = core.constants;

/** The core's follow options (`FollowOptions::default()`), in JS names and units. */
export const FOLLOW_DEFAULTS = Object.freeze({ ...core.followDefaults });

export const { retries: DEFAULT_RETRIES, backoffMs: DEFAULT_BACKOFF_MS, maxBackoffMs: DEFAULT_MAX_BACKOFF_MS } = FOLLOW_DEFAULTS;
