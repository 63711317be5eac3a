import { openRedis } from '@gw/rate-limit';
import type { Redis } from 'ioredis';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { CacheEntry } from './cache-entry.js';
import type { ResponseCacheMetrics } from './cache-metrics.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** Entries below this are stored as plain JSON: a zlib round trip costs more than Redis saves on them. */
const COMPRESS_FROM_BYTES = 2_048;
const isGzip = (stored: Buffer): boolean => stored.length > 1 && stored[0] === 0x1f && stored[1] === 0x8b;

export interface CacheStoreOptions {
  redisUrl: string;
  keyPrefix: string;
  /** Largest entry stored, compressed. */
  maxEntryBytes: number;
  /** Most bytes (compressed) one workspace's entries hold: the entries nearest to expiry go first. */
  maxWorkspaceBytes: number;
  metrics: ResponseCacheMetrics;
  /** Told at most once per 10 s while Redis is unreachable. */
  warn: (message: string) => void;
}

/**
 * Stores one entry and keeps its workspace under its byte bound, atomically: the workspace's
 * index (a sorted set of entry keys by expiry, a hash of their sizes and the total) drops what
 * expired, then the entries nearest to expiry until the new one fits.
 * KEYS: entry, index zset, sizes hash. ARGV: payload, size, ttl ms, now ms, max bytes.
 */
const PUT_SCRIPT = `
local entry, zset, sizes = KEYS[1], KEYS[2], KEYS[3]
local size, ttl, now, max = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local function forget(member)
  local old = redis.call('HGET', sizes, member)
  if old then
    redis.call('HDEL', sizes, member)
    redis.call('HINCRBY', sizes, '#total', -tonumber(old))
  end
  redis.call('ZREM', zset, member)
end
for _, member in ipairs(redis.call('ZRANGEBYSCORE', zset, '-inf', now)) do forget(member) end
forget(entry)
local total = tonumber(redis.call('HGET', sizes, '#total') or '0')
local evicted = 0
while total + size > max do
  local oldest = redis.call('ZRANGE', zset, 0, 0)
  if #oldest == 0 then break end
  forget(oldest[1])
  redis.call('DEL', oldest[1])
  evicted = evicted + 1
  total = tonumber(redis.call('HGET', sizes, '#total') or '0')
end
redis.call('SET', entry, ARGV[1], 'PX', ttl)
redis.call('ZADD', zset, now + ttl, entry)
redis.call('HSET', sizes, entry, size)
redis.call('HINCRBY', sizes, '#total', size)
local horizon = redis.call('ZRANGE', zset, -1, -1, 'WITHSCORES')
local keep = math.max(ttl, tonumber(horizon[2]) - now)
redis.call('PEXPIRE', zset, keep)
redis.call('PEXPIRE', sizes, keep)
return evicted
`;

const OUTAGE_LOG_INTERVAL_MS = 10_000;

/**
 * The response cache in Redis: entries gzip-compressed (small ones plain), bounded per entry and
 * per workspace, keys under the workspace (`rc:<workspace>:<key>`), so no lookup can reach
 * another workspace's answers. Redis unreachable: every lookup is a miss and nothing is stored
 * (the request is answered upstream, never refused); one log line per 10 s.
 */
export class ResponseCacheStore {
  readonly redis: Redis;
  private lastOutageLog = 0;
  private connecting: Promise<void> | undefined;

  constructor(private readonly options: CacheStoreOptions) {
    this.redis = openRedis({
      redisUrl: options.redisUrl,
      keyPrefix: options.keyPrefix,
      connectionName: 'gw-response-cache',
      commandTimeoutMs: 1_000,
      lazyConnect: true,
    });
    this.redis.defineCommand('rcPut', { numberOfKeys: 3, lua: PUT_SCRIPT });
  }

  entryKey(workspaceId: string, key: string): string {
    return `rc:${workspaceId}:${key}`;
  }

  async get(workspaceId: string, key: string): Promise<CacheEntry | undefined> {
    try {
      await this.connected();
      const stored = await this.redis.getBuffer(this.entryKey(workspaceId, key));
      if (!stored) return undefined;
      this.options.metrics.bytesRead.inc(stored.length);
      const json = isGzip(stored) ? await gunzipAsync(stored) : stored;
      return JSON.parse(json.toString('utf8')) as CacheEntry;
    } catch (error) {
      this.unavailable(error);
      return undefined;
    }
  }

  /** False when not stored: too large, or Redis unavailable. */
  async put(workspaceId: string, key: string, entry: CacheEntry, ttlSeconds: number): Promise<boolean> {
    const json = Buffer.from(JSON.stringify(entry), 'utf8');
    const payload = json.length < COMPRESS_FROM_BYTES ? json : await gzipAsync(json);
    if (payload.length > this.options.maxEntryBytes) {
      this.options.metrics.skipped.inc({ reason: 'too_large' });
      return false;
    }
    try {
      await this.connected();
      const entryKey = this.entryKey(workspaceId, key);
      // The index holds entries by their full (prefixed) names, so the script can delete them.
      const evicted = (await (this.redis as unknown as RcPut).rcPut(
        entryKey,
        `rc-index:${workspaceId}`,
        `rc-sizes:${workspaceId}`,
        payload,
        payload.length,
        ttlSeconds * 1000,
        Date.now(),
        this.options.maxWorkspaceBytes,
      )) as number;
      this.options.metrics.bytesWritten.inc(payload.length);
      if (evicted > 0) this.options.metrics.evicted.inc(evicted);
      return true;
    } catch (error) {
      this.unavailable(error);
      return false;
    }
  }

  /** Takes the right to go upstream for `key` across replicas (coalescing); false when another holds it. */
  async lead(workspaceId: string, key: string, token: string, holdMs: number): Promise<boolean> {
    try {
      await this.connected();
      return (await this.redis.set(`rc-lock:${workspaceId}:${key}`, token, 'PX', holdMs, 'NX')) === 'OK';
    } catch (error) {
      this.unavailable(error);
      return true;
    }
  }

  async isLed(workspaceId: string, key: string): Promise<boolean> {
    try {
      return (await this.redis.exists(`rc-lock:${workspaceId}:${key}`)) === 1;
    } catch {
      return false;
    }
  }

  async unlead(workspaceId: string, key: string, token: string): Promise<void> {
    try {
      const lock = `rc-lock:${workspaceId}:${key}`;
      if ((await this.redis.get(lock)) === token) await this.redis.del(lock);
    } catch {
      // the lock lapses at its expiry
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  /** Connects on first use (a replica whose callers never opt in never connects), once for all callers. */
  private async connected(): Promise<void> {
    if (this.redis.status === 'wait') this.connecting ??= this.redis.connect().catch(() => undefined);
    if (this.connecting) await this.connecting;
  }

  private unavailable(error: unknown): void {
    this.options.metrics.unavailable.inc();
    if (Date.now() - this.lastOutageLog < OUTAGE_LOG_INTERVAL_MS) return;
    this.lastOutageLog = Date.now();
    this.options.warn(`Response cache unavailable, answering upstream: ${error instanceof Error ? error.message : String(error)}`);
  }
}

interface RcPut {
  rcPut(...args: Array<string | number | Buffer>): Promise<unknown>;
}
