import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { LRUCache } from 'lru-cache';
import { fetchAfterInvalidation } from './invalidated-fetch.js';

export interface EventInvalidatedCacheOptions<K extends NonNullable<unknown>, V extends NonNullable<unknown>, C> {
  /** Size, TTL and the lookup (`fetchMethod`) asking the owner. */
  lru: LRUCache.Options<K, V, C>;
  /** The NATS event that drops entries, heard by every replica (no queue group). */
  invalidatedBy: string;
  /** Drops what one event names. Throwing marks the event malformed: it is ignored. */
  invalidate: (message: Msg, entries: LRUCache<K, V, C>) => void;
  /** Told about a malformed event (a log line; the cache stays as it was). */
  onMalformed?: (error: unknown) => void;
}

/**
 * A per-replica LRU of answers another service owns, kept fresh by that service's change
 * events: the one shape behind the gateway's principals (`keys.changed`), inference's BYOK
 * credentials and presets (`byok.changed`, `presets.changed`) and intern-signing's interns
 * (`interns.deleted`). The TTL bounds what a lost event can leave stale; concurrent misses
 * for one key share one lookup (lru-cache's `fetchMethod`); an event that lands while a
 * lookup is in flight makes that lookup run again (`fetchAfterInvalidation`), so an answer
 * never predates the change that was announced.
 */
export class EventInvalidatedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>, C = unknown> {
  readonly entries: LRUCache<K, V, C>;
  private subscription?: Subscription;

  constructor(private readonly options: EventInvalidatedCacheOptions<K, V, C>) {
    this.entries = new LRUCache<K, V, C>(options.lru);
  }

  /** Starts hearing the invalidation event (a service's module init). */
  listen(connection: NatsConnection): void {
    this.subscription = connection.subscribe(this.options.invalidatedBy, {
      callback: (error, message) => {
        if (error) return;
        try {
          this.options.invalidate(message, this.entries);
        } catch (malformed) {
          this.options.onMalformed?.(malformed);
        }
      },
    });
  }

  close(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /** The cached answer, or the owner's (`fetchMethod`), asked once more if an event dropped it meanwhile. */
  fetch(key: K, options?: LRUCache.FetchOptions<K, V, C>): Promise<V | undefined> {
    // lru-cache types fetch's options by whether C is known; this class passes them through.
    const fetch = this.entries.fetch.bind(this.entries) as (key: K, options?: LRUCache.FetchOptions<K, V, C>) => Promise<V | undefined>;
    return fetchAfterInvalidation(() => fetch(key, options));
  }

  /** Drops an entry on this replica only (the owner's event tells the others). */
  delete(key: K): void {
    this.entries.delete(key);
  }
}
