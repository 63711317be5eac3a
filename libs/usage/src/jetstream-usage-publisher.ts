import { EVENTS, type UsageRecordedBatch, type UsageRecordedEvent } from '@gw/contracts';
import { JetStreamPublisher, type JetStreamPlacement } from '@gw/messaging';
import { ensureUsageStream } from './usage-stream.js';
import { createHash } from 'node:crypto';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { REQUEST_ID_HEADER, TRACEPARENT_HEADER } from '@gw/telemetry';

const encoder = new TextEncoder();

const PUBLISH_TIMEOUT_MS = 5_000;

/** The same batch published again (its ack was lost) is dropped by JetStream as a duplicate. */
function batchMessageId(events: UsageRecordedEvent[]): string {
  const hash = createHash('sha256');
  for (const event of events) hash.update(event.generationId).update('\n');
  return `batch-${hash.digest('hex')}`;
}

/**
 * Publishes usage events to the USAGE stream: one event bare with `Nats-Msg-Id` = generation
 * id, several as a `UsageRecordedBatch` whose id hashes theirs, so a retried publish is dropped
 * by JetStream as a duplicate. Makes sure the stream exists first (and again after a failure:
 * the stream may have been missing). Plain JSON, not a Nest packet.
 */
export class JetStreamUsagePublisher {
  private readonly client: JetStreamPublisher;
  private streamReady: Promise<unknown> | undefined;

  constructor(
    private readonly connection: NatsConnection,
    private readonly placement: JetStreamPlacement,
  ) {
    this.client = new JetStreamPublisher(connection, PUBLISH_TIMEOUT_MS);
  }

  /** One event goes out bare (`Nats-Msg-Id` = its generation id), several as `{events}` (a hash of their ids). */
  readonly publish = async (events: UsageRecordedEvent[]): Promise<void> => {
    this.streamReady ??= ensureUsageStream(this.connection, this.placement);
    try {
      await this.streamReady;
      if (events.length === 1)
        await this.client.publishBytes(
          EVENTS.usageRecorded,
          encoder.encode(JSON.stringify(events[0])),
          events[0]!.generationId,
          headersOf(events[0]!),
        );
      else await this.client.publish(EVENTS.usageRecorded, JSON.stringify({ events } satisfies UsageRecordedBatch), batchMessageId(events));
    } catch (error) {
      this.streamReady = undefined;
      throw error;
    }
  };

  close(): void {
    this.client.close();
  }
}

/** A message of one event carries its request id and trace context as headers too, for tools that read those. */
function headersOf(event: UsageRecordedEvent) {
  const headers = natsHeaders();
  if (event.requestId) headers.set(REQUEST_ID_HEADER, event.requestId);
  if (event.traceparent) headers.set(TRACEPARENT_HEADER, event.traceparent);
  return headers;
}
