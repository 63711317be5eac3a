import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, type UsageRecordedEvent } from '@gw/contracts';
import { BatchedUsageConsumer, parseUsageEvents, ResilientNatsConnection } from '@gw/messaging';
import { ManagementEventsPublisher, MANAGEMENT_EVENTS_CONNECTION } from '../messaging/management-events.publisher.js';
import { recordUsageBatch } from './usage-metrics.js';
import { UsageRecorder } from './usage-recorder.js';

export const USAGE_CONSUMER_OPTIONS = Symbol('USAGE_CONSUMER_OPTIONS');

export interface UsageConsumerOptions {
  /** Durable consumer name; replicas sharing it share the events (JETSTREAM.consumers.managementUsage). */
  durableName: string;
}

/**
 * Counts usage events from the JetStream stream USAGE (docs/adr/0017): a durable pull consumer
 * with explicit acks hands them over in batches of up to 20 messages (or after 20 ms); each batch is
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
    const logger = new Logger(UsageConsumer.name);
    this.consumer = new BatchedUsageConsumer(nats, {
      durableName: options.durableName,
      filterSubject: EVENTS.usageRecorded,
      // Messages, each of 1..100 events (a publisher batches under load): at most 2,000 events a transaction.
      batchSize: 20,
      batchWaitMs: 20,
      maxAckPending: 4_000,
      parse: (data) => parseUsageEvents(data, (index) => logger.error(`Left out invalid usage event #${index} of a batch`)),
      write: async (batch) => {
        const outcome = await recorder.recordBatch(batch);
        recordUsageBatch(batch.length, outcome.counted.length);
        events.keysChanged(outcome.keysToRefresh);
      },
      logger,
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
