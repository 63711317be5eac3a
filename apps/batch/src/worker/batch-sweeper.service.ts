import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../clock/clock.js';
import { FilesService } from '../files/files.service.js';
import { CostGuard } from '../billing/cost-guard.service.js';
import { BatchFinalizer } from '../batches/batch-finalizer.js';
import { BatchStore } from '../batches/batch-store.js';
import { BATCH_ENV, type BatchEnv } from '../env.js';
import { GatewayError } from '@gw/errors';
import { TERMINAL_BATCH_STATUSES } from '@gw/contracts';
import { Prisma } from '../generated/prisma/client.js';
import { NativeBatches, type UpstreamBatch } from '../native/native-batches.js';
import { BatchSignals } from './batch-signals.js';
import { LineClaims } from './line-claims.js';

/** Most batches one step of a sweep takes at once. */
const SWEEP_PAGE = 100;
/** How long after its window a native batch the provider has not ended is expired here. */
const NATIVE_EXPIRY_GRACE_MS = 3_600_000;
/** How often a finished batch the balance could not pay is offered to the cost guard again. */
const UNPAID_RETRY_MS = 60_000;

/**
 * The time-driven moves of every batch, run by every replica: each move is a
 * compare-and-set, so replicas sweeping at once do each move once. All time comes from the
 * injectable clock, so tests call `sweep()` after moving it. Sweeps run every BATCH_POLL_MS
 * while a batch is before its end, every BATCH_IDLE_POLL_MS otherwise, and at once when a
 * batch is submitted or cancelled on this replica or, by `events.batches.changed`, on another.
 */
