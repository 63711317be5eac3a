import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, type UsageRecordedEvent } from '@gw/contracts';
import { ResilientNatsConnection, type UsagePrincipalVerifier } from '@gw/messaging';
import { UsageStreamConsumer, type UsageStreamConsumerStats } from '@gw/usage';
import { ManagementEventsPublisher, MANAGEMENT_EVENTS_CONNECTION } from '../messaging/management-events.publisher.js';
import { context, trace } from '@opentelemetry/api';
import { runWithRequestId, tracingEnabled } from '@gw/telemetry';
import { recordUsageBatch } from './usage-metrics.js';
import { UsageCountSpans } from './usage-spans.js';
import { UsageCounter } from './usage-counter.js';

/** LOG_LEVEL debug or trace: a line per counted event, with the request id of its generation. */
const debugLogs = ['debug', 'trace'].includes((process.env.LOG_LEVEL ?? '').toLowerCase());

function logCounted(logger: Logger, batch: UsageRecordedEvent[], counted: string[], spans: UsageCountSpans | undefined): void {
  const fresh = new Set(counted);
  for (const event of batch) {
    const line = () =>
      runWithRequestId(event.requestId, () =>
        logger.debug(
          { generationId: event.generationId, cost: event.cost, duplicate: !fresh.has(event.generationId) },
          'Usage event counted',
        ),
      );
    // With tracing on, the line carries the trace id of the generation too (its counting span).
    const span = spans?.of(event.generationId);
    if (span) context.with(trace.setSpan(context.active(), span), line);
    else line();
  }
}

export const USAGE_CONSUMER_OPTIONS = Symbol('USAGE_CONSUMER_OPTIONS');

export interface UsageConsumerOptions {
  /** Durable consumer name; replicas sharing it share the events (JETSTREAM.consumers.managementUsage). */
  durableName: string;
  /** Deliveries before an event that cannot be counted goes to DEAD_LETTERS (CONSUMER_MAX_DELIVERIES). */
  maxDeliveries?: number;
  /** For tests: the first nak delay of a poison event. */
  nakDelayMs?: number;
  /** Refuses (dead-letters) an event whose principal does not prove the gateway authorised it. */
  principals?: UsagePrincipalVerifier;
}

/**
 * Counts usage events from the JetStream stream USAGE: a durable pull consumer
 * with explicit acks hands them over in batches of up to 100 messages (or after 20 ms); each batch is
 * counted by one SQL statement and acked only after it committed. A database outage holds the
 * batch and retries it; a batch the database refuses is split, and an event it refuses alone is
 * dead-lettered after its delivery limit; a malformed event is terminated and logged.
 * Then gateways are told about keys that reached their limit or workspaces that ran dry.
 */
@Injectable()
export class UsageConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly consumer: UsageStreamConsumer;

  constructor(
    @Inject(MANAGEMENT_EVENTS_CONNECTION) nats: ResilientNatsConnection,
    counter: UsageCounter,
    events: ManagementEventsPublisher,
    @Inject(USAGE_CONSUMER_OPTIONS) options: UsageConsumerOptions,
  ) {
    const logger = new Logger(UsageConsumer.name);
    this.consumer = new UsageStreamConsumer(nats, {
      durableName: options.durableName,
      filterSubject: EVENTS.usageRecorded,
      // Messages, each of 1..100 events (a publisher batches under load): up to 100 messages per
      // statement, whatever arrived within 20 ms.
      batchSize: 100,
      batchWaitMs: 20,
      maxAckPending: 4_000,
      maxDeliveries: options.maxDeliveries,
      nakDelayMs: options.nakDelayMs,
      principals: options.principals,
      write: async (batch) => {
        // Tracing on: a span per event, in the trace of its generation.
        const spans = tracingEnabled() ? new UsageCountSpans(batch) : undefined;
        let outcome;
        try {
          outcome = await counter.countBatch(batch);
        } catch (error) {
          spans?.fail(error);
          throw error;
        }
        if (debugLogs) logCounted(logger, batch, outcome.counted, spans);
        spans?.end(outcome.counted);
        recordUsageBatch(batch.length, outcome.counted.length);
        events.keysChanged(outcome.keysToRefresh);
      },
      logger,
      retryMs: 2_000,
    });
  }

  stats(): UsageStreamConsumerStats {
    return this.consumer.stats();
  }

  onApplicationBootstrap(): void {
    this.consumer.start();
  }

  /** Before the connection closes (ManagementEventsPublisher closes it on application shutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer.stop();
  }
}
