import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { LimiterStore } from './limiter-store.js';
import { refusals } from './limiter-metrics.js';
import type { RateDecision } from './request-rate.limiter.js';

/** A held slot: release it when the work ends (idempotent, never throws). */
export interface Lease {
  release(): Promise<void>;
}

export type ConcurrencyDecision =
  | { allowed: true; limit: number; lease: Lease; degraded: boolean }
  | { allowed: false; limit: number; retryAfterSeconds: number; degraded: false };

export interface KeyLimiterOptions {
  /** The window counter's family, e.g. `key-rpm` (the key `<prefix>rate:<rateName>:<key>`, as `RequestRateLimiter` names it). */
  rateName: string;
  durationSeconds: number;
  /** The in-flight set's family, e.g. `key-concurrency` (`<prefix>semaphore:conc:<name>:<key>`). */
  concurrencyName: string;
  /** A held slot is renewed while its holder lives; a replica that dies loses its slots after at most this long. */
  leaseTtlMs: number;
}

/** What one `acquire` decided: the window always; a slot only when the window allowed the request. */
export interface KeyLimitsDecision {
  rate: RateDecision;
  /** Undefined when the window refused: no slot was asked for (nothing to give back). */
  slot?: ConcurrencyDecision;
}

/**
 * The window counter (rate-limiter-flexible's script, word for word) then, when the window
 * allows, the in-flight slot (redis-semaphore's acquire script, word for word), in one script:
 * one command and one round trip where the two libraries cost two scripts. Same keys
 * and the same data as those libraries, so replicas running either share the counts.
 * Returns {consumed, window ttl ms, slot}: slot -1 not asked (window refused), 0 refused, 1 held.
 */
const ACQUIRE_LUA = `
redis.call('set', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local consumed = redis.call('incrby', KEYS[1], 1)
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[1])
  ttl = 1000 * ARGV[1]
end
if consumed > tonumber(ARGV[2]) then
  return {consumed, ttl, -1}
end
local now = tonumber(ARGV[5])
local leaseTtl = tonumber(ARGV[6])
redis.call('zremrangebyscore', KEYS[2], '-inf', now - leaseTtl)
if redis.call('zcard', KEYS[2]) < tonumber(ARGV[3]) then
  redis.call('zadd', KEYS[2], now, ARGV[4])
  redis.call('pexpire', KEYS[2], leaseTtl)
  return {consumed, ttl, 1}
end
return {consumed, ttl, 0}
`;

/**
 * Renews every lease this process holds in one in-flight set (redis-semaphore's refresh, for
 * many members at once): a member still present gets the current time; one that is gone (its
 * lease lapsed, e.g. after a long outage) is returned so the holder can be told.
 */
const RENEW_LUA = `
local now = tonumber(ARGV[1])
local leaseTtl = tonumber(ARGV[2])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - leaseTtl)
local lost = {}
for i = 3, #ARGV do
  if redis.call('zscore', KEYS[1], ARGV[i]) then
    redis.call('zadd', KEYS[1], now, ARGV[i])
  else
    lost[#lost + 1] = ARGV[i]
  end
end
redis.call('pexpire', KEYS[1], leaseTtl)
return lost
`;

/** The acquire script's arguments: rate key, slot key, window s, rate limit, slot limit, lease id, now, lease TTL ms. */
type AcquireArgs = [string, string, number, number, number, string, number, number];
type AcquireReply = [number, number, number];

type LimiterCommands = {
  gwKeyLimitsAcquire(...args: AcquireArgs): Promise<AcquireReply>;
  gwKeyLimitsRenew(slotKey: string, now: number, leaseTtlMs: number, ...leaseIds: string[]): Promise<string[]>;
};

/** The same commands queued on an ioredis pipeline (sent by `exec`, one write, replies in order). */
type LimiterPipeline = {
  gwKeyLimitsAcquire(...args: AcquireArgs): LimiterPipeline;
  zrem(key: string, ...members: string[]): LimiterPipeline;
  exec(): Promise<Array<[Error | null, unknown]> | null>;
};

interface PendingAcquire {
  args: AcquireArgs;
  resolve: (reply: AcquireReply) => void;
  reject: (error: unknown) => void;
}

/** The limiter's Redis work of one event-loop turn, sent together on `setImmediate`. */
interface Turn {
  /** Releases per in-flight set: one `ZREM set id…` per set. */
  releases: Map<string, string[]>;
  acquires: PendingAcquire[];
  /** Resolves once the turn's commands were answered (or failed); never rejects. */
  sent: Promise<void>;
}

