import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { EVENTS, type KeysChangedEvent } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';

/** Tells every gateway replica to drop cached auth for keys that changed. */
@Injectable()
export class KeyEventsPublisher implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(KeyEventsPublisher.name);
  private nats?: ResilientNatsConnection;

  constructor(@Inject(MANAGEMENT_ENV) private readonly env: ManagementEnv) {}

  async onModuleInit(): Promise<void> {
    this.nats = await ResilientNatsConnection.open({ servers: this.env.NATS_URL, name: 'management-events' });
  }

  keysChanged(keyHashes: string[]): void {
    const event: KeysChangedEvent = { keyHashes };
    if (!this.nats?.isConnected()) {
      // Gateways still drop the entry when its bounded TTL runs out.
      this.logger.warn({ count: keyHashes.length }, 'NATS unavailable: keys.changed not published');
      return;
    }
    this.nats.connection.publish(EVENTS.keysChanged, JSON.stringify({ pattern: EVENTS.keysChanged, data: event }));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats?.close();
  }
}
