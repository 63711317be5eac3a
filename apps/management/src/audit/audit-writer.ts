import { Injectable } from '@nestjs/common';
import type { Principal } from '@gw/contracts';
import { currentRequestId } from '@gw/telemetry';
import type { Prisma } from '../generated/prisma/client.js';

/** Who made a change: a management key (and its user), the operator API, or the service itself. */
export interface AuditActor {
  kind: 'management_key' | 'operator' | 'system';
  userId?: string | null;
  keyHash?: string | null;
  ip?: string | null;
}

/** One change: what it was, on what, and the resource's public view before and after (never a secret). */
export interface AuditChange {
  workspaceId: string | null;
  /** `<resource>.<verb>`, e.g. `keys.create`, `workspace.members.add`. */
  action: string;
  resourceType: string;
  resourceId: string;
  before?: unknown;
  after?: unknown;
}

/** The actor of a request a management key made through the gateway. */
export function actorOf(principal: Principal): AuditActor {
  return { kind: 'management_key', userId: principal.userId, keyHash: principal.keyHash, ip: principal.clientIp ?? null };
}

/** Views carry Dates and Decimals: stored as the JSON the API would answer. */
const asJson = (value: unknown): Prisma.InputJsonValue | undefined =>
  value === undefined || value === null ? undefined : (JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue);

/**
 * Writes audit rows, always through the transaction of the change they record: the row exists
 * exactly when the change committed. Every writer of management state (and the operator API)
 * calls `record(tx, actor, change)`; the request id is the current one, as the bus carried it.
 */
@Injectable()
export class AuditWriter {
  async record(tx: Prisma.TransactionClient, actor: AuditActor, ...changes: AuditChange[]): Promise<void> {
    if (changes.length === 0) return;
    const requestId = currentRequestId() ?? null;
    await tx.auditLogEntry.createMany({
      data: changes.map((change) => ({
        workspaceId: change.workspaceId,
        actorKind: actor.kind,
        actorUserId: actor.userId ?? null,
        actorKeyHash: actor.keyHash ?? null,
        action: change.action,
        resourceType: change.resourceType,
        resourceId: change.resourceId,
        before: asJson(change.before),
        after: asJson(change.after),
        ip: actor.ip ?? null,
        requestId,
      })),
    });
  }
}
