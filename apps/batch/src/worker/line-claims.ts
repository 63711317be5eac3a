import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';

/** A line a replica holds under a lease, with what running it needs. */
export interface ClaimedLine {
  id: string;
  batchId: string;
  workspaceId: string;
  customId: string;
  lineNumber: number;
  body: Record<string, unknown>;
  attempts: number;
  endpoint: string;
  model: string;
  principal: Record<string, unknown>;
  provider: Record<string, unknown> | null;
}

export interface LineOutcome {
  status: 'completed' | 'failed';
  response: unknown;
  error: unknown;
  usage: unknown;
  cost: string | null;
  generationId: string | null;
}

/**
 * Leases on lines (ADR 0045): `SELECT … FOR UPDATE SKIP LOCKED` hands each runnable line to one
 * replica, marked `running` with its owner and an expiry the owner renews while the line runs.
 * A line whose lease ran out (its replica died) is runnable again. A result is stored only by
 * the lease's current owner, in the same transaction as the batch's counter, so request_counts
 * always equal the results stored and no line is counted twice.
 */
@Injectable()
export class LineClaims {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Up to `slots` lines for this replica, shared fairly: workspaces with the fewest lines running
   * (over every replica) go first, one line each per round, none above `perWorkspace`.
   */
  async claim(owner: string, now: Date, leaseMs: number, slots: number, perWorkspace: number): Promise<ClaimedLine[]> {
    if (slots <= 0) return [];
    const workspaces = await this.prisma.$queryRaw<Array<{ workspace_id: string; running: bigint }>>`
      SELECT r.workspace_id,
             count(*) FILTER (WHERE r.status = 'running' AND r.lease_expires_at > ${now}) AS running
      FROM batch_requests r JOIN batches b ON b.id = r.batch_id
      WHERE b.status = 'in_progress' AND b.upstream IS NULL AND r.status IN ('pending', 'running')
      GROUP BY r.workspace_id
      HAVING count(*) FILTER (WHERE r.status = 'pending' OR r.lease_expires_at <= ${now}) > 0
      ORDER BY running ASC, random()`;
    const room = new Map(workspaces.map((row) => [row.workspace_id, Math.max(0, perWorkspace - Number(row.running))]));
    const claimed: ClaimedLine[] = [];
    let progress = true;
    while (claimed.length < slots && progress) {
      progress = false;
      for (const workspace of workspaces) {
        if (claimed.length >= slots) break;
        const left = room.get(workspace.workspace_id)!;
        if (left <= 0) continue;
        const lines = await this.claimIn(workspace.workspace_id, owner, now, leaseMs, 1);
        if (lines.length === 0) {
          room.set(workspace.workspace_id, 0);
          continue;
        }
        room.set(workspace.workspace_id, left - 1);
        claimed.push(...lines);
        progress = true;
      }
    }
    return claimed;
  }

  private async claimIn(workspaceId: string, owner: string, now: Date, leaseMs: number, count: number): Promise<ClaimedLine[]> {
    const until = new Date(now.getTime() + leaseMs);
    return this.prisma.$queryRaw<ClaimedLine[]>`
      WITH picked AS (
        SELECT r.id FROM batch_requests r JOIN batches b ON b.id = r.batch_id
        WHERE r.workspace_id = ${workspaceId}::uuid AND b.status = 'in_progress' AND b.upstream IS NULL
          AND (r.status = 'pending' OR (r.status = 'running' AND r.lease_expires_at <= ${now}))
        ORDER BY b.created_at, r.batch_id, r.line_number
        LIMIT ${count}
        FOR UPDATE OF r SKIP LOCKED
      )
      UPDATE batch_requests r SET status = 'running', lease_owner = ${owner}, lease_expires_at = ${until}, attempts = r.attempts + 1, updated_at = ${now}
      FROM picked, batches b
      WHERE r.id = picked.id AND b.id = r.batch_id
      RETURNING r.id, r.batch_id AS "batchId", r.workspace_id::text AS "workspaceId", r.custom_id AS "customId", r.line_number AS "lineNumber",
        r.body, r.attempts, b.endpoint, b.model, b.principal, b.provider`;
  }

  /** Extends the leases this replica still holds (lines still running). */
  async renew(owner: string, ids: string[], until: Date): Promise<number> {
    if (ids.length === 0) return 0;
    return this.prisma.batchRequest.updateMany({ where: { id: { in: ids }, leaseOwner: owner, status: 'running' }, data: { leaseExpiresAt: until } }).then((result) => result.count);
  }

  /**
   * Stores a line's result and counts it in its batch, in one transaction, if this replica
   * still holds the line. Returns false when it does not (the lease ran out and another replica
   * took it, or the batch expired): the result is dropped, the line counted once elsewhere.
   */
  async finish(owner: string, lineId: string, outcome: LineOutcome, now: Date): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Array<{ batch_id: string }>>`
        UPDATE batch_requests SET status = ${outcome.status}::"BatchRequestStatus",
          response = ${json(outcome.response)}::jsonb, error = ${json(outcome.error)}::jsonb, usage = ${json(outcome.usage)}::jsonb,
          cost = ${outcome.cost}::numeric, generation_id = ${outcome.generationId}, finished_at = ${now},
          lease_owner = NULL, lease_expires_at = NULL, updated_at = ${now}
        WHERE id = ${lineId} AND lease_owner = ${owner} AND status = 'running'
        RETURNING batch_id`;
      if (rows.length === 0) return false;
      const counter = outcome.status === 'completed' ? Prisma.sql`completed_count = completed_count + 1` : Prisma.sql`failed_count = failed_count + 1`;
      await tx.$executeRaw`UPDATE batches SET ${counter} WHERE id = ${rows[0]!.batch_id}`;
      return true;
    });
  }

  /** Gives a line back (a retryable failure, or this replica stopping): another replica may run it. */
  async release(owner: string, lineId: string, now: Date): Promise<void> {
    await this.prisma.batchRequest.updateMany({ where: { id: lineId, leaseOwner: owner, status: 'running' }, data: { status: 'pending', leaseOwner: null, leaseExpiresAt: null, updatedAt: now } });
  }
}

const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));
