import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Prisma } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';

const FLUSH_INTERVAL_MS = 200;
const MAX_BATCH = 500;

/**
 * Writes generation records off the request path: records queue in memory and are
 * inserted in batches, so a completion never waits on the database. Records still queued
 * are flushed on shutdown. (The durable, exactly-once usage trail is the JetStream usage
 * event of the usage issue; these rows are the service's own history.)
 */
@Injectable()
export class GenerationRecorder implements OnApplicationShutdown {
  private readonly logger = new Logger(GenerationRecorder.name);
  private queue: Prisma.GenerationCreateManyInput[] = [];
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly prisma: PrismaService) {}

  record(generation: Prisma.GenerationCreateManyInput): void {
    this.queue.push(generation);
    if (this.queue.length >= MAX_BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() =>
      this.prisma.generation
        .createMany({ data: batch, skipDuplicates: true })
        .then(() => undefined)
        .catch((error: unknown) => this.logger.error({ err: error, count: batch.length }, 'Could not record generations')),
    );
    return this.flushing;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}
