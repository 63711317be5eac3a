import { Injectable } from '@nestjs/common';
import { EVENTS, type UsageRecordedBatch, type UsageRecordedEvent } from '@gw/contracts';
import { JetStreamPublisher, ResilientNatsConnection } from '@gw/messaging';
import { ensureUsageStream } from '@gw/usage';

const PUBLISH_TIMEOUT_MS = 5_000;

/**
 * Publishes a batch's one charge to the USAGE stream with `Nats-Msg-Id` = the batch
 * id; management counts it like a generation, once per id in its ledger, so a republish (after
 * a lost PubAck or a crash) charges nothing twice.
 */
@Injectable()
export class ChargePublisher {
  private client: JetStreamPublisher | undefined;
  private streamReady: Promise<unknown> | undefined;

  constructor(private readonly nats: ResilientNatsConnection) {}

  async publish(event: UsageRecordedEvent): Promise<void> {
    await this.send(JSON.stringify(event), event.generationId);
  }

  /**
   * Generations of a batch's lines, several per message (`UsageRecordedBatch`); `messageId` names
   * the message among the batch's, so a republish of the same lines is dropped by JetStream, and
   * past its window each event is still recorded once by its generation id.
   */
  async publishLines(events: UsageRecordedEvent[], messageId: string): Promise<void> {
    await this.send(JSON.stringify({ events } satisfies UsageRecordedBatch), messageId);
  }

  private async send(payload: string, messageId: string): Promise<void> {
    this.client ??= new JetStreamPublisher(this.nats.connection, PUBLISH_TIMEOUT_MS);
    this.streamReady ??= ensureUsageStream(this.nats.connection, this.nats.jetstream);
    try {
      await this.streamReady;
      await this.client.publish(EVENTS.usageRecorded, payload, messageId);
    } catch (error) {
      this.streamReady = undefined;
      throw error;
    }
  }
}
