import { Injectable } from '@nestjs/common';
import type { BatchStatusName } from '@gw/contracts';
import { Prisma, type Batch } from '../generated/prisma/client.js';
import { Clock } from '../clock/clock.js';
import { BatchStore } from './batch-store.js';
import { sumUsage, usageView } from './line-usage.js';

/** The error result of a line the 24 h window closed on before it ran (issue 13). */
const BATCH_EXPIRED_ERROR = {
  type: 'batch_expired',
  message: 'The batch expired (24 h completion window) before this request ran',
  param: null,
  error_type: 'timeout',
} as const;

/** A line a provider batch ended without answering. */
const NO_RESULT_ERROR = {
  type: 'server',
  message: 'The provider ended the batch without a result for this request',
  param: null,
  error_type: 'server',
} as const;

/**
 * The ends of a batch: completed, expired, cancelled. Each is one transaction that
 * takes the batch's row lock first (the compare-and-set transition), so a sweep of another
 * replica and a line finishing at the same moment cannot interleave: the usage and cost stored
 * are the sum of exactly the lines counted in request_counts.
 */
@Injectable()
export class BatchFinalizer {
  constructor(
    private readonly store: BatchStore,
    private readonly clock: Clock,
  ) {}

  /**
   * in_progress -> finalizing -> completed once no line is left to run. `native`: the provider
   * ended the batch, so a line it returned no result for will get none: it fails, named.
   */
  async complete(batchId: string, native = false): Promise<Batch | null> {
    return this.store.prisma.$transaction(async (tx) => {
      if (native) await this.failLeft(tx, batchId, NO_RESULT_ERROR);
      const left = await tx.batchRequest.count({ where: { batchId, status: { in: ['pending', 'running'] } } });
      if (left > 0) return null;
      const finalizing = await this.store.transition(batchId, 'finalizing', {}, tx);
      if (!finalizing) return null;
      return this.close(tx, batchId, 'completed');
    });
  }

  /** in_progress -> expired: lines not run end as `batch_expired`, finished ones are kept and billed. */
  async expire(batchId: string): Promise<Batch | null> {
    return this.store.prisma.$transaction(async (tx) => {
      const locked = await this.store.transition(batchId, 'expired', {}, tx);
      if (!locked) return null;
      await this.failLeft(tx, batchId, BATCH_EXPIRED_ERROR);
      return this.close(tx, batchId, 'expired');
    });
  }

  /** validating | in_progress -> failed: the start (native submit) or the provider refused the whole batch. */
  async fail(batchId: string, message: string): Promise<Batch | null> {
    return this.store.prisma.$transaction(async (tx) => {
      const locked = await this.store.transition(batchId, 'failed', { errorMessage: message.slice(0, 2_000) }, tx);
      if (!locked) return null;
      return this.close(tx, batchId, 'failed');
    });
  }

  /**
   * cancelling -> cancelled once no line is running under a live lease: the lines not started
   * never run. `native`: the provider reported it cancelled (its results are stored already).
   */
  async cancel(batchId: string, native = false): Promise<Batch | null> {
    return this.store.prisma.$transaction(async (tx) => {
      const now = this.clock.now();
      const running = native ? 0 : await tx.batchRequest.count({ where: { batchId, status: 'running', leaseExpiresAt: { gt: now } } });
      if (running > 0) return null;
      const locked = await this.store.transition(batchId, 'cancelled', {}, tx);
      if (!locked) return null;
      // A line whose replica died while it ran, never finished: it did not run.
      await tx.batchRequest.updateMany({
        where: { batchId, status: 'running' },
        data: { status: 'pending', leaseOwner: null, leaseExpiresAt: null },
      });
      return this.close(tx, batchId, 'cancelled');
    });
  }

  private async failLeft(tx: Prisma.TransactionClient, batchId: string, error: object): Promise<void> {
    const { count } = await tx.batchRequest.updateMany({
      where: { batchId, status: { in: ['pending', 'running'] } },
      data: { status: 'failed', error, leaseOwner: null, leaseExpiresAt: null, finishedAt: this.clock.now() },
    });
    if (count > 0) await tx.batch.update({ where: { id: batchId }, data: { failedCount: { increment: count } } });
  }

  /** Stores the final usage and cost (sum of the lines) and finalized_at. */
  private async close(tx: Prisma.TransactionClient, batchId: string, status: BatchStatusName): Promise<Batch> {
    const sum = sumUsage(await this.store.lineUsages(batchId, tx));
    return tx.batch.update({
      where: { id: batchId },
      data: { status, finalizedAt: this.clock.now(), usage: usageView(sum) as unknown as Prisma.InputJsonValue, cost: sum.cost },
    });
  }
}
