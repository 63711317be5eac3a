/** What happened to the streams of one model string, so tests can see a client's abort. */
export interface StreamStats {
  /** Requests that arrived (counted before the `latency` wait): a test sees a call reach the provider. */
  received: number;
  started: number;
  /** Ended as the directives said: all frames, a `cut` or a `stream-error`. */
  finished: number;
  /** The client went away before the stream ended (the gateway aborted the upstream call). */
  abandoned: number;
  /** Frames written, over every stream of the key. */
  framesSent: number;
}

const MAX_KEYS = 10_000;
const stats = new Map<string, StreamStats>();

/** The counters of a key (the raw model string, directives included), created on first use. */
export function streamStatsFor(key: string): StreamStats {
  let entry = stats.get(key);
  if (!entry) {
    if (stats.size >= MAX_KEYS) stats.delete(stats.keys().next().value!);
    entry = { received: 0, started: 0, finished: 0, abandoned: 0, framesSent: 0 };
    stats.set(key, entry);
  }
  return entry;
}

export function peekStreamStats(key: string): StreamStats {
  return stats.get(key) ?? { received: 0, started: 0, finished: 0, abandoned: 0, framesSent: 0 };
}
