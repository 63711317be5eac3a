import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Msg, Subscription } from '@nats-io/transport-node';
import { BatchesChanged, BatchesChangedEvent, type BatchWakeReason, validateDto } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { randomUUID } from 'node:crypto';
import { BATCH_ENV, type BatchEnv } from '../env.js';
import { BatchSignals } from './batch-signals.js';

/**
 * The cross-replica half of BatchSignals (amended): every wake-up made on this replica
 * is published as `events.batches.changed` (core NATS, at most once), and every worker replica
 * hears it (a plain subscription, no queue group), so a batch submitted through any replica,
 * or started on one, is picked up by the idle others at once rather than at their next
 * BATCH_IDLE_POLL_MS. A lost event only falls back to that poll; publishing never fails the
 * request it follows. A replica ignores its own event (it woke itself already); one with
 * BATCH_WORKER=false publishes but does not listen, having nothing to wake.
 */
@Injectable()
export class BatchWakeEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(BatchWakeEvents.name);
  /** How this replica's events name it. */
  readonly replica = randomUUID();
  private subscription: Subscription | undefined;
  private stopAnnouncing: (() => void) | undefined;

  /** The service's client connection (NatsClientModule), which closes it. */
  constructor(
    private readonly nats: ResilientNatsConnection,
    private readonly signals: BatchSignals,
    @Inject(BATCH_ENV) private readonly env: BatchEnv,
  ) {}

  onModuleInit(): void {
    this.stopAnnouncing = this.signals.onAnnounce((reason) => this.publish(reason));
    if (this.env.BATCH_WORKER !== 'true') return;
    this.subscription = this.nats.connection.subscribe(BatchesChanged.subject, {
      callback: (error, message) => {
        if (!error) void this.onEvent(message);
      },
    });
  }

  onModuleDestroy(): void {
    this.stopAnnouncing?.();
    this.subscription?.unsubscribe();
  }

  private publish(reason: BatchWakeReason): void {
    try {
      this.nats.connection.publish(BatchesChanged.subject, JSON.stringify({ reason, replica: this.replica } satisfies BatchesChangedEvent));
    } catch (error) {
      // The bus is closed or refused it: the other replicas find the work at their idle poll.
      this.logger.warn(
        `Could not publish ${BatchesChanged.subject} (${reason}): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private async onEvent(message: Msg): Promise<void> {
    let event: BatchesChangedEvent;
    try {
      event = await validateDto(BatchesChangedEvent, message.json(), 'strip');
    } catch {
      this.logger.warn(`Ignored a malformed ${BatchesChanged.subject} event`);
      return;
    }
    if (event.replica !== this.replica) this.signals.heard(event.reason);
  }
}
