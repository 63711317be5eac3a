import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, type UsageRecordedEvent } from '@gw/contracts';
import { BatchedUsageConsumer, parseUsageEvent, ResilientNatsConnection } from '@gw/messaging';
import { ManagementEventsPublisher, MANAGEMENT_EVENTS_CONNECTION } from '../messaging/management-events.publisher.js';
import { UsageRecorder } from './usage-recorder.js';

export const USAGE_CONSUMER_OPTIONS = Symbol('USAGE_CONSUMER_OPTIONS');

export interface UsageConsumerOptions {
  /** Durable consumer name; replicas sharing it share the events (JETSTREAM.consumers.managementUsage). */
  durableName: string;
}

/**
 * Counts usage events from the JetStream stream USAGE (docs/adr/0017): a durable pull consumer
 * with explicit acks hands them over in batches of up to 200 (or after 20 ms); each batch is
 * counted in one transaction and acked only after it committed. A database failure naks the
 * batch for a later retry; a malformed event is terminated and logged, not redelivered forever.
 * Then gateways are told about keys that reached their limit or workspaces that ran dry.
 */
@Injectable()
export class UsageConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly consumer: BatchedUsageConsumer<UsageRecordedEvent>;

  constructor(
    @Inject(MANAGEMENT_EVENTS_CONNECTION) nats: ResilientNatsConnection,
    recorder: UsageRecorder,
    events: ManagementEventsPublisher,
    @Inject(USAGE_CONSUMER_OPTIONS) options: UsageConsumerOptions,
  ) {
    this.consumer = new BatchedUsageConsumer(nats, {
      durableName: options.durableName,
      filterSubject: EVENTS.usageRecorded,
      batchSize: 200,
      batchWaitMs: 20,
      maxAckPending: 4_000,
      parse: parseUsageEvent,
      write: async (batch) => {
        const outcome = await recorder.recordBatch(batch);
        events.keysChanged(outcome.keysToRefresh);
      },
      logger: new Logger(UsageConsumer.name),
      retryMs: 2_000,
    });
  }

  onApplicationBootstrap(): void {
    this.consumer.start();
  }

  /** Before the connection closes (ManagementEventsPublisher closes it on application shutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer.stop();
  }
}
