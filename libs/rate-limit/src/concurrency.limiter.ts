import { Logger } from '@nestjs/common';
import { Semaphore } from 'redis-semaphore';
import type { LimiterStore } from './limiter-store.js';
import { refusals } from './limiter-metrics.js';

export interface ConcurrencyOptions {
  /** Names the semaphore family in Redis and in outage logs, e.g. `key-concurrency`. */
  name: string;
  /**
   * A held slot is renewed every 0.8 × this while its holder lives; a replica that dies
   * without releasing loses its slots after at most this long.
   */
  leaseTtlMs: number;
}

/** A held slot: release it when the work ends (idempotent, never throws). */
export interface Lease {
  release(): Promise<void>;
}

export type ConcurrencyDecision =
  | { allowed: true; limit: number; lease: Lease; degraded: boolean }
  | { allowed: false; limit: number; retryAfterSeconds: number; degraded: false };

const NO_LEASE: Lease = { release: async () => undefined };

/**
 * At most `limit` concurrent holders per key across every replica: a Redis sorted set per
 * key managed by `redis-semaphore` (one Lua call to acquire, one to release), each holder a
 * member with a lease that its own replica keeps renewing (ADR 0019).
 */
export class ConcurrencyLimiter {
  private readonly logger = new Logger('RateLimit');

  constructor(
    private readonly store: LimiterStore,
    private readonly options: ConcurrencyOptions,
  ) {}

  async tryAcquire(key: string, limit: number): Promise<ConcurrencyDecision> {
    const semaphore = new LeasedSemaphore(this.store, this.options, `conc:${this.options.name}:${key}`, limit, (error) =>
      this.logger.warn({ limiter: this.options.name, err: error.message }, 'A concurrency lease expired while held'),
    );
    try {
      if (!(await semaphore.tryAcquire())) {
        refusals.inc({ limiter: this.options.name });
        return { allowed: false, limit, retryAfterSeconds: 1, degraded: false };
      }
    } catch (error) {
      this.store.reportUnavailable(this.options.name, error);
      return { allowed: true, limit, lease: NO_LEASE, degraded: true };
    }
    let released = false;
    return {
      allowed: true,
      limit,
      degraded: false,
      lease: {
        release: async () => {
          if (released) return;
          released = true;
          try {
            await semaphore.release();
          } catch (error) {
            // The lease expires on its own after leaseTtlMs.
            this.store.reportUnavailable(this.options.name, error);
          }
        },
      },
    };
  }
}

/**
 * The library's semaphore, except that a renewal failing because Redis is down keeps the
 * lease (it lapses by itself if the outage outlasts it) instead of rejecting inside a timer.
 */
class LeasedSemaphore extends Semaphore {
  constructor(
    private readonly store: LimiterStore,
    options: ConcurrencyOptions,
    key: string,
    limit: number,
    onLockLost: (error: Error) => void,
  ) {
    super(store.redis, key, limit, {
      lockTimeout: options.leaseTtlMs,
      acquireAttemptsLimit: 1,
      acquireTimeout: options.leaseTtlMs,
      onLockLost,
    });
  }

  protected override async _refresh(): Promise<boolean> {
    try {
      return await super._refresh();
    } catch (error) {
      this.store.reportUnavailable('lease-renewal', error);
      return true;
    }
  }
}
