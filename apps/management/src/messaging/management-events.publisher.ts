import { Inject, Injectable, Logger, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { type KeysChangedEvent, type WorkspaceChangedEvent, ByokChanged, KeysChanged, PresetsChanged } from '@gw/contracts';
import { jetStreamPlacementFromEnv, natsAuthFromEnv, ResilientNatsConnection } from '@gw/messaging';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';

/** Management's own NATS connection for events and the usage consumer (not the RPC server's). */
export const MANAGEMENT_EVENTS_CONNECTION = Symbol('MANAGEMENT_EVENTS_CONNECTION');

export const MANAGEMENT_EVENTS_CONNECTION_PROVIDER: Provider = {
  provide: MANAGEMENT_EVENTS_CONNECTION,
  inject: [MANAGEMENT_ENV],
  useFactory: (env: ManagementEnv) =>
    ResilientNatsConnection.open({
      servers: env.NATS_URL,
      name: 'management-events',
      auth: natsAuthFromEnv(env, 'management'),
      jetstream: jetStreamPlacementFromEnv(env),
    }),
};

/** KeysChangedEvent carries at most this many hashes (its contract's bound). */
const KEYS_CHANGED_CHUNK = 1000;

const encoder = new TextEncoder();

/**
 * Every event management publishes, on one connection, in Nest's event packet
 * (`{pattern, data}`, readable by `@EventPattern` and a plain subscription alike). Core NATS,
 * at most once: each event only invalidates a cache whose entries also expire on their own
 * (auth ≤ 60 s; BYOK 30 s and presets 10 s in inference), so a lost event delays a
 * change, never loses it. Publishing never blocks or fails the committed write it follows.
 * No event carries a secret: BYOK and preset events name the workspace only.
 */
@Injectable()
export class ManagementEventsPublisher implements OnApplicationShutdown {
  private readonly logger = new Logger(ManagementEventsPublisher.name);

  constructor(@Inject(MANAGEMENT_EVENTS_CONNECTION) private readonly nats: ResilientNatsConnection) {}

  /** Gateways drop these keys' cached principals: after an update, a delete, a limit crossed, credits out or back. */
  keysChanged(keyHashes: readonly string[]): void {
    for (let start = 0; start < keyHashes.length; start += KEYS_CHANGED_CHUNK) {
      const data: KeysChangedEvent = { keyHashes: keyHashes.slice(start, start + KEYS_CHANGED_CHUNK) };
      this.publish(KeysChanged.subject, data, `${data.keyHashes.length} key(s)`);
    }
  }

  /** Inference replicas drop the workspace's cached BYOK credentials. */
  byokChanged(workspaceId: string): void {
    this.publish(ByokChanged.subject, { workspaceId } satisfies WorkspaceChangedEvent, `workspace ${workspaceId}`);
  }

  /** Inference replicas drop the workspace's cached presets. */
  presetsChanged(workspaceId: string): void {
    this.publish(PresetsChanged.subject, { workspaceId } satisfies WorkspaceChangedEvent, `workspace ${workspaceId}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats.close();
  }

  private publish(subject: string, data: unknown, about: string): void {
    try {
      this.nats.connection.publish(subject, encoder.encode(JSON.stringify({ pattern: subject, data })));
    } catch (error) {
      this.logger.warn(`Could not publish ${subject} for ${about}: ${(error as Error).message}`);
    }
  }
}
