import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { EVENTS, type KeysChangedEvent } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';

/** Management's own NATS connection for events and the usage consumer (not the RPC server's). */
export const MANAGEMENT_EVENTS_CONNECTION = Symbol('MANAGEMENT_EVENTS_CONNECTION');

/** KeysChangedEvent carries at most this many hashes (its contract's bound). */
export const KEYS_CHANGED_CHUNK = 1000;

/**
 * Publishes `events.keys.changed`, so every gateway drops the cached principal of these keys
 * and asks management again: after an update, a delete, a limit crossed, or credits running
 * out or coming back. Plain NATS (not JetStream): a lost event only delays the change until
 * the gateway's cache entry expires (ADR 0007), which auth's ttl bounds.
 */
@Injectable()
export class KeyEventsPublisher implements OnApplicationShutdown {
  private readonly logger = new Logger(KeyEventsPublisher.name);

  constructor(@Inject(MANAGEMENT_EVENTS_CONNECTION) readonly nats: ResilientNatsConnection) {}

  keysChanged(keyHashes: readonly string[]): void {
    if (keyHashes.length === 0) return;
    try {
      for (let start = 0; start < keyHashes.length; start += KEYS_CHANGED_CHUNK) {
        const data: KeysChangedEvent = { keyHashes: keyHashes.slice(start, start + KEYS_CHANGED_CHUNK) };
        this.nats.connection.publish(EVENTS.keysChanged, JSON.stringify({ pattern: EVENTS.keysChanged, data }));
      }
    } catch (error) {
      // The change is committed; gateways still pick it up when their cache entry expires.
      this.logger.warn(`Could not publish keys.changed for ${keyHashes.length} key(s): ${(error as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats.close();
  }
}
