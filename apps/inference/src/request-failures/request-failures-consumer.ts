import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { EVENTS, JETSTREAM, type RequestFailedEvent } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { parseRequestFailedEvents, UsageStreamConsumer, type UsageStreamConsumerStats } from '@gw/usage';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { deleteExpiredRequestFailures, insertRequestFailures } from './request-failure-rows.js';

const RETENTION_SWEEP_MS = 3_600_000;

/**
 * Writes `request_failures` and their hourly sums from `events.usage.failed` (one durable consumer for
 * all replicas), acked after commit; ON CONFLICT on the failure id counts a redelivery once. Hourly,
 * each replica deletes rows past their retention (idempotent, so replicas may overlap).
 */
@Injectable()
export class RequestFailuresConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RequestFailuresConsumer.name);
  private readonly consumer: UsageStreamConsumer<RequestFailedEvent>;
  private sweep?: NodeJS.Timeout;

  constructor(
    nats: ResilientNatsConnection,
    private readonly prisma: PrismaService,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    this.consumer = new UsageStreamConsumer<RequestFailedEvent>(nats, {
      durableName: JETSTREAM.consumers.inferenceRequestFailures,
      filterSubject: EVENTS.requestFailed,
      batchSize: 50,
      batchWaitMs: 20,
      maxAckPending: 4_096,
      maxDeliveries: env.CONSUMER_MAX_DELIVERIES,
      parse: parseRequestFailedEvents,
      idOf: (event) => event.failureId,
      write: async (events) => {
        await prisma.pool.query(insertRequestFailures(events));
      },
      logger: this.logger,
    });
  }

  stats(): UsageStreamConsumerStats {
    return this.consumer.stats();
  }

  onApplicationBootstrap(): void {
    this.consumer.start();
    this.sweep = setInterval(() => void this.deleteExpired(), RETENTION_SWEEP_MS);
    this.sweep.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweep);
    await this.consumer.stop();
  }

  private async deleteExpired(): Promise<void> {
    try {
      await this.prisma.pool.query(deleteExpiredRequestFailures(Date.now()));
    } catch (error) {
      this.logger.warn(`Expired request failures not deleted yet: ${(error as Error).message}`);
    }
  }
}
