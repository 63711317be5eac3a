import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { EVENTS, JETSTREAM } from '@gw/contracts';
import { ensureUsageStream, ResilientNatsConnection } from '@gw/messaging';
import { AckPolicy, jetstream, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { PrismaService } from '../prisma/prisma.service.js';
import { generationRowOf, parseUsageEvent } from './generation-rows.js';

/** Rows per INSERT. */
const BATCH_SIZE = 256;
/** Longest a received event waits for its batch to fill. */
const BATCH_WAIT_MS = 20;
/** Unacknowledged events the server hands this service at once (across replicas). */
const MAX_ACK_PENDING = 4_096;
const ACK_WAIT_NS = 30 * 1_000_000_000;
const RETRY_MS = 1_000;

/**
 * Writes the `generations` table from the USAGE stream (durable consumer
 * `inference-generations`, shared by every replica): events are batched, inserted with
 * ON CONFLICT DO NOTHING on the generation id, and acknowledged only after the insert has
 * committed. A redelivery (a replica crashed before its ack, or an ack was lost) therefore
 * inserts nothing new: one row per generation, exactly. A message that is not a valid usage
 * event is terminated (logged), never retried forever; a database failure naks the batch
 * for redelivery.
 */
@Injectable()
export class GenerationsConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(GenerationsConsumer.name);
  private stopped = false;
  private messages?: ConsumerMessages;
  private buffer: JsMsg[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private running?: Promise<void>;

  constructor(
    private readonly nats: ResilientNatsConnection,
    private readonly prisma: PrismaService,
  ) {}

  onApplicationBootstrap(): void {
    // Not awaited: the service answers requests while JetStream is still coming up.
    this.running = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    await this.messages?.close();
    await this.running;
    this.flush();
    await this.writing;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.consume();
      } catch (error) {
        if (this.stopped) return;
        this.logger.warn(`Generation records paused (${error instanceof Error ? error.message : String(error)}); retrying`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  private async consume(): Promise<void> {
    const connection = this.nats.connection;
    const manager = await ensureUsageStream(connection);
    const durable = JETSTREAM.consumers.inferenceGenerations;
    await manager.consumers.info(JETSTREAM.usageStream, durable).catch(() =>
      manager.consumers.add(JETSTREAM.usageStream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        filter_subject: EVENTS.usageRecorded,
        max_ack_pending: MAX_ACK_PENDING,
        ack_wait: ACK_WAIT_NS,
      }),
    );
    const consumer = await jetstream(connection).consumers.get(JETSTREAM.usageStream, durable);
    this.messages = await consumer.consume({ max_messages: BATCH_SIZE * 2 });
    if (this.stopped) await this.messages.close();
    for await (const message of this.messages) {
      this.buffer.push(message);
      if (this.buffer.length >= BATCH_SIZE) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), BATCH_WAIT_MS);
    }
  }

  /** Hands the buffered messages to the (serialised) writer. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(() => this.write(batch));
  }

  private async write(batch: JsMsg[]): Promise<void> {
    const valid: JsMsg[] = [];
    const rows = [];
    for (const message of batch) {
      const event = await parseUsageEvent(message.data);
      if (!event) {
        this.logger.error(`Terminated a malformed usage event (stream sequence ${message.seq})`);
        message.term();
        continue;
      }
      valid.push(message);
      rows.push(generationRowOf(event));
    }
    if (rows.length === 0) return;
    try {
      await this.prisma.generation.createMany({ data: rows, skipDuplicates: true });
    } catch (error) {
      this.logger.error(`Could not write ${rows.length} generation records; redelivery in ${RETRY_MS} ms: ${error instanceof Error ? error.message : String(error)}`);
      for (const message of valid) message.nak(RETRY_MS);
      return;
    }
    for (const message of valid) message.ack();
  }
}
