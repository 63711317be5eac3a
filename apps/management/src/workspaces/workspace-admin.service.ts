import { Injectable } from '@nestjs/common';
import {
  CreateWorkspaceDto,
  DeleteWorkspaceQueryDto,
  TotalPageQueryDto,
  UpdateWorkspaceDto,
  validateDto,
  type CallParams,
  type Principal,
  type TotalPage,
  type WorkspaceView,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { Prisma } from '../generated/prisma/client.js';
import { actorOf, AuditWriter } from '../audit/audit-writer.js';
import { requireManagementKey } from '../keys/keys.service.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { skipTake } from './total-page.js';
import { ADMINS, WorkspaceRoles } from './workspace-roles.js';
import { toWorkspaceView, WITH_DEFAULT_GUARDRAIL } from './workspace.view.js';

type Settings = Omit<UpdateWorkspaceDto, 'name' | 'slug'>;

function settingsData(dto: Settings): Prisma.WorkspaceUpdateInput {
  const data: Prisma.WorkspaceUpdateInput = {};
  if (dto.description !== undefined) data.description = dto.description;
  if (dto.default_text_model !== undefined) data.defaultTextModel = dto.default_text_model;
  if (dto.default_image_model !== undefined) data.defaultImageModel = dto.default_image_model;
  if (dto.default_provider_sort !== undefined) data.defaultProviderSort = dto.default_provider_sort;
  if (dto.disabled_server_tools !== undefined) data.disabledServerTools = dto.disabled_server_tools ?? [];
  if (dto.io_logging_sampling_rate !== undefined) data.ioLoggingSamplingRate = dto.io_logging_sampling_rate;
  if (dto.is_data_discount_logging_enabled !== undefined) data.isDataDiscountLoggingEnabled = dto.is_data_discount_logging_enabled;
  if (dto.is_observability_broadcast_enabled !== undefined) data.isObservabilityBroadcastEnabled = dto.is_observability_broadcast_enabled;
  if (dto.is_observability_io_logging_enabled !== undefined) data.isObservabilityIoLoggingEnabled = dto.is_observability_io_logging_enabled;
  return data;
}

/** Workspace CRUD as @openrouter/sdk calls it (`workspaces.list/get/create/update/delete`). */
@Injectable()
export class WorkspaceAdminService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly roles: WorkspaceRoles,
    private readonly audit: AuditWriter,
    private readonly events: ManagementEventsPublisher,
  ) {}

  /** The workspaces the key's user belongs to, oldest first. */
  async list(principal: Principal, params: CallParams): Promise<TotalPage<WorkspaceView>> {
    requireManagementKey(principal);
    const query = await validateDto(TotalPageQueryDto, params, 'reject');
    const where = { members: { some: { userId: principal.userId } } };
    const [rows, total] = await Promise.all([
      this.prisma.workspace.findMany({
        where,
        include: WITH_DEFAULT_GUARDRAIL,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        ...skipTake(query),
      }),
      this.prisma.workspace.count({ where }),
    ]);
    return { data: rows.map(toWorkspaceView), total_count: total };
  }

  async get(principal: Principal, ref: string): Promise<WorkspaceView> {
    const { workspaceId } = await this.roles.resolve(principal, ref);
    return this.view(this.prisma, workspaceId);
  }

  /** The caller's user owns the new workspace. */
  async create(principal: Principal, body: unknown): Promise<WorkspaceView> {
    requireManagementKey(principal);
    const dto = await validateDto(CreateWorkspaceDto, body, 'reject');
    await this.refuseTakenSlug(principal.userId, dto.slug);
    return this.prisma.$transaction(async (tx) => {
      const created = await tx.workspace.create({
        data: {
          ...(settingsData(dto) as Prisma.WorkspaceCreateInput),
          name: dto.name,
          slug: dto.slug,
          createdBy: principal.userId,
          members: { create: { userId: principal.userId, role: 'owner' } },
        },
      });
      const view = await this.view(tx, created.id);
      await this.audit.record(tx, actorOf(principal), {
        workspaceId: created.id,
        action: 'workspace.create',
        resourceType: 'workspace',
        resourceId: created.id,
        after: view,
      });
      return view;
    });
  }

  async update(principal: Principal, ref: string, body: unknown): Promise<WorkspaceView> {
    const dto = await validateDto(UpdateWorkspaceDto, body, 'reject');
    const workspaceId = await this.roles.require(principal, ref, ADMINS);
    if (dto.slug !== undefined) await this.refuseTakenSlug(principal.userId, dto.slug, workspaceId);
    return this.prisma.$transaction(async (tx) => {
      const before = await this.view(tx, workspaceId);
      const data = settingsData(dto);
      if (dto.name !== undefined) data.name = dto.name;
      if (dto.slug !== undefined) data.slug = dto.slug;
      await tx.workspace.update({ where: { id: workspaceId }, data });
      const after = await this.view(tx, workspaceId);
      await this.audit.record(tx, actorOf(principal), {
        workspaceId,
        action: 'workspace.update',
        resourceType: 'workspace',
        resourceId: workspaceId,
        before,
        after,
      });
      return after;
    });
  }

  /**
   * Owners only, once no key of the workspace is active. Never the key's own workspace; the user's default
   * workspace only with `confirm_default_workspace_deletion=true`, as the SDK has it.
   */
  async delete(principal: Principal, ref: string, params: CallParams): Promise<{ deleted: true }> {
    const query = await validateDto(
      DeleteWorkspaceQueryDto,
      { confirm_default_workspace_deletion: params.confirm_default_workspace_deletion },
      'reject',
    );
    const workspaceId = await this.roles.require(principal, ref, ['owner']);
    if (workspaceId === principal.workspaceId) throw GatewayError.badRequest('A key cannot delete its own workspace');
    // As the SDK documents it: keys in use are removed (or disabled) first, deliberately.
    if ((await this.prisma.apiKey.count({ where: { workspaceId, disabled: false } })) > 0) {
      throw GatewayError.badRequest('The workspace has active API keys: delete or disable them first');
    }
    const user = await this.prisma.user.findUnique({ where: { id: principal.userId }, select: { defaultWorkspaceId: true } });
    if (user?.defaultWorkspaceId === workspaceId && query.confirm_default_workspace_deletion !== 'true') {
      throw GatewayError.badRequest('This is your default workspace: set confirm_default_workspace_deletion=true to delete it');
    }
    const keys = await this.prisma.$transaction(async (tx) => {
      const before = await this.view(tx, workspaceId);
      const gone = await tx.apiKey.findMany({ where: { workspaceId }, select: { hash: true } });
      await tx.workspace.delete({ where: { id: workspaceId } });
      await this.audit.record(tx, actorOf(principal), {
        workspaceId,
        action: 'workspace.delete',
        resourceType: 'workspace',
        resourceId: workspaceId,
        before,
      });
      return gone.map((key) => key.hash);
    });
    this.events.keysChanged(keys);
    return { deleted: true };
  }

  /** A slug names one workspace among a user's: refs by slug must not be ambiguous. */
  private async refuseTakenSlug(userId: string, slug: string, except?: string): Promise<void> {
    const taken = await this.prisma.workspace.findFirst({
      where: { slug, members: { some: { userId } }, ...(except ? { id: { not: except } } : {}) },
      select: { id: true },
    });
    if (taken) throw new GatewayError(409, `You already have a workspace with slug "${slug}"`, { errorType: 'invalid_request' });
  }

  private async view(db: Prisma.TransactionClient, workspaceId: string): Promise<WorkspaceView> {
    const row = await db.workspace.findUnique({ where: { id: workspaceId }, include: WITH_DEFAULT_GUARDRAIL });
    if (!row) throw GatewayError.notFound('No such workspace');
    return toWorkspaceView(row);
  }
}
