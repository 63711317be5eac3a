import { Injectable } from '@nestjs/common';
import {
  BulkMembersDto,
  validateDto,
  type CallParams,
  type OrganizationMemberView,
  type Principal,
  type TotalPage,
  type WorkspaceMemberView,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { WorkspaceMember } from '../generated/prisma/client.js';
import { actorOf, AuditWriter } from '../audit/audit-writer.js';
import { requireManagementKey } from '../keys/keys.service.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { pageOf } from './total-page.js';
import { ADMINS, EVERYONE, WorkspaceRoles } from './workspace-roles.js';

/** A membership's id: the SDK wants one; the pair is the row's key, so the id is the pair. */
const memberId = (workspaceId: string, userId: string) => `${workspaceId}:${userId}`;

const toMemberView = (row: WorkspaceMember): WorkspaceMemberView => ({
  id: memberId(row.workspaceId, row.userId),
  workspace_id: row.workspaceId,
  user_id: row.userId,
  role: row.role,
  created_at: row.createdAt.toISOString(),
});

/** The user's name and email beside the SDK's fields, so people are listed as people (not in the audit record). */
const USER_NAMES = { user: { select: { name: true, email: true } } } as const;
type NamedMember = WorkspaceMember & { user: { name: string; email: string } };
const toNamedMemberView = (row: NamedMember): WorkspaceMemberView => ({
  ...toMemberView(row),
  name: row.user.name || null,
  email: row.user.email,
});

/**
 * Members of a workspace (`workspaces.listMembers/bulkAddMembers/bulkRemoveMembers`) and of the
 * organization (`organization.listMembers`). A key belongs to a member (its creator): removing a
 * member disables their keys in that workspace.
 */
@Injectable()
export class WorkspaceMembersService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly roles: WorkspaceRoles,
    private readonly audit: AuditWriter,
    private readonly events: ManagementEventsPublisher,
  ) {}

  async list(principal: Principal, ref: string, params: CallParams): Promise<TotalPage<WorkspaceMemberView>> {
    const page = await pageOf(params);
    const workspaceId = await this.roles.require(principal, ref, EVERYONE);
    const where = { workspaceId };
    const [rows, total] = await Promise.all([
      this.prisma.workspaceMember.findMany({
        where,
        include: USER_NAMES,
        orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
        ...page,
      }),
      this.prisma.workspaceMember.count({ where }),
    ]);
    return { data: rows.map(toNamedMemberView), total_count: total };
  }

  /** Users already members keep their role and are not counted as added. Unknown users: 404. */
  async add(principal: Principal, ref: string, body: unknown): Promise<{ added_count: number; data: WorkspaceMemberView[] }> {
    const dto = await validateDto(BulkMembersDto, body, 'reject');
    const workspaceId = await this.roles.require(principal, ref, ADMINS);
    const userIds = [...new Set(dto.user_ids.map((id) => id.toLowerCase()))];
    const users = await this.prisma.user.findMany({ where: { id: { in: userIds } }, select: { id: true } });
    if (users.length !== userIds.length) throw GatewayError.notFound('One or more user_ids name no user');
    const added = await this.prisma.$transaction(async (tx) => {
      const existing = await tx.workspaceMember.findMany({ where: { workspaceId, userId: { in: userIds } }, select: { userId: true } });
      const known = new Set(existing.map((row) => row.userId));
      const rows: NamedMember[] = [];
      for (const userId of userIds.filter((id) => !known.has(id))) {
        rows.push(await tx.workspaceMember.create({ data: { workspaceId, userId, role: dto.role ?? 'member' }, include: USER_NAMES }));
      }
      await this.audit.record(
        tx,
        actorOf(principal),
        ...rows.map((row) => ({
          workspaceId,
          action: 'workspace.members.add',
          resourceType: 'workspace_member',
          resourceId: memberId(workspaceId, row.userId),
          after: toMemberView(row),
        })),
      );
      return rows;
    });
    return { added_count: added.length, data: added.map(toNamedMemberView) };
  }

  /** The last owner stays. Non-members in the list are skipped (not counted). */
  async remove(principal: Principal, ref: string, body: unknown): Promise<{ removed_count: number }> {
    const dto = await validateDto(BulkMembersDto, body, 'reject');
    const workspaceId = await this.roles.require(principal, ref, ADMINS);
    const userIds = [...new Set(dto.user_ids.map((id) => id.toLowerCase()))];
    const { removed, keys } = await this.prisma.$transaction(async (tx) => {
      const rows = await tx.workspaceMember.findMany({ where: { workspaceId, userId: { in: userIds } } });
      const owners = await tx.workspaceMember.count({ where: { workspaceId, role: 'owner' } });
      if (owners > 0 && rows.filter((row) => row.role === 'owner').length >= owners) {
        throw GatewayError.badRequest('A workspace keeps at least one owner');
      }
      await tx.workspaceMember.deleteMany({ where: { workspaceId, userId: { in: rows.map((row) => row.userId) } } });
      const keys = await tx.apiKey.findMany({
        where: { workspaceId, creatorUserId: { in: rows.map((row) => row.userId) }, disabled: false },
        select: { hash: true },
      });
      await tx.apiKey.updateMany({ where: { hash: { in: keys.map((key) => key.hash) } }, data: { disabled: true } });
      await this.audit.record(
        tx,
        actorOf(principal),
        ...rows.map((row) => ({
          workspaceId,
          action: 'workspace.members.remove',
          resourceType: 'workspace_member',
          resourceId: memberId(workspaceId, row.userId),
          before: toMemberView(row),
        })),
      );
      return { removed: rows.length, keys: keys.map((key) => key.hash) };
    });
    this.events.keysChanged(keys);
    return { removed_count: removed };
  }

  /**
   * The organization: this gateway has no organization object, so it is everyone who shares a
   * workspace with the key's user; `org:admin` for those who own or administer one of them.
   */
  async organization(principal: Principal, params: CallParams): Promise<TotalPage<OrganizationMemberView>> {
    requireManagementKey(principal);
    const page = await pageOf(params);
    const where = { memberships: { some: { workspace: { members: { some: { userId: principal.userId } } } } } };
    const [users, total] = await Promise.all([
      this.prisma.user.findMany({
        where,
        select: {
          id: true,
          email: true,
          name: true,
          memberships: { where: { role: { in: ['owner', 'admin'] } }, select: { workspaceId: true } },
        },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        ...page,
      }),
      this.prisma.user.count({ where }),
    ]);
    const mine = new Set(
      (await this.prisma.workspaceMember.findMany({ where: { userId: principal.userId }, select: { workspaceId: true } })).map(
        (row) => row.workspaceId,
      ),
    );
    return {
      data: users.map((user) => ({
        id: user.id,
        email: user.email,
        first_name: user.name || null,
        last_name: null,
        role: user.memberships.some((membership) => mine.has(membership.workspaceId)) ? 'org:admin' : 'org:member',
      })),
      total_count: total,
    };
  }
}
