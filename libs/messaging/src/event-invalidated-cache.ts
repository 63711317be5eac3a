import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { LRUCache } from 'lru-cache';

/** What the owner answered: `value` undefined is "nothing", not kept; `ttlMs` shortens this entry's life. */
export interface OwnerAnswer<V> {
  value: V | undefined;
  ttlMs?: number;
}

/** What an invalidation may do: the keys known (cached or being looked up) and dropping one. */
export interface InvalidatableEntries<K> {
  keys(): Iterable<K>;
  delete(key: K): void;
}

export interface EventInvalidatedCacheOptions<K extends NonNullable<unknown>, V extends NonNullable<unknown>, C> {
  /** Most entries kept (least recently used dropped first). */
  max: number;
  /** Longest an entry is kept without an event. */
  ttlMs: number;
  /** Asks the owner. Its rejection reaches every caller waiting on it and is not kept. */
  lookup: (key: K, context: C | undefined) => Promise<OwnerAnswer<V>>;
  /** When the owner cannot answer, the last answer, expired but never invalidated, is used instead. */
  staleOnFailure?: boolean;
  /** The NATS event that drops entries, heard by every replica (no queue group). */
  invalidatedBy: string;
  /** Drops what one event names. Throwing marks the event malformed: it is ignored. */
  invalidate: (message: Msg, entries: InvalidatableEntries<K>) => void;
  /** Told about a malformed event (a log line; the cache stays as it was). */
  onMalformed?: (error: unknown) => void;
}

/** One lookup in flight, shared by every caller that missed the key meanwhile. */
interface Flight<V> {
  answer: Promise<V | undefined>;
  /** Set by an event naming the key while this lookup ran: its answer may predate the change. */
  detached: boolean;
}

/**
 * A per-replica LRU of answers another service owns, kept fresh by that service's change
 * events: the gateway's principals (`keys.changed`), inference's BYOK credentials and presets
 * (`byok.changed`, `presets.changed`) and intern-signing's interns (`interns.deleted`). The TTL
 * bounds what a lost event can leave stale; concurrent misses share one lookup. An event that
 * lands while a lookup is in flight detaches it: its answer is not kept, and its callers take the
 * answer of a lookup started after the event, which no later event can take from them.
 */
export class EventInvalidatedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>, C = unknown> {
  readonly entries: LRUCache<K, V>;
  private readonly flights = new Map<K, Flight<V>>();
  private subscription?: Subscription;

  constructor(private readonly options: EventInvalidatedCacheOptions<K, V, C>) {
    // An expired entry stays until evicted or invalidated, for staleOnFailure; `get` never returns it.
    this.entries = new LRUCache<K, V>({ max: options.max, ttl: Math.max(1, options.ttlMs), noDeleteOnStaleGet: !!options.staleOnFailure });
  }

  /** Starts hearing the invalidation event (a service's module init). */
  listen(connection: NatsConnection): void {
    const view: InvalidatableEntries<K> = {
      keys: () => new Set([...this.entries.keys(), ...this.flights.keys()]),
      delete: (key) => this.delete(key),
    };
    this.subscription = connection.subscribe(this.options.invalidatedBy, {
      callback: (error, message) => {
        if (error) return;
        try {
          this.options.invalidate(message, view);
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

  /** The cached answer, or the owner's; never one from a lookup an event overtook. */
  async fetch(key: K, context?: C): Promise<V | undefined> {
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached;
    const flight = this.flightFor(key, context);
    const value = await flight.answer;
    return flight.detached ? this.flightFor(key, context).answer : value;
  }

  /** Drops an entry on this replica only (the owner's event tells the others). */
  delete(key: K): void {
    this.entries.delete(key);
    const flight = this.flights.get(key);
    if (!flight) return;
    flight.detached = true;
    this.flights.delete(key);
  }

  private flightFor(key: K, context: C | undefined): Flight<V> {
    const current = this.flights.get(key);
    if (current) return current;
    const flight: Flight<V> = { answer: Promise.resolve(undefined), detached: false };
    flight.answer = Promise.resolve()
      .then(() => this.options.lookup(key, context))
      .then(
        ({ value, ttlMs }) => {
          if (flight.detached) return value;
          this.flights.delete(key);
          // A ttl of 0 would mean "forever" to lru-cache: 1 ms is "do not keep".
          if (value !== undefined) this.entries.set(key, value, ttlMs === undefined ? undefined : { ttl: Math.max(1, ttlMs) });
          return value;
        },
        (error: unknown) => {
          if (this.flights.get(key) === flight) this.flights.delete(key);
          const stale = this.options.staleOnFailure ? this.entries.get(key, { allowStale: true }) : undefined;
          if (stale !== undefined) return stale;
          throw error;
        },
      );
    this.flights.set(key, flight);
    return flight;
  }
}
