import { Injectable } from '@nestjs/common';
import {
  AdminAuditLogQueryDto,
  AuditLogQueryDto,
  PAGE_SIZE,
  type AuditLogFilterDto,
  validateDto,
  type AuditLogEntryView,
  type AuditLogPageView,
  type Principal,
} from '@gw/contracts';
import type { AuditLogEntry, Prisma } from '../generated/prisma/client.js';
import { requireManagementKey } from '../keys/keys.service.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { ADMINS, WorkspaceRoles } from '../workspaces/workspace-roles.js';

const DEFAULT_PAGE = 50;

function toAuditView(row: AuditLogEntry): AuditLogEntryView {
  return {
    id: row.id.toString(),
    created_at: row.createdAt.toISOString(),
    workspace_id: row.workspaceId,
    actor: { kind: row.actorKind, user_id: row.actorUserId, key_hash: row.actorKeyHash, name: row.actorName },
    action: row.action,
    resource_type: row.resourceType,
    resource_id: row.resourceId,
    before: row.before ?? null,
    after: row.after ?? null,
    ip: row.ip,
    request_id: row.requestId,
    origin: row.origin,
  };
}

/**
 * `GET /v1/audit-logs`: a workspace's changes, newest first, to its owners and admins. The
 * cursor is the last row's id (rows are only ever appended, so pages never shift).
 */
@Injectable()
export class AuditLogReader {
  constructor(
    private readonly prisma: PrismaService,
    private readonly roles: WorkspaceRoles,
  ) {}

  async list(principal: Principal, rawQuery: Record<string, unknown>): Promise<AuditLogPageView> {
    requireManagementKey(principal);
    const query = await validateDto(AuditLogQueryDto, rawQuery, 'reject');
    const workspaceId = await this.roles.require(principal, query.workspace_id ?? principal.workspaceId, ADMINS);
    return this.page({ workspaceId }, query);
  }

  /**
   * The operator's view (`GET /v1/admin/audit-logs`): every row, the catalog's (no workspace)
   * and every workspace's; `workspace_id` narrows it to one workspace, `none` to the catalog's.
   */
  async listAll(rawQuery: Record<string, unknown>): Promise<AuditLogPageView> {
    const query = await validateDto(AdminAuditLogQueryDto, rawQuery, 'reject');
    const workspace = query.workspace_id?.toLowerCase();
    return this.page(workspace === undefined ? {} : { workspaceId: workspace === 'none' ? null : workspace }, query);
  }

  private async page(scope: Prisma.AuditLogEntryWhereInput, query: AuditLogFilterDto): Promise<AuditLogPageView> {
    const limit = Math.min(query.limit ?? DEFAULT_PAGE, PAGE_SIZE);
    const where: Prisma.AuditLogEntryWhereInput = {
      ...scope,
      ...(query.action ? { action: query.action } : {}),
      ...(query.resource_type ? { resourceType: query.resource_type } : {}),
      ...(query.resource_id ? { resourceId: query.resource_id } : {}),
      ...(query.actor_user_id ? { actorUserId: query.actor_user_id.toLowerCase() } : {}),
      ...(query.cursor ? { id: { lt: BigInt(query.cursor) } } : {}),
      ...(query.since || query.until
        ? { createdAt: { ...(query.since ? { gte: new Date(query.since) } : {}), ...(query.until ? { lt: new Date(query.until) } : {}) } }
        : {}),
    };
    const rows = await this.prisma.auditLogEntry.findMany({ where, orderBy: { id: 'desc' }, take: limit + 1 });
    const page = rows.slice(0, limit);
    return { data: page.map(toAuditView), next_cursor: rows.length > limit ? page[page.length - 1]!.id.toString() : null };
  }
}