@Injectable()
export class BatchSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(BatchSweeper.name);
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  /** A wake-up came during a sweep: sweep again right after it. */
  private again = false;
  private stopped = true;
  private unsubscribe: (() => void) | undefined;
  /** Batch id -> when the balance last fell short (this replica's memory; a restart only retries sooner). */
  private readonly unpaidSince = new Map<string, number>();

  constructor(
    private readonly store: BatchStore,
    private readonly finalizer: BatchFinalizer,
    private readonly guard: CostGuard,
    private readonly native: NativeBatches,
    private readonly claims: LineClaims,
    private readonly clock: Clock,
    @Inject(BATCH_ENV) private readonly env: BatchEnv,
    private readonly signals: BatchSignals,
    private readonly files: FilesService,
  ) {}

  onApplicationBootstrap(): void {
    if (this.env.BATCH_WORKER !== 'true') return;
    this.stopped = false;
    this.unsubscribe = this.signals.onBatchChanged(() => this.soon());
    this.schedule(this.env.BATCH_POLL_MS);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    await this.sweeping;
  }

  /** A sweep now, or right after the one running. */
  private soon(): void {
    if (this.stopped) return;
    if (this.sweeping) this.again = true;
    else this.schedule(0);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.sweeping = this.sweep()
        .then(() => this.active())
        .catch((error: unknown) => {
          this.logger.warn(`Batch sweep failed: ${error instanceof Error ? error.message : String(error)}`);
          return true;
        })
        .then((active) => {
          this.sweeping = undefined;
          const again = this.again;
          this.again = false;
          this.schedule(again ? 0 : active ? this.env.BATCH_POLL_MS : this.env.BATCH_IDLE_POLL_MS);
        });
    }, ms);
  }

  /** Whether a submitted batch is not at its end yet: then the sweeps keep their short period. */
  private async active(): Promise<boolean> {
    const batch = await this.prisma.batch.findFirst({
      where: { submittedAt: { not: null }, status: { notIn: [...TERMINAL_BATCH_STATUSES] } },
      select: { id: true },
    });
    return batch !== null;
  }

  /** One pass over every kind of move. */
  async sweep(): Promise<void> {
    // Lines given back by an expired lease, or of a batch started here: the runners (this replica's
    // and, by the event, the others') need not wait for their poll.
    const reclaimed = await this.claims.reclaimExpired(this.clock.now());
    const started = await this.start();
    if (started > 0) this.signals.linesRunnable('started');
    else if (reclaimed > 0) this.signals.linesRunnable('lines');
    await this.pollNative();
    await this.expire();
    await this.complete();
    await this.cancel();
    await this.chargeFinished();
    await this.retain();
    await this.dropAbandonedUploads();
    await this.republishCharges();
  }

  private get prisma() {
    return this.store.prisma;
  }

  /** validating -> in_progress (run here, or at the provider), or failed when the native submit refuses it; returns how many run here. */
  private async start(): Promise<number> {
    let local = 0;
    const batches = await this.prisma.batch.findMany({
      where: { status: 'validating', submittedAt: { not: null } },
      take: SWEEP_PAGE,
      orderBy: { createdAt: 'asc' },
    });
    for (const batch of batches) {
      try {
        const submission = await this.native.submit(batch);
        if (!submission.native) this.logger.debug(`Batch ${batch.id} runs here: ${submission.reason}`);
        const started = await this.store.transition(
          batch.id,
          'in_progress',
          submission.native ? { upstream: submission.upstream as unknown as Prisma.InputJsonValue } : {},
          undefined,
          ['validating'],
        );
        if (started && !submission.native) local++;
        if (!started && submission.native) {
          // Cancelled (or started by another replica) meanwhile: the upstream batch we made is not the batch's.
          await this.native
            .cancel({ ...batch, upstream: submission.upstream as unknown as Prisma.JsonValue }, false)
            .catch(() => undefined);
        }
      } catch (error) {
        // Inference or the bus away: try again next sweep. Anything else is the batch's failure.
        if (error instanceof GatewayError && (error.status === 503 || error.status === 504)) continue;
        const message = error instanceof Error ? error.message : String(error);
        this.logger.warn(`Batch ${batch.id} failed to start: ${message}`);
        await this.finalizer.fail(batch.id, message);
      }
    }
    return local;
  }

  /** Native batches due for a poll: their results become lines once the provider has them. */
  private async pollNative(): Promise<void> {
    const now = this.clock.now();
    const batches = await this.prisma.batch.findMany({
      where: { status: { in: ['in_progress', 'cancelling'] }, NOT: { upstream: { equals: Prisma.DbNull } } },
      take: SWEEP_PAGE,
    });
    for (const batch of batches) {
      const upstream = batch.upstream as unknown as UpstreamBatch;
      if (new Date(upstream.nextPollAt) > now) continue;
      try {
        const outcome = await this.native.poll(batch);
        if (outcome.kind === 'failed') await this.finalizer.fail(batch.id, outcome.message);
        else if (outcome.kind === 'expired') await this.finalizer.expire(batch.id);
        else if (outcome.kind === 'cancelled') await this.finalizer.cancel(batch.id, true);
        else if (outcome.kind === 'ended' && batch.status === 'cancelling') await this.finalizer.cancel(batch.id, true);
        else if (outcome.kind === 'ended') await this.finalizer.complete(batch.id, true);
      } catch (error) {
        this.logger.warn(`Polling native batch ${batch.id} failed (will retry): ${error instanceof Error ? error.message : String(error)}`);
        await this.native.postpone(batch);
      }
    }
  }

  private async expire(): Promise<void> {
    // A native batch is the provider's to expire (same 24 h); here only if it has not answered an hour later.
    const now = this.clock.now();
    const batches = await this.prisma.batch.findMany({
      where: {
        status: 'in_progress',
        OR: [
          { expiresAt: { lte: now }, upstream: { equals: Prisma.DbNull } },
          { expiresAt: { lte: new Date(now.getTime() - NATIVE_EXPIRY_GRACE_MS) } },
        ],
      },
      select: { id: true },
      take: SWEEP_PAGE,
    });
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
    // A native batch is cancelled when the provider says so (its poll brings the results of the lines that ran).
    const batches = await this.prisma.batch.findMany({
      where: { status: 'cancelling', upstream: { equals: Prisma.DbNull } },
      select: { id: true },
      take: SWEEP_PAGE,
    });
    for (const { id } of batches) await this.finalizer.cancel(id);
  }

  /** Results are deleted 30 days after creation (spec §3.1); the batch row stays, so reads answer 410. */
  private async retain(): Promise<void> {
    const now = this.clock.now();
    const batches = await this.prisma.batch.findMany({
      where: { resultsExpireAt: { lte: now }, resultsDeletedAt: null, submittedAt: { not: null } },
      select: { id: true },
      take: SWEEP_PAGE,
    });
    for (const { id } of batches) {
      await this.prisma.$transaction([
        this.prisma.batchRequest.deleteMany({ where: { batchId: id } }),
        this.prisma.batch.update({ where: { id }, data: { resultsDeletedAt: now } }),
      ]);
    }
  }

  /** Batch and file uploads given up on (the gateway died mid-upload), and files past their 30 days. */
  private async dropAbandonedUploads(): Promise<void> {
    const before = new Date(this.clock.now().getTime() - this.env.BATCH_UPLOAD_ABANDON_MS);
    await this.prisma.batch.deleteMany({ where: { submittedAt: null, createdAt: { lt: before } } });
    await this.files.dropExpired(before);
  }

  /**
   * A finished batch is charged when it ends if the balance can pay, not only when
   * someone reads it: a batch never read would otherwise never be billed. The charge is the
   * cost guard's one compare-and-set, so a read racing this sweep still charges once; when the
   * balance is short nothing is charged, reads answer 402, and the batch is offered again a
   * minute later (a top-up is then charged without waiting for a read).
   */
  private async chargeFinished(): Promise<void> {
    const now = this.clock.now().getTime();
    const batches = await this.prisma.batch.findMany({
      where: { status: { in: [...TERMINAL_BATCH_STATUSES] }, finalizedAt: { not: null }, chargedAt: null, resultsDeletedAt: null },
      orderBy: { finalizedAt: 'asc' },
      take: SWEEP_PAGE,
    });
    for (const batch of batches) {
      const since = this.unpaidSince.get(batch.id);
      if (since !== undefined && now - since < UNPAID_RETRY_MS) continue;
      try {
        const outcome = await this.guard.settle(batch);
        if (outcome.kind === 'insufficient') this.unpaidSince.set(batch.id, now);
        else this.unpaidSince.delete(batch.id);
      } catch (error) {
        // Management unreachable: the next sweep (or a read) tries again.
        this.logger.warn(`Batch ${batch.id} could not be charged yet: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  /** A charge taken whose event was not acknowledged (the replica died between): published again, harmlessly. */
  private async republishCharges(): Promise<void> {
    const batches = await this.prisma.batch.findMany({ where: { chargedAt: { not: null }, chargePublishedAt: null }, take: SWEEP_PAGE });
    for (const batch of batches) await this.guard.publish(batch);
  }
}
