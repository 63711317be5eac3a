import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EVENTS, type WorkspaceChangedEvent } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';

const encoder = new TextEncoder();

/**
 * Publishes `events.presets.changed` when a new version is designated, so inference drops
 * its cached copy of the workspace's presets. Core NATS, at most once: a lost event only
 * delays the change until the cache entry expires (inference keeps presets briefly).
 * The message is Nest's event packet (`{pattern, data}`), readable by `@EventPattern` and
 * by a plain subscription alike. Publishing never blocks or fails the write it follows.
 */
@Injectable()
export class PresetEventsPublisher implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PresetEventsPublisher.name);
  private nats?: ResilientNatsConnection;

  constructor(@Inject(MANAGEMENT_ENV) private readonly env: ManagementEnv) {}

  async onModuleInit(): Promise<void> {
    this.nats = await ResilientNatsConnection.open({ servers: this.env.NATS_URL, name: 'management-preset-events' });
  }

  async onModuleDestroy(): Promise<void> {
    await this.nats?.close();
  }

  presetsChanged(workspaceId: string): void {
    const event: WorkspaceChangedEvent = { workspaceId };
    try {
      this.nats?.connection.publish(EVENTS.presetsChanged, encoder.encode(JSON.stringify({ pattern: EVENTS.presetsChanged, data: event })));
    } catch (error) {
      // The version is committed; a missed invalidation heals when the cache entry expires.
      this.logger.warn(`Could not publish ${EVENTS.presetsChanged} for workspace ${workspaceId}: ${(error as Error).message}`);
    }
  }
}
