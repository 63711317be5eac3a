import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { EVENTS, JETSTREAM } from '@gw/contracts';
import { ResilientNatsConnection, UsagePrincipalVerifier } from '@gw/messaging';
import { UsageStreamConsumer, type UsageStreamConsumerStats } from '@gw/usage';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { GenerationPartitions } from './generation-partitions.service.js';
import { insertGenerations } from './generation-rows.js';

/**
 * Writes the `generations` table from the USAGE stream (durable consumer
 * `inference-generations`, shared by every replica): one INSERT per batch (up to 2,000 events) with
 * ON CONFLICT DO NOTHING on the generation id, acknowledged only after the insert committed,
 * so a redelivery inserts nothing new: one row per generation, exactly. The INSERT
 * is one prepared statement over array parameters (`unnest()`), sent on the Prisma client's
 * node-postgres pool without Prisma (Prisma's createMany, then its raw multi-row
 * VALUES, cost inference CPU on every batch). A batch
 * the database refuses is split; an event it refuses alone is dead-lettered after
 * CONSUMER_MAX_DELIVERIES deliveries.
 */
@Injectable()
export class GenerationsConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly consumer: UsageStreamConsumer;

  constructor(
    nats: ResilientNatsConnection,
    prisma: PrismaService,
    partitions: GenerationPartitions,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    const logger = new Logger(GenerationsConsumer.name);
    this.consumer = new UsageStreamConsumer(nats, {
      durableName: JETSTREAM.consumers.inferenceGenerations,
      filterSubject: EVENTS.usageRecorded,
      // Messages, each of 1..100 events: at most 2,000 rows per write.
      batchSize: 20,
      batchWaitMs: 20,
      maxAckPending: 4_096,
      // An event PostgreSQL refuses (22021: NUL in a text) goes to DEAD_LETTERS after this many deliveries.
      maxDeliveries: env.CONSUMER_MAX_DELIVERIES,
      // A workspace's activity shows no generation the gateway did not authorise for it.
      principals: UsagePrincipalVerifier.fromEnv(env),
      write: async (all) => {
        // A batch's charge is no generation: its lines were recorded one by one.
        const events = all.filter((event) => event.kind !== 'batch_charge');
        // One statement of 31 array parameters, however many rows (no bind-parameter limit to split for).
        if (events.length === 0) return;
        // Each row's day has its partition (created at most once per day and replica).
        await partitions.ensure(events.map((event) => event.createdAt));
        await prisma.pool.query(insertGenerations(events));
      },
      logger,
    });
  }

  stats(): UsageStreamConsumerStats {
    return this.consumer.stats();
  }

  onApplicationBootstrap(): void {
    this.consumer.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.consumer.stop();
  }
}
