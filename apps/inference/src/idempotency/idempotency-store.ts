import { closeRedis, openRedis, redisReady } from '@gw/rate-limit';
import type { Redis } from 'ioredis';

/** What a claim found: the key is ours now, another request's outcome, or a request still running. */
export type Claim = { kind: 'claimed'; takeover: boolean } | { kind: 'done'; outcome: string } | { kind: 'running' } | { kind: 'mismatch' };

export interface IdempotencyStoreOptions {
  redisUrl: string;
  keyPrefix: string;
  /** How long a finished outcome (and a claim) is kept. */
  ttlMs: number;
  /** A running claim not renewed for this long belongs to a dead replica: the next retry takes it over. */
  leaseMs: number;
}

// A hash per scoped key: fp (route and body digest), state (running | done), owner and until while
// running, outcome when done. The scripts read the small fields only; the outcome is returned when done.
const CLAIM = `
local r = redis.call('HMGET', KEYS[1], 'fp', 'state', 'owner', 'until')
if not r[1] then
  redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'state', 'running', 'owner', ARGV[2], 'until', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'claimed'}
end
if r[1] ~= ARGV[1] then return {'mismatch'} end
if r[2] == 'done' then return {'done', redis.call('HGET', KEYS[1], 'outcome')} end
if tonumber(r[4]) < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'until', ARGV[4])
  return {'claimed', 'takeover'}
end
return {'running'}`;

const RENEW = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'state') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'until', ARGV[2])
return 1`;

const COMPLETE = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'state') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'outcome', ARGV[2])
redis.call('HDEL', KEYS[1], 'owner', 'until')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

const RELEASE = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'state') ~= 'running' then return 0 end
redis.call('DEL', KEYS[1])
return 1`;

/** How long a claim waits for a connection that is being made. */
const CONNECT_WAIT_MS = 1_000;

type ScriptRedis = Redis & {
  idemClaim(key: string, fingerprint: string, owner: string, now: string, until: string, ttl: string): Promise<string[]>;
  idemRenew(key: string, owner: string, until: string): Promise<number>;
  idemComplete(key: string, owner: string, outcome: string, ttl: string): Promise<number>;
  idemRelease(key: string, owner: string): Promise<number>;
};

/**
 * Claims and outcomes of idempotent requests in Redis, shared by every inference replica. Every
 * change is one script, so two replicas never both own a key; a claim carries a lease its owner
 * renews while it runs, so a replica that dies holds its keys one lease at most. The client never
 * queues commands while disconnected: an outage is an error at once, the caller decides.
 */
export class IdempotencyStore {
  readonly redis: ScriptRedis;

  constructor(private readonly options: IdempotencyStoreOptions) {
    this.redis = openRedis({
      redisUrl: options.redisUrl,
      keyPrefix: options.keyPrefix,
      connectionName: 'gw-idempotency',
      commandTimeoutMs: 2_000,
    }) as ScriptRedis;
    this.redis.defineCommand('idemClaim', { numberOfKeys: 1, lua: CLAIM });
    this.redis.defineCommand('idemRenew', { numberOfKeys: 1, lua: RENEW });
    this.redis.defineCommand('idemComplete', { numberOfKeys: 1, lua: COMPLETE });
    this.redis.defineCommand('idemRelease', { numberOfKeys: 1, lua: RELEASE });
  }

  get leaseMs(): number {
    return this.options.leaseMs;
  }

  async claim(key: string, fingerprint: string, owner: string): Promise<Claim> {
    // Connecting (at start, or reconnecting after a blip): a short wait, not an outright refusal.
    if (this.redis.status !== 'ready') await redisReady(this.redis, CONNECT_WAIT_MS);
    const now = Date.now();
    const [kind, detail] = await this.redis.idemClaim(
      key,
      fingerprint,
      owner,
      String(now),
      String(now + this.options.leaseMs),
      String(this.options.ttlMs),
    );
    if (kind === 'claimed') return { kind, takeover: detail === 'takeover' };
    if (kind === 'done') return { kind, outcome: detail ?? '' };
    if (kind === 'mismatch') return { kind };
    return { kind: 'running' };
  }

  /** False when the claim is no longer this owner's (its lease lapsed and a retry took it over). */
  async renew(key: string, owner: string): Promise<boolean> {
    return (await this.redis.idemRenew(key, owner, String(Date.now() + this.options.leaseMs))) === 1;
  }

  /** Stores the outcome for the key's retries; false when the claim is no longer this owner's. */
  async complete(key: string, owner: string, outcome: string): Promise<boolean> {
    return (await this.redis.idemComplete(key, owner, outcome, String(this.options.ttlMs))) === 1;
  }

  /** Gives the key up (nothing billed, the failure worth a retry): the next request with it runs afresh. */
  async release(key: string, owner: string): Promise<void> {
    await this.redis.idemRelease(key, owner);
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }
}