const NO_LEASE: Lease = { release: async () => undefined };

/** Lease ids: unique across replicas by a random prefix per process, then a counter (no UUID per request). */
const LEASE_PREFIX = `${randomUUID()}:`;
let leaseCounter = 0;

/**
 * A key's requests per window and its requests in flight, both shared by every replica
 * through Redis, decided in **one** Redis command per request, plus the
 * slot's `ZREM` when the request ends. Semantics of `RequestRateLimiter.consume` followed by
 * a semaphore with leases: a fixed window from the key's first request; a refusal by
 * the window counts in it and takes no slot; a refusal for concurrency has counted a point
 * of the window. All the acquires and releases of one event-loop turn leave in one pipeline
 * (one write, one round trip): the releases first, one `ZREM` per key, then one
 * acquire script per request, in the order they were asked, so Redis decides exactly as for
 * the same calls made one after the other. Held leases are renewed together, every third of
 * `leaseTtlMs`, by one timer per limiter (not one per request). Redis down: fail open
 * (`degraded`), counted by the store.
 */
export class KeyLimiter {
  private readonly logger = new Logger('RateLimit');
  private readonly commands: LimiterCommands;
  /** In-flight set key -> lease ids this process holds in it. */
  private readonly held = new Map<string, Set<string>>();
  private renewTimer?: NodeJS.Timeout;
  private renewing = false;
  /** The commands of this loop turn, not sent yet. */
  private turn?: Turn;

  constructor(
    private readonly store: LimiterStore,
    private readonly options: KeyLimiterOptions,
  ) {
    const redis = store.redis;
    if (!('gwKeyLimitsAcquire' in redis)) {
      redis.defineCommand('gwKeyLimitsAcquire', { numberOfKeys: 2, lua: ACQUIRE_LUA });
      redis.defineCommand('gwKeyLimitsRenew', { numberOfKeys: 1, lua: RENEW_LUA });
    }
    this.commands = redis as unknown as LimiterCommands;
  }

  async acquire(key: string, rateLimit: number, concurrencyLimit: number): Promise<KeyLimitsDecision> {
    const { rateName, concurrencyName, durationSeconds, leaseTtlMs } = this.options;
    const slotKey = `semaphore:conc:${concurrencyName}:${key}`;
    const leaseId = LEASE_PREFIX + (leaseCounter++).toString(36);
    let result: AcquireReply;
    try {
      if (this.store.redis.status !== 'ready') throw new Error('Redis connection is not ready');
      const args: AcquireArgs = [
        `rate:${rateName}:${key}`,
        slotKey,
        durationSeconds,
        rateLimit,
        concurrencyLimit,
        leaseId,
        Date.now(),
        leaseTtlMs,
      ];
      result = await new Promise<AcquireReply>((resolve, reject) => this.currentTurn().acquires.push({ args, resolve, reject }));
    } catch (error) {
      this.store.reportUnavailable(rateName, error);
      return {
        rate: {
          allowed: true,
          limit: rateLimit,
          remaining: rateLimit,
          resetAt: Date.now() + durationSeconds * 1000,
          retryAfterSeconds: 0,
          degraded: true,
        },
        slot: { allowed: true, limit: concurrencyLimit, lease: NO_LEASE, degraded: true },
      };
    }
    const [consumed, ttlMs, slot] = result;
    const rateAllowed = slot !== -1;
    const rate: RateDecision = {
      allowed: rateAllowed,
      limit: rateLimit,
      remaining: Math.max(rateLimit - consumed, 0),
      resetAt: Date.now() + ttlMs,
      retryAfterSeconds: rateAllowed ? 0 : Math.max(1, Math.ceil(ttlMs / 1000)),
      degraded: false,
    };
    if (!rateAllowed) {
      refusals.inc({ limiter: rateName });
      return { rate };
    }
    if (slot === 0) {
      refusals.inc({ limiter: concurrencyName });
      return { rate, slot: { allowed: false, limit: concurrencyLimit, retryAfterSeconds: 1, degraded: false } };
    }
    return { rate, slot: { allowed: true, limit: concurrencyLimit, lease: this.hold(slotKey, leaseId), degraded: false } };
  }

  /** Leases held by this process (all keys). */
  get heldCount(): number {
    let count = 0;
    for (const ids of this.held.values()) count += ids.size;
    return count;
  }

  /** Stops renewing (shutdown); held leases then lapse after `leaseTtlMs` unless released. */
  close(): void {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }

