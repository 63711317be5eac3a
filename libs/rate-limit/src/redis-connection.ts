import { Redis } from 'ioredis';

export interface RedisConnectionOptions {
  /** `redis://host:port[/db]`. */
  redisUrl: string;
  /** Prepended to every key (a test run's own namespace; `gw:` in a deployment). */
  keyPrefix: string;
  /** Shown by `CLIENT LIST`: which store holds the connection. */
  connectionName: string;
  /** Every command's bound: past it the command fails and the caller goes on without Redis. */
  commandTimeoutMs: number;
  /** Connect on the first command instead of at once (a store most replicas never use). */
  lazyConnect?: boolean;
}

/**
 * A connection for a store that must never make its caller wait on an outage: commands are never
 * queued while disconnected (an outage is an error at once), each is bounded, and the client
 * reconnects forever, at most every 2 s. It prints nothing itself: the store decides what an outage means.
 * Auto-pipelining stays off (ioredis's default): it costs CPU on every command.
 */
export function openRedis(options: RedisConnectionOptions): Redis {
  const redis = new Redis(options.redisUrl, {
    keyPrefix: options.keyPrefix,
    connectionName: options.connectionName,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: 2_000,
    ...(options.lazyConnect ? { lazyConnect: true } : {}),
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
  // Without a listener ioredis prints every reconnect failure; the store counts or logs instead.
  redis.on('error', () => undefined);
  return redis;
}

/** True once connected; false after `timeoutMs` without (commands then fail at once and the caller goes on). */
export function redisReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => done(false), timeoutMs);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    redis.once('ready', onReady);
  });
}

/** Quits politely, or drops the connection when Redis cannot take the `QUIT`. */
export async function closeRedis(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
