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
  /** The gateway's grant to act as it (`Gw-Principal`). */
  principalGrant: string | null;
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
 * Leases on lines: `SELECT … FOR UPDATE SKIP LOCKED` hands each pending line to one
 * replica, marked `running` with its owner and an expiry the owner renews while the line runs.
 * A line whose lease ran out (its replica died) is made pending again by the sweep. A result is stored only by
 * the lease's current owner, in the same transaction as the batch's counter, so request_counts
 * always equal the results stored and no line is counted twice.
 */
@Injectable()
export class LineClaims {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Up to `slots` pending lines for this replica, shared fairly: workspaces with the fewest
   * lines running (over every replica) go first, each offered an equal share of the slots per
   * round, none above `perWorkspace`. Two small queries and one UPDATE per workspace served.
   */
  async claim(owner: string, now: Date, leaseMs: number, slots: number, perWorkspace: number): Promise<ClaimedLine[]> {
    if (slots <= 0) return [];
    const workspaces = await this.prisma.$queryRaw<Array<{ workspace_id: string }>>`
      SELECT DISTINCT workspace_id::text FROM batches WHERE status = 'in_progress' AND upstream IS NULL`;
    if (workspaces.length === 0) return [];
    const running = await this.prisma.$queryRaw<Array<{ workspace_id: string; running: bigint }>>`
      SELECT workspace_id::text, count(*) AS running FROM batch_requests WHERE status = 'running' GROUP BY workspace_id`;
    const busy = new Map(running.map((row) => [row.workspace_id, Number(row.running)]));
    const order = workspaces.map((row) => row.workspace_id).sort((a, b) => (busy.get(a) ?? 0) - (busy.get(b) ?? 0) || Math.random() - 0.5);
    const room = new Map(order.map((id) => [id, Math.max(0, perWorkspace - (busy.get(id) ?? 0))]));
    const claimed: ClaimedLine[] = [];
    let open = order.filter((id) => room.get(id)! > 0);
    while (claimed.length < slots && open.length > 0) {
      const share = Math.max(1, Math.floor((slots - claimed.length) / open.length));
      for (const workspaceId of open) {
        const want = Math.min(share, room.get(workspaceId)!, slots - claimed.length);
        if (want <= 0) continue;
        const lines = await this.claimIn(workspaceId, owner, now, leaseMs, want);
        claimed.push(...lines);
        // Fewer than asked: nothing more to run there now.
        room.set(workspaceId, lines.length < want ? 0 : room.get(workspaceId)! - lines.length);
      }
      open = open.filter((id) => room.get(id)! > 0);
    }
    return claimed;
  }

  /** `count` pending lines of one workspace, oldest batch first, in line order (index batch_requests_claim_idx). */
  private async claimIn(workspaceId: string, owner: string, now: Date, leaseMs: number, count: number): Promise<ClaimedLine[]> {
    const until = new Date(now.getTime() + leaseMs);
    return this.prisma.$queryRaw<ClaimedLine[]>`
      WITH picked AS (
        SELECT r.id FROM batch_requests r
        WHERE r.workspace_id = ${workspaceId}::uuid AND r.status = 'pending'
          AND r.batch_id IN (SELECT id FROM batches WHERE workspace_id = ${workspaceId}::uuid AND status = 'in_progress' AND upstream IS NULL)
        ORDER BY r.batch_id, r.line_number
        LIMIT ${count}
        FOR UPDATE OF r SKIP LOCKED
      )
      UPDATE batch_requests r SET status = 'running', lease_owner = ${owner}, lease_expires_at = ${until}, attempts = r.attempts + 1, updated_at = ${now}
      FROM picked, batches b
      WHERE r.id = picked.id AND b.id = r.batch_id
      RETURNING r.id, r.batch_id AS "batchId", r.workspace_id::text AS "workspaceId", r.custom_id AS "customId", r.line_number AS "lineNumber",
        r.body, r.attempts, b.endpoint, b.model, b.principal, b.principal_grant AS "principalGrant", b.provider`;
  }

  /**
   * Lines whose lease ran out (their replica died or lost the database) are pending again,
   * for any replica to claim. Run by every replica's sweep; returns how many.
   */
  async reclaimExpired(now: Date): Promise<number> {
    return this.prisma.batchRequest
      .updateMany({
        where: { status: 'running', leaseExpiresAt: { lte: now } },
        data: { status: 'pending', leaseOwner: null, leaseExpiresAt: null, updatedAt: now },
      })
      .then((result) => result.count);
  }

  /** Extends the leases this replica still holds (lines still running). */
  async renew(owner: string, ids: string[], until: Date): Promise<number> {
    if (ids.length === 0) return 0;
    return this.prisma.batchRequest
      .updateMany({ where: { id: { in: ids }, leaseOwner: owner, status: 'running' }, data: { leaseExpiresAt: until } })
      .then((result) => result.count);
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
      const counter =
        outcome.status === 'completed' ? Prisma.sql`completed_count = completed_count + 1` : Prisma.sql`failed_count = failed_count + 1`;
      await tx.$executeRaw`UPDATE batches SET ${counter} WHERE id = ${rows[0]!.batch_id}`;
      return true;
    });
  }

  /** Gives a line back (a retryable failure, or this replica stopping): another replica may run it. */
  async release(owner: string, lineId: string, now: Date): Promise<void> {
    await this.prisma.batchRequest.updateMany({
      where: { id: lineId, leaseOwner: owner, status: 'running' },
      data: { status: 'pending', leaseOwner: null, leaseExpiresAt: null, updatedAt: now },
    });
  }
}

const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));
