import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type KeysUsedEvent, KeysUsed } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';

/**
 * Entries per event: about 105 bytes each, so 5,000 stay near 0.5 MB, under NATS's default
 * 1 MB max_payload (the contract allows 10,000, which would not fit).
 */
const KEYS_USED_CHUNK = 5_000;

/**
 * `last_used_at` without a database write per request: the guard notes key hash -> time in
 * memory, and every KEYS_USED_FLUSH_MS the gateway publishes what it saw as one
 * `events.keys.used` batch, which one management replica applies with one UPDATE.
 * A gateway that dies loses at most one interval of last-used times, which only inform.
 */
@Injectable()
export class KeyUsageTracker implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(KeyUsageTracker.name);
  private seen = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly nats: ResilientNatsConnection,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => this.flush(), this.env.KEYS_USED_FLUSH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.flush();
  }

  /** On the hot path: one Map write. */
  touch(keyHash: string, at = Date.now()): void {
    this.seen.set(keyHash, at);
  }

  /** Publishes and forgets what was seen since the last flush; returns how many keys. */
  flush(): number {
    if (this.seen.size === 0) return 0;
    const batch = this.seen;
    this.seen = new Map();
    const entries = [...batch].map(([keyHash, at]) => ({ keyHash, lastUsedAt: new Date(at).toISOString() }));
    try {
      for (let start = 0; start < entries.length; start += KEYS_USED_CHUNK) {
        const data: KeysUsedEvent = { entries: entries.slice(start, start + KEYS_USED_CHUNK) };
        this.nats.connection.publish(KeysUsed.subject, JSON.stringify({ pattern: KeysUsed.subject, data }));
      }
    } catch (error) {
      // NATS is down: keep the times for the next flush, unless newer ones arrived meanwhile.
      for (const [hash, at] of batch) if (!this.seen.has(hash)) this.seen.set(hash, at);
      this.logger.warn(`Could not publish keys.used: ${(error as Error).message}`);
    }
    return entries.length;
  }
}
