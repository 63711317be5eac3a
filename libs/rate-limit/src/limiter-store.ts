import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';

/** Told every time a limiter could not reach Redis and let the request through (ADR 0019). */
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
 * at most one line per 10 s, counts the event and calls the metric hook (ADR 0019).
 *
 * The client never queues commands while disconnected and bounds each command, so an outage
 * costs a request at most `commandTimeoutMs`, never a hang.
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
    this.redis = new Redis(options.redisUrl, {
      keyPrefix: options.keyPrefix ?? 'gw:',
      connectionName: 'gw-rate-limit',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: 2_000,
      // Off: auto-pipelining costs CPU on every command (a Pipeline per tick, a promise per
      // command); KeyLimiter batches its own commands per loop turn instead (ADR 0077).
      enableAutoPipelining: false,
      // Reconnect forever, at most every 2 s; failing open meanwhile.
      retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    });
    // Without a listener ioredis prints every reconnect failure; reportUnavailable logs instead.
    this.redis.on('error', () => undefined);
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
  async ready(timeoutMs = 2_000): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      this.redis.once('ready', onReady);
    });
  }

  async close(): Promise<void> {
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}
