import { EVENTS, type UsageRecordedEvent } from '@gw/contracts';
import { ensureUsageStream, JetStreamPublisher } from '@gw/messaging';
import type { NatsConnection } from '@nats-io/transport-node';

const PUBLISH_TIMEOUT_MS = 5_000;

/**
 * Publishes a usage event to the USAGE stream with `Nats-Msg-Id` = generation id, so
 * JetStream stores each generation once even when a publish is retried. Makes sure the
 * stream exists first (and again after a failure: the stream may have been missing).
 * The payload is the bare event as JSON (not a Nest packet): consumers read it with
 * `msg.json()`.
 */
export class JetStreamUsagePublisher {
  private readonly client: JetStreamPublisher;
  private streamReady: Promise<unknown> | undefined;

  constructor(private readonly connection: NatsConnection) {
    this.client = new JetStreamPublisher(connection, PUBLISH_TIMEOUT_MS);
  }

  readonly publish = async (event: UsageRecordedEvent): Promise<void> => {
    this.streamReady ??= ensureUsageStream(this.connection);
    try {
      await this.streamReady;
      await this.client.publish(EVENTS.usageRecorded, JSON.stringify(event), event.generationId);
    } catch (error) {
      this.streamReady = undefined;
      throw error;
    }
  };

  close(): void {
    this.client.close();
  }
}