  private hold(slotKey: string, leaseId: string): Lease {
    let ids = this.held.get(slotKey);
    if (!ids) this.held.set(slotKey, (ids = new Set()));
    ids.add(leaseId);
    this.renewTimer ??= setInterval(() => void this.renew(), Math.max(1, Math.floor(this.options.leaseTtlMs / 3))).unref();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        this.forget(slotKey, leaseId);
        await this.queueRelease(slotKey, leaseId);
      },
    };
  }

  /**
   * Gives the slot back at the end of this loop turn, with the turn's other commands (many
   * requests end together under load): one `ZREM key id…` per in-flight set instead of one per
   * request. Resolves once Redis answered; never rejects (a lease not removed lapses after leaseTtlMs).
   */
  private queueRelease(slotKey: string, leaseId: string): Promise<void> {
    const turn = this.currentTurn();
    const ids = turn.releases.get(slotKey);
    if (ids) ids.push(leaseId);
    else turn.releases.set(slotKey, [leaseId]);
    return turn.sent;
  }

  /** This loop turn's batch, opened by its first command and sent on `setImmediate`. */
  private currentTurn(): Turn {
    if (this.turn) return this.turn;
    let markSent!: () => void;
    const turn: Turn = { releases: new Map(), acquires: [], sent: new Promise<void>((resolve) => (markSent = resolve)) };
    this.turn = turn;
    setImmediate(() => void this.send(turn).finally(markSent));
    return turn;
  }

  /**
   * One command alone is sent as such; two or more in one ioredis pipeline (one write, replies
   * in order): the releases, then the acquires in the order they were asked. Redis runs them
   * one after the other, as if each had been sent on its own.
   */
  private async send(turn: Turn): Promise<void> {
    this.turn = undefined;
    const { releases, acquires } = turn;
    if (releases.size === 0 && acquires.length === 1) {
      const { args, resolve, reject } = acquires[0]!;
      await this.commands.gwKeyLimitsAcquire(...args).then(resolve, reject);
      return;
    }
    if (releases.size === 1 && acquires.length === 0) {
      const [[slotKey, ids]] = releases;
      await this.store.redis
        .zrem(slotKey, ...ids)
        .catch((error: unknown) => this.store.reportUnavailable(this.options.concurrencyName, error));
      return;
    }
    const pipeline = this.store.redis.pipeline() as unknown as LimiterPipeline;
    for (const [slotKey, ids] of releases) pipeline.zrem(slotKey, ...ids);
    for (const { args } of acquires) pipeline.gwKeyLimitsAcquire(...args);
    let replies: Array<[Error | null, unknown]> | null = null;
    let failure: unknown = new Error('Redis sent no reply to the limiter pipeline');
    try {
      replies = await pipeline.exec();
    } catch (error) {
      failure = error;
    }
    let index = 0;
    for (let count = releases.size; count > 0; count--) {
      const error = replies?.[index++]?.[0] ?? (replies ? null : failure);
      if (error) this.store.reportUnavailable(this.options.concurrencyName, error);
    }
    for (const { resolve, reject } of acquires) {
      const reply = replies?.[index++];
      if (!reply) reject(failure);
      else if (reply[0]) reject(reply[0]);
      else resolve(reply[1] as AcquireReply);
    }
  }

  private forget(slotKey: string, leaseId: string): void {
    const ids = this.held.get(slotKey);
    if (!ids) return;
    ids.delete(leaseId);
    if (ids.size === 0) this.held.delete(slotKey);
    if (this.held.size === 0) this.close();
  }

  /** One command per in-flight set this process holds leases in; Redis down keeps the leases (they lapse if it lasts). */
  private async renew(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    try {
      const now = Date.now();
      await Promise.all(
        [...this.held].map(async ([slotKey, ids]) => {
          try {
            const lost = await this.commands.gwKeyLimitsRenew(slotKey, now, this.options.leaseTtlMs, ...ids);
            for (const leaseId of lost) {
              // Still counted as held here until released; the slot in Redis is free for others.
              this.logger.warn({ limiter: this.options.concurrencyName }, 'A concurrency lease expired while held');
              ids.delete(leaseId);
            }
            if (ids.size === 0) this.held.delete(slotKey);
          } catch (error) {
            this.store.reportUnavailable('lease-renewal', error);
          }
        }),
      );
      if (this.held.size === 0) this.close();
    } finally {
      this.renewing = false;
    }
  }
}
