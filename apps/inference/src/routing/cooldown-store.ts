import { closeRedis, openRedis, redisReady } from '@gw/rate-limit';
import type { Redis } from 'ioredis';
import type { Cooldown } from './cooldown-board.js';

/** One sorted set for every replica: member = the cooldown's key and why (JSON), score = until (epoch ms). */
const COOLDOWNS = 'endpoint-cooldowns';

interface CooldownStoreOptions {
  redisUrl: string;
  keyPrefix: string;
  /** Every command's bound: the store is never waited on longer than this. */
  timeoutMs: number;
}

/**
 * The shared cooldowns in Redis. Never on the request path: the service writes a cooldown when one
 * starts and reads the running ones on a timer. The client queues nothing while disconnected, so an
 * outage is an error at once and the caller goes on without the store.
 */
export class RedisCooldownStore {
  private readonly redis: Redis;

  constructor(options: CooldownStoreOptions) {
    this.redis = openRedis({
      redisUrl: options.redisUrl,
      keyPrefix: options.keyPrefix,
      connectionName: 'gw-endpoint-cooldowns',
      commandTimeoutMs: options.timeoutMs,
    });
  }

  /** Adds the cooldown and drops the expired ones (the set stays as small as what is cooling). */
  async write(cooldown: Cooldown): Promise<void> {
    const member = JSON.stringify({
      key: cooldown.key,
      reason: cooldown.reason,
      failures: cooldown.failures,
      errorType: cooldown.errorType,
    });
    const results = await this.redis.multi().zadd(COOLDOWNS, cooldown.until, member).zremrangebyscore(COOLDOWNS, '-inf', Date.now()).exec();
    const failed = results?.find(([error]) => error);
    if (!results || failed) throw failed?.[0] ?? new Error('the cooldown transaction was discarded');
  }

  /** The cooldowns still running at `now`. */
  async running(now: number): Promise<Cooldown[]> {
    const flat = await this.redis.zrangebyscore(COOLDOWNS, now, '+inf', 'WITHSCORES');
    const cooldowns: Cooldown[] = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const parsed = parseMember(flat[index]!);
      const until = Number(flat[index + 1]);
      if (parsed && Number.isFinite(until)) cooldowns.push({ ...parsed, until });
    }
    return cooldowns;
  }

  /** Resolves once connected, or after `timeoutMs` (calls then fail at once, and the caller goes on). */
  async ready(timeoutMs: number): Promise<void> {
    await redisReady(this.redis, timeoutMs);
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }
}

/** Another replica's entry, read defensively: one that is not ours is skipped. */
export function parseMember(member: string): Omit<Cooldown, 'until'> | undefined {
  try {
    const value = JSON.parse(member) as Record<string, unknown>;
    if (typeof value.key !== 'string' || (value.reason !== 'retry_after' && value.reason !== 'failing')) return undefined;
    return {
      key: value.key,
      reason: value.reason,
      ...(typeof value.failures === 'number' ? { failures: value.failures } : {}),
      ...(typeof value.errorType === 'string' ? { errorType: value.errorType } : {}),
    };
  } catch {
    return undefined;
  }
}
