/** Remembers v2 nonces until their signature could no longer be accepted anyway. */
export interface NonceStore {
  /** True the first time a nonce is claimed; false when it was seen and has not expired. */
  claim(nonce: string, expiresAtMs: number): boolean | Promise<boolean>;
}

/**
 * In-memory nonce store for one daemon process. Entries live until the end of the timestamp
 * window of the request that carried them; a sweep drops expired ones every `sweepEveryMs`.
 * When full (`maxEntries`) it refuses new nonces rather than forget live ones: failing closed
 * means a replay is never accepted. Daemons with several replicas need a shared store (Redis
 * `SET nonce 1 NX PXAT <expiresAtMs>` does the same job).
 */
export class MemoryNonceStore implements NonceStore {
  private readonly seen = new Map<string, number>();
  private nextSweepAt = 0;
  private readonly options: { maxEntries?: number; sweepEveryMs?: number; now?: () => number };

  constructor(options: { maxEntries?: number; sweepEveryMs?: number; now?: () => number } = {}) {
    this.options = options;
  }

  claim(nonce: string, expiresAtMs: number): boolean {
    const now = (this.options.now ?? Date.now)();
    if (now >= this.nextSweepAt) this.sweep(now);
    const known = this.seen.get(nonce);
    if (known !== undefined && known > now) return false;
    if (this.seen.size >= (this.options.maxEntries ?? 1_000_000)) return false;
    this.seen.set(nonce, expiresAtMs);
    return true;
  }

  get size(): number {
    return this.seen.size;
  }

  private sweep(now: number): void {
    for (const [nonce, expiresAt] of this.seen) if (expiresAt <= now) this.seen.delete(nonce);
    this.nextSweepAt = now + (this.options.sweepEveryMs ?? 10_000);
  }
}
