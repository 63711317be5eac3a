import { Injectable } from '@nestjs/common';
import {
  CreateGuardrailDto,
  ListGuardrailsQueryDto,
  UpdateGuardrailDto,
  validateDto,
  type CallParams,
  type GuardrailView,
  type Principal,
  type TotalPage,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { randomUUID } from 'node:crypto';
import { Prisma, type Guardrail } from '../generated/prisma/client.js';
import { actorOf, AuditWriter } from '../audit/audit-writer.js';
import { requireManagementKey } from '../keys/keys.service.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { skipTake } from '../workspaces/total-page.js';
import { ADMINS, EVERYONE, WorkspaceRoles } from '../workspaces/workspace-roles.js';
import { keysGovernedBy } from './guardrail-policies.js';
import { toGuardrailView } from './guardrail.view.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Policy = Omit<UpdateGuardrailDto, 'name'>;

/** The policy fields present in a body; an empty list is stored as "unrestricted", like null. */
function policyData(dto: Policy): Prisma.GuardrailUpdateInput {
  const data: Prisma.GuardrailUpdateInput = {};
  const list = (values: string[] | null | undefined) => [...new Set(values ?? [])];
  if (dto.description !== undefined) data.description = dto.description;
  if (dto.allowed_models !== undefined) data.allowedModels = list(dto.allowed_models);
  if (dto.ignored_models !== undefined) data.ignoredModels = list(dto.ignored_models);
  if (dto.allowed_providers !== undefined) data.allowedProviders = list(dto.allowed_providers);
  if (dto.ignored_providers !== undefined) data.ignoredProviders = list(dto.ignored_providers);
  if (dto.limit_usd !== undefined) data.limitUsd = dto.limit_usd === null ? null : new Prisma.Decimal(dto.limit_usd);
  if (dto.reset_interval !== undefined) data.resetInterval = dto.reset_interval;
  if (dto.include_byok_in_budgets !== undefined) data.includeByokInBudgets = dto.include_byok_in_budgets;
  return data;
}

/**
 * Guardrails as @openrouter/sdk calls them (`guardrails.list/get/create/update/delete`). A change
 * refreshes the cached principals of every key it governs, so routing follows within moments.
 */
@Injectable()
export class GuardrailsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly roles: WorkspaceRoles,
    private readonly audit: AuditWriter,
    private readonly events: ManagementEventsPublisher,
  ) {}

  /** The guardrails of the caller's workspaces (or of the one named), oldest first. */
  async list(principal: Principal, params: CallParams): Promise<TotalPage<GuardrailView>> {
    requireManagementKey(principal);
    const query = await validateDto(ListGuardrailsQueryDto, params, 'reject');
    const workspaceId = query.workspace_id ? await this.roles.require(principal, query.workspace_id, EVERYONE) : undefined;
    const where: Prisma.GuardrailWhereInput = workspaceId
      ? { workspaceId }
      : { workspace: { members: { some: { userId: principal.userId } } } };
    const [rows, total] = await Promise.all([
      this.prisma.guardrail.findMany({
        where,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        ...skipTake(query),
      }),
      this.prisma.guardrail.count({ where }),
    ]);
    return { data: rows.map(toGuardrailView), total_count: total };
  }

  async get(principal: Principal, id: string): Promise<GuardrailView> {
    return toGuardrailView(await this.visible(principal, id, EVERYONE));
  }

  async create(principal: Principal, body: unknown): Promise<GuardrailView> {
    const dto = await validateDto(CreateGuardrailDto, body, 'reject');
    const workspaceId = await this.roles.require(principal, dto.workspace_id ?? principal.workspaceId, ADMINS);
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.guardrail.create({
        data: {
          ...(policyData(dto) as Prisma.GuardrailCreateInput),
          id: randomUUID(),
          name: dto.name,
          workspace: { connect: { id: workspaceId } },
        },
      });
      const view = toGuardrailView(row);
      await this.audit.record(tx, actorOf(principal), {
        workspaceId,
        action: 'guardrail.create',
        resourceType: 'guardrail',
        resourceId: row.id,
        after: view,
      });
      return view;
    });
  }

  async update(principal: Principal, id: string, body: unknown): Promise<GuardrailView> {
    const dto = await validateDto(UpdateGuardrailDto, body, 'reject');
    const existing = await this.visible(principal, id, ADMINS);
    const { view, keys } = await this.prisma.$transaction(async (tx) => {
      const data = policyData(dto);
      if (dto.name !== undefined) data.name = dto.name;
      const row = await tx.guardrail.update({ where: { id: existing.id }, data });
      const view = toGuardrailView(row);
      await this.audit.record(tx, actorOf(principal), {
        workspaceId: row.workspaceId,
        action: 'guardrail.update',
        resourceType: 'guardrail',
        resourceId: row.id,
        before: toGuardrailView(existing),
        after: view,
      });
      return { view, keys: await keysGovernedBy(tx, row) };
    });
    this.events.keysChanged(keys);
    return view;
  }

  /** A workspace's default guardrail goes with the workspace only. */
  async delete(principal: Principal, id: string): Promise<{ deleted: true }> {
    const existing = await this.visible(principal, id, ADMINS);
    if (existing.isWorkspaceDefault)
      throw GatewayError.badRequest("A workspace's default guardrail cannot be deleted; clear its policy instead");
    const keys = await this.prisma.$transaction(async (tx) => {
      const keys = await keysGovernedBy(tx, existing);
      await tx.guardrail.delete({ where: { id: existing.id } });
      await this.audit.record(tx, actorOf(principal), {
        workspaceId: existing.workspaceId,
        action: 'guardrail.delete',
        resourceType: 'guardrail',
        resourceId: existing.id,
        before: toGuardrailView(existing),
      });
      return keys;
    });
    this.events.keysChanged(keys);
    return { deleted: true };
  }

  /** A guardrail of a workspace where the caller has one of `roles`; 404 otherwise. */
  async visible(principal: Principal, id: string, roles: typeof EVERYONE): Promise<Guardrail> {
    requireManagementKey(principal);
    const row = UUID.test(id) ? await this.prisma.guardrail.findUnique({ where: { id: id.toLowerCase() } }) : null;
    if (!row) throw GatewayError.notFound('No such guardrail');
    await this.roles.require(principal, row.workspaceId, roles).catch((error: unknown) => {
      throw error instanceof GatewayError && error.status === 404 ? GatewayError.notFound('No such guardrail') : error;
    });
    return row;
  }
}
