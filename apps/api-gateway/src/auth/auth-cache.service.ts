import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type KeysChangedEvent, type Principal, AuthResolve, KeysChanged } from '@gw/contracts';
import { EventInvalidatedCache, ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { counter } from '@gw/metrics';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';

/** Hits are lookups minus misses (a miss asks management; concurrent misses for one key share it). */
const lookups = counter('gateway_auth_lookups_total', 'API key lookups on the auth cache', []);
const cacheMisses = counter('gateway_auth_cache_misses_total', 'API key lookups the auth cache had to ask management for', []);

/** `false` marks a key management does not know (or that is disabled or expired). */
type CachedPrincipal = Principal | false;

/**
 * Key hash -> principal, so the hot path does not ask management on every request.
 * Entries live at most AUTH_CACHE_TTL_SECONDS (and never longer than management allows,
 * which bounds a key's expiry), concurrent misses for one key share a single lookup, and
 * a `keys.changed` event from management drops an entry at once on every replica.
 */
@Injectable()
export class AuthCacheService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AuthCacheService.name);
  private readonly cache: EventInvalidatedCache<string, CachedPrincipal>;

  constructor(
    private readonly rpc: RpcClient,
    private readonly nats: ResilientNatsConnection,
    @Inject(GATEWAY_ENV) env: GatewayEnv,
  ) {
    const maxTtlMs = env.AUTH_CACHE_TTL_SECONDS * 1000;
    this.cache = new EventInvalidatedCache<string, CachedPrincipal>({
      max: env.AUTH_CACHE_MAX_ENTRIES,
      ttlMs: maxTtlMs,
      lookup: async (keyHash) => {
        cacheMisses.inc();
        const reply = await this.rpc.send(AuthResolve, { keyHash });
        return { value: reply.principal ?? false, ttlMs: Math.min(maxTtlMs, reply.ttlSeconds * 1000) };
      },
      invalidatedBy: KeysChanged.subject,
      invalidate: (message, entries) => {
        for (const hash of message.json<{ data: KeysChangedEvent }>().data?.keyHashes ?? []) entries.delete(hash);
      },
      onMalformed: () => this.logger.warn('Ignored a malformed keys.changed event'),
    });
  }

  onModuleInit(): void {
    this.cache.listen(this.nats.connection);
  }

  onModuleDestroy(): void {
    this.cache.close();
  }

  /** Drops these keys' principals now (this replica; the others hear `keys.changed`). */
  forget(keyHashes: readonly string[]): void {
    for (const hash of keyHashes) this.cache.delete(hash);
  }

  /** The principal for a key hash, or null when the key must be refused. */
  async resolve(keyHash: string): Promise<Principal | null> {
    lookups.inc();
    return (await this.cache.fetch(keyHash)) || null;
  }
}
