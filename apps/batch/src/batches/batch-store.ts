import { Injectable } from '@nestjs/common';
import type { BatchStatusName } from '@gw/contracts';
import { Prisma, type Batch } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { sourcesOf } from './batch-transitions.js';
import type { LineUsage } from './line-usage.js';

export type Tx = Prisma.TransactionClient;

/** Reads and the one compare-and-set write of a batch's status. */
@Injectable()
export class BatchStore {
  constructor(readonly prisma: PrismaService) {}

  /**
   * Moves a batch to `to` when it is in one of the statuses the transition table allows
   * (optionally fewer: `from`). Returns the batch after, or null when another replica moved it
   * first (or the move is not allowed): callers treat null as "nothing to do".
   */
  async transition(
    id: string,
    to: BatchStatusName,
    data: Prisma.BatchUpdateManyMutationInput = {},
    tx: Tx = this.prisma,
    from?: BatchStatusName[],
  ): Promise<Batch | null> {
    const allowed = (from ?? sourcesOf(to)).filter((status) => sourcesOf(to).includes(status));
    const { count } = await tx.batch.updateMany({ where: { id, status: { in: allowed } }, data: { ...data, status: to } });
    return count === 1 ? tx.batch.findUnique({ where: { id } }) : null;
  }

  /** The finished lines' usages (for a batch not finalized yet). */
  async lineUsages(batchId: string, tx: Tx = this.prisma): Promise<LineUsage[]> {
    const rows = await tx.$queryRaw<
      Array<{ usage: LineUsage }>
    >`SELECT usage FROM batch_requests WHERE batch_id = ${batchId} AND usage IS NOT NULL`;
    return rows.map((row) => row.usage);
  }
}
