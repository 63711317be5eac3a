import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { EVENTS, type WorkspaceChangedEvent } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';

export const BYOK_EVENTS_CONNECTION = Symbol('BYOK_EVENTS_CONNECTION');

/**
 * Tells every inference replica that a workspace's BYOK credentials changed, so it drops what
 * it cached. The event names the workspace only: never a secret, label or credential field.
 * Sent in Nest's event format (`{pattern, data}`), like `events.keys.changed`.
 */
@Injectable()
export class ByokEventsPublisher implements OnApplicationShutdown {
  constructor(@Inject(BYOK_EVENTS_CONNECTION) private readonly nats: ResilientNatsConnection) {}

  workspaceChanged(workspaceId: string): void {
    const data: WorkspaceChangedEvent = { workspaceId };
    this.nats.connection.publish(EVENTS.byokChanged, JSON.stringify({ pattern: EVENTS.byokChanged, data }));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats.close();
  }
}
