import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { EVENTS, JETSTREAM } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { UsageStreamConsumer, type UsageStreamConsumerStats } from '@gw/usage';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { insertGenerations } from './generation-rows.js';

/**
 * Writes the `generations` table from the USAGE stream (durable consumer
 * `inference-generations`, shared by every replica): up to 1,000 events per INSERT with
 * ON CONFLICT DO NOTHING on the generation id (raw SQL: Prisma's createMany cost ~10 % of
 * inference's CPU under bench load, compiling the same statement shape for every batch), acknowledged only after the insert committed,
 * so a redelivery inserts nothing new: one row per generation, exactly (docs/adr/0014). A batch
 * the database refuses is split; an event it refuses alone is dead-lettered after
 * CONSUMER_MAX_DELIVERIES deliveries (ADR 0032).
 */
/** 22 parameters a row: 1,000 rows stay well under PostgreSQL's 65,535 bind parameters. */
const ROWS_PER_INSERT = 1_000;

@Injectable()
export class GenerationsConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly consumer: UsageStreamConsumer;

  constructor(nats: ResilientNatsConnection, prisma: PrismaService, @Inject(INFERENCE_ENV) env: InferenceEnv) {
    const logger = new Logger(GenerationsConsumer.name);
    this.consumer = new UsageStreamConsumer(nats, {
      durableName: JETSTREAM.consumers.inferenceGenerations,
      filterSubject: EVENTS.usageRecorded,
      // Messages, each of 1..100 events: at most 2,000 rows per write, in INSERTs of 1,000.
      batchSize: 20,
      batchWaitMs: 20,
      maxAckPending: 4_096,
      // An event PostgreSQL refuses (22021: NUL in a text) goes to DEAD_LETTERS after this many deliveries (ADR 0032).
      maxDeliveries: env.CONSUMER_MAX_DELIVERIES,
      write: async (all) => {
        // A batch's charge (ADR 0046) is no generation: its lines were recorded one by one.
        const events = all.filter((event) => event.kind !== 'batch_charge');
        for (let start = 0; start < events.length; start += ROWS_PER_INSERT) {
          await prisma.$executeRaw(insertGenerations(events.slice(start, start + ROWS_PER_INSERT)));
        }
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
