import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { closeRedis, openRedis, redisReady } from './redis-connection.js';

/** Told every time a limiter could not reach Redis and let the request through. */
export type StoreUnavailableHook = (event: { limiter: string; error: Error }) => void;

export interface LimiterStoreOptions {
  /** `redis://host:port[/db]`, shared by every replica of every service that limits. */
  redisUrl: string;
  /** Prepended to every key (a test run's own namespace; `gw:` in a deployment). */
  keyPrefix?: string;
  /** Bound on one Redis command: past it the limiter fails open instead of delaying the request. */
  commandTimeoutMs?: number;
  /** Metric hook for outages (counts are also on `unavailableCount`). */
  onUnavailable?: StoreUnavailableHook;
}

const OUTAGE_LOG_INTERVAL_MS = 10_000;

/**
 * The Redis connection the limiters share, and the one place their outage policy lives:
 * when Redis cannot answer, limiters FAIL OPEN (the request goes through) and this store logs
 * at most one line per 10 s, counts the event and calls the metric hook.
 *
 * The client never queues commands while disconnected and bounds each command, so an outage
 * costs a request at most `commandTimeoutMs`, never a hang. Its auto-pipelining is off: KeyLimiter
 * batches its own commands per loop turn.
 */
export class LimiterStore {
  readonly redis: Redis;
  private readonly logger = new Logger('RateLimit');
  private readonly onUnavailable?: StoreUnavailableHook;
  private lastOutageLogAt = 0;
  private suppressedSinceLog = 0;
  /** Requests let through because Redis could not be asked, since start. */
  unavailableCount = 0;

  constructor(options: LimiterStoreOptions) {
    this.onUnavailable = options.onUnavailable;
    this.redis = openRedis({
      redisUrl: options.redisUrl,
      keyPrefix: options.keyPrefix ?? 'gw:',
      connectionName: 'gw-rate-limit',
      commandTimeoutMs: options.commandTimeoutMs ?? 500,
    });
  }

  /** Called by a limiter that let a request through because Redis failed. */
  reportUnavailable(limiter: string, cause: unknown): void {
    const error = cause instanceof Error ? cause : new Error(String(cause));
    this.unavailableCount += 1;
    this.onUnavailable?.({ limiter, error });
    const now = Date.now();
    if (now - this.lastOutageLogAt < OUTAGE_LOG_INTERVAL_MS) {
      this.suppressedSinceLog += 1;
      return;
    }
    this.logger.warn(
      { limiter, err: error.message, suppressed: this.suppressedSinceLog },
      'Rate limit store unavailable: letting requests through unlimited',
    );
    this.lastOutageLogAt = now;
    this.suppressedSinceLog = 0;
  }

  /** Resolves once connected (or after `timeoutMs`, still failing open): a clean start, not a requirement. */
  ready(timeoutMs = 2_000): Promise<boolean> {
    return redisReady(this.redis, timeoutMs);
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }
}
