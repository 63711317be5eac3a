import { Injectable } from '@nestjs/common';
import {
  GuardrailKeysDto,
  GuardrailMembersDto,
  validateDto,
  type CallParams,
  type GuardrailKeyAssignmentView,
  type GuardrailMemberAssignmentView,
  type Principal,
  type TotalPage,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client.js';
import { actorOf, AuditWriter } from '../audit/audit-writer.js';
import { requireManagementKey } from '../keys/keys.service.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { pageOf } from '../workspaces/total-page.js';
import { ADMINS, EVERYONE } from '../workspaces/workspace-roles.js';
import { GuardrailsService } from './guardrails.service.js';
import { toKeyAssignmentView, toMemberAssignmentView } from './guardrail.view.js';

const KEY = { select: { name: true, label: true } } as const;

/**
 * Guardrails assigned to keys and to members, in bulk (`guardrails.bulkAssign*`, `bulkUnassign*`,
 * `list*Assignments`). Keys and members must be of the guardrail's workspace (else 404, nothing
 * assigned); assigning twice is not counted twice.
 */
@Injectable()
export class GuardrailAssignmentsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly guardrails: GuardrailsService,
    private readonly audit: AuditWriter,
    private readonly events: ManagementEventsPublisher,
  ) {}

  async listKeys(
    principal: Principal,
    guardrailId: string | undefined,
    params: CallParams,
  ): Promise<TotalPage<GuardrailKeyAssignmentView>> {
    const where = await this.scope(principal, guardrailId);
    const [rows, total] = await Promise.all([
      this.prisma.guardrailKeyAssignment.findMany({
        where,
        include: { key: KEY },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        ...(await pageOf(params)),
      }),
      this.prisma.guardrailKeyAssignment.count({ where }),
    ]);
    return { data: rows.map(toKeyAssignmentView), total_count: total };
  }

  async listMembers(
    principal: Principal,
    guardrailId: string | undefined,
    params: CallParams,
  ): Promise<TotalPage<GuardrailMemberAssignmentView>> {
    const where = await this.scope(principal, guardrailId);
    const [rows, total] = await Promise.all([
      this.prisma.guardrailMemberAssignment.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...(await pageOf(params)) }),
      this.prisma.guardrailMemberAssignment.count({ where }),
    ]);
    return { data: rows.map(toMemberAssignmentView), total_count: total };
  }

  async assignKeys(principal: Principal, guardrailId: string, body: unknown): Promise<{ assigned_count: number }> {
    const dto = await validateDto(GuardrailKeysDto, body, 'reject');
    const guardrail = await this.guardrails.visible(principal, guardrailId, ADMINS);
    const hashes = [...new Set(dto.key_hashes)];
    const keys = await this.prisma.apiKey.findMany({
      where: { hash: { in: hashes }, workspaceId: guardrail.workspaceId },
      select: { hash: true },
    });
    if (keys.length !== hashes.length) throw GatewayError.notFound('One or more key_hashes name no key of the guardrail’s workspace');
    const assigned = await this.prisma.$transaction(async (tx) => {
      const existing = new Set(
        (
          await tx.guardrailKeyAssignment.findMany({
            where: { guardrailId: guardrail.id, keyHash: { in: hashes } },
            select: { keyHash: true },
          })
        ).map((row) => row.keyHash),
      );
      const rows = [];
      for (const keyHash of hashes.filter((hash) => !existing.has(hash))) {
        rows.push(
          await tx.guardrailKeyAssignment.create({
            data: { id: randomUUID(), guardrailId: guardrail.id, keyHash, assignedBy: principal.userId },
            include: { key: KEY },
          }),
        );
      }
      await this.audit.record(
        tx,
        actorOf(principal),
        ...rows.map((row) => ({
          workspaceId: guardrail.workspaceId,
          action: 'guardrail.keys.assign',
          resourceType: 'guardrail_key_assignment',
          resourceId: row.id,
          after: toKeyAssignmentView(row),
        })),
      );
      return rows.map((row) => row.keyHash);
    });
    this.events.keysChanged(assigned);
    return { assigned_count: assigned.length };
  }

  async unassignKeys(principal: Principal, guardrailId: string, body: unknown): Promise<{ unassigned_count: number }> {
    const dto = await validateDto(GuardrailKeysDto, body, 'reject');
    const guardrail = await this.guardrails.visible(principal, guardrailId, ADMINS);
    const removed = await this.prisma.$transaction(async (tx) => {
      const rows = await tx.guardrailKeyAssignment.findMany({
        where: { guardrailId: guardrail.id, keyHash: { in: dto.key_hashes } },
        include: { key: KEY },
      });
      await tx.guardrailKeyAssignment.deleteMany({ where: { id: { in: rows.map((row) => row.id) } } });
      await this.audit.record(
        tx,
        actorOf(principal),
        ...rows.map((row) => ({
          workspaceId: guardrail.workspaceId,
          action: 'guardrail.keys.unassign',
          resourceType: 'guardrail_key_assignment',
          resourceId: row.id,
          before: toKeyAssignmentView(row),
        })),
      );
      return rows.map((row) => row.keyHash);
    });
    this.events.keysChanged(removed);
    return { unassigned_count: removed.length };
  }

  async assignMembers(principal: Principal, guardrailId: string, body: unknown): Promise<{ assigned_count: number }> {
    const dto = await validateDto(GuardrailMembersDto, body, 'reject');
    const guardrail = await this.guardrails.visible(principal, guardrailId, ADMINS);
    const userIds = [...new Set(dto.member_user_ids.map((id) => id.toLowerCase()))];
    const members = await this.prisma.workspaceMember.count({ where: { workspaceId: guardrail.workspaceId, userId: { in: userIds } } });
    if (members !== userIds.length) throw GatewayError.notFound('One or more member_user_ids name no member of the guardrail’s workspace');
    const assigned = await this.prisma.$transaction(async (tx) => {
      const existing = new Set(
        (
          await tx.guardrailMemberAssignment.findMany({
            where: { guardrailId: guardrail.id, userId: { in: userIds } },
            select: { userId: true },
          })
        ).map((row) => row.userId),
      );
      const rows = [];
      for (const userId of userIds.filter((id) => !existing.has(id))) {
        rows.push(
          await tx.guardrailMemberAssignment.create({
            data: { id: randomUUID(), guardrailId: guardrail.id, workspaceId: guardrail.workspaceId, userId, assignedBy: principal.userId },
          }),
        );
      }
      await this.audit.record(
        tx,
        actorOf(principal),
        ...rows.map((row) => ({
          workspaceId: guardrail.workspaceId,
          action: 'guardrail.members.assign',
          resourceType: 'guardrail_member_assignment',
          resourceId: row.id,
          after: toMemberAssignmentView(row),
        })),
      );
      return rows.map((row) => row.userId);
    });
    this.events.keysChanged(await this.keysOfMembers(guardrail.workspaceId, assigned));
    return { assigned_count: assigned.length };
  }

  async unassignMembers(principal: Principal, guardrailId: string, body: unknown): Promise<{ unassigned_count: number }> {
    const dto = await validateDto(GuardrailMembersDto, body, 'reject');
    const guardrail = await this.guardrails.visible(principal, guardrailId, ADMINS);
    const userIds = dto.member_user_ids.map((id) => id.toLowerCase());
    const removed = await this.prisma.$transaction(async (tx) => {
      const rows = await tx.guardrailMemberAssignment.findMany({ where: { guardrailId: guardrail.id, userId: { in: userIds } } });
      await tx.guardrailMemberAssignment.deleteMany({ where: { id: { in: rows.map((row) => row.id) } } });
      await this.audit.record(
        tx,
        actorOf(principal),
        ...rows.map((row) => ({
          workspaceId: guardrail.workspaceId,
          action: 'guardrail.members.unassign',
          resourceType: 'guardrail_member_assignment',
          resourceId: row.id,
          before: toMemberAssignmentView(row),
        })),
      );
      return rows.map((row) => row.userId);
    });
    this.events.keysChanged(await this.keysOfMembers(guardrail.workspaceId, removed));
    return { unassigned_count: removed.length };
  }

  /** One guardrail's assignments (any member reads), or those of every workspace of the caller. */
  private async scope(
    principal: Principal,
    guardrailId: string | undefined,
  ): Promise<Prisma.GuardrailKeyAssignmentWhereInput & Prisma.GuardrailMemberAssignmentWhereInput> {
    requireManagementKey(principal);
    if (guardrailId !== undefined) return { guardrailId: (await this.guardrails.visible(principal, guardrailId, EVERYONE)).id };
    return { guardrail: { workspace: { members: { some: { userId: principal.userId } } } } };
  }

  private async keysOfMembers(workspaceId: string, userIds: string[]): Promise<string[]> {
    if (userIds.length === 0) return [];
    const keys = await this.prisma.apiKey.findMany({ where: { workspaceId, creatorUserId: { in: userIds } }, select: { hash: true } });
    return keys.map((key) => key.hash);
  }
}
