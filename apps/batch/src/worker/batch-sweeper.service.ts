import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../clock/clock.js';
import { CostGuard } from '../billing/cost-guard.service.js';
import { BatchFinalizer } from '../batches/batch-finalizer.js';
import { BatchStore } from '../batches/batch-store.js';
import { BATCH_ENV, type BatchEnv } from '../env.js';
import { NativeBatches } from '../native/native-batches.js';

/** Most batches one step of a sweep takes at once. */
const SWEEP_PAGE = 100;

/**
 * The time-driven moves of every batch (ADR 0044), run by every replica: each move is a
 * compare-and-set, so replicas sweeping at once do each move once. All time comes from the
 * injectable clock, so tests call `sweep()` after moving it.
 */
@Injectable()
export class BatchSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(BatchSweeper.name);
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly store: BatchStore,
    private readonly finalizer: BatchFinalizer,
    private readonly guard: CostGuard,
    private readonly native: NativeBatches,
    private readonly clock: Clock,
    @Inject(BATCH_ENV) private readonly env: BatchEnv,
  ) {}

  onApplicationBootstrap(): void {
    if (this.env.BATCH_WORKER !== 'true') return;
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep()
        .catch((error: unknown) => this.logger.warn(`Batch sweep failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => (this.sweeping = undefined));
    }, this.env.BATCH_POLL_MS);
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** One pass over every kind of move. */
  async sweep(): Promise<void> {
    await this.start();
    await this.expire();
    await this.complete();
    await this.cancel();
    await this.retain();
    await this.dropAbandonedUploads();
    await this.republishCharges();
  }

  private get prisma() {
    return this.store.prisma;
  }

  /** validating -> in_progress (run here, or at the provider), or failed when the native submit refuses it. */
  private async start(): Promise<void> {
    const batches = await this.prisma.batch.findMany({ where: { status: 'validating', submittedAt: { not: null } }, take: SWEEP_PAGE, orderBy: { createdAt: 'asc' } });
    for (const batch of batches) {
      try {
        const submission = await this.native.submit(batch);
        await this.store.transition(batch.id, 'in_progress', submission.native ? { upstream: { ...submission.upstream } } : {});
      } catch (error) {
        await this.store.transition(batch.id, 'failed', { errorMessage: error instanceof Error ? error.message : String(error), finalizedAt: this.clock.now() });
      }
    }
  }

  private async expire(): Promise<void> {
    const batches = await this.prisma.batch.findMany({ where: { status: 'in_progress', expiresAt: { lte: this.clock.now() } }, select: { id: true }, take: SWEEP_PAGE });
    for (const { id } of batches) if (await this.finalizer.expire(id)) this.logger.log(`Batch ${id} expired`);
  }

  private async complete(): Promise<void> {
    const batches = await this.prisma.$queryRaw<Array<{ id: string }>>`
      SELECT b.id FROM batches b
      WHERE b.status = 'in_progress' AND b.upstream IS NULL
        AND NOT EXISTS (SELECT 1 FROM batch_requests r WHERE r.batch_id = b.id AND r.status IN ('pending', 'running'))
      LIMIT ${SWEEP_PAGE}`;
    for (const { id } of batches) await this.finalizer.complete(id);
  }

  private async cancel(): Promise<void> {
    const batches = await this.prisma.batch.findMany({ where: { status: 'cancelling' }, select: { id: true }, take: SWEEP_PAGE });
    for (const { id } of batches) await this.finalizer.cancel(id);
  }

  /** Results are deleted 30 days after creation (spec §3.1); the batch row stays, so reads answer 410. */
  private async retain(): Promise<void> {
    const now = this.clock.now();
    const batches = await this.prisma.batch.findMany({ where: { resultsExpireAt: { lte: now }, resultsDeletedAt: null, submittedAt: { not: null } }, select: { id: true }, take: SWEEP_PAGE });
    for (const { id } of batches) {
      await this.prisma.$transaction([this.prisma.batchRequest.deleteMany({ where: { batchId: id } }), this.prisma.batch.update({ where: { id }, data: { resultsDeletedAt: now } })]);
    }
  }

  private async dropAbandonedUploads(): Promise<void> {
    const before = new Date(this.clock.now().getTime() - this.env.BATCH_UPLOAD_ABANDON_MS);
    await this.prisma.batch.deleteMany({ where: { submittedAt: null, createdAt: { lt: before } } });
  }

  /** A charge taken whose event was not acknowledged (the replica died between): published again, harmlessly. */
  private async republishCharges(): Promise<void> {
    const batches = await this.prisma.batch.findMany({ where: { chargedAt: { not: null }, chargePublishedAt: null }, take: SWEEP_PAGE });
    for (const batch of batches) await this.guard.publish(batch);
  }
}
