import { Injectable } from '@nestjs/common';
import {
  validateDto,
  WorkspaceModelDto,
  type DeletedReply,
  type Principal,
  type ResolvedWorkspaceModel,
  type WorkspaceModelListView,
  type WorkspaceModelView,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { Prisma, WorkspaceModel } from '../generated/prisma/client.js';
import { actorOf, AuditWriter } from '../audit/audit-writer.js';
import { requireManagementKey } from '../keys/keys.service.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { WorkspaceAccessService } from '../workspaces/workspace-access.service.js';

/**
 * A workspace's own models: endpoints on its own servers, called with its BYOK credentials. The
 * key's workspace only; a write checks the credentials it names in its transaction, records its
 * audit row there, and tells inference (with the BYOK event: the models travel with the credentials).
 */
@Injectable()
export class WorkspaceModelsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly workspaces: WorkspaceAccessService,
    private readonly events: ManagementEventsPublisher,
    private readonly audit: AuditWriter,
  ) {}

  async list(principal: Principal): Promise<WorkspaceModelListView> {
    const workspaceId = await this.workspaceOf(principal);
    const rows = await this.prisma.workspaceModel.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } });
    return { object: 'list', data: rows.map(toView) };
  }

  async get(principal: Principal, id: string): Promise<WorkspaceModelView> {
    const workspaceId = await this.workspaceOf(principal);
    const row = await this.prisma.workspaceModel.findUnique({ where: { workspaceId_id: { workspaceId, id } } });
    if (!row) throw notFound(id);
    return toView(row);
  }

  async put(principal: Principal, id: string, body: Record<string, unknown>): Promise<WorkspaceModelView> {
    const workspaceId = await this.workspaceOf(principal);
    const model = await validateDto(WorkspaceModelDto, body, 'reject');
    const stored = JSON.parse(JSON.stringify(model)) as Prisma.InputJsonValue;
    const row = await this.prisma.$transaction(async (tx) => {
      await assertCredentialsOf(tx, workspaceId, model);
      const before = await tx.workspaceModel.findUnique({ where: { workspaceId_id: { workspaceId, id } } });
      const written = await tx.workspaceModel.upsert({
        where: { workspaceId_id: { workspaceId, id } },
        create: { workspaceId, id, body: stored },
        update: { body: stored },
      });
      await this.audit.record(tx, actorOf(principal), {
        workspaceId,
        action: before ? 'workspace_models.update' : 'workspace_models.create',
        resourceType: 'workspace_model',
        resourceId: id,
        before: before ? toView(before) : undefined,
        after: toView(written),
      });
      return written;
    });
    this.events.byokChanged(workspaceId);
    return toView(row);
  }

  async delete(principal: Principal, id: string): Promise<DeletedReply> {
    const workspaceId = await this.workspaceOf(principal);
    await this.prisma.$transaction(async (tx) => {
      const before = await tx.workspaceModel.findUnique({ where: { workspaceId_id: { workspaceId, id } } });
      if (!before) throw notFound(id);
      await tx.workspaceModel.delete({ where: { workspaceId_id: { workspaceId, id } } });
      await this.audit.record(tx, actorOf(principal), {
        workspaceId,
        action: 'workspace_models.delete',
        resourceType: 'workspace_model',
        resourceId: id,
        before: toView(before),
      });
    });
    this.events.byokChanged(workspaceId);
    return { deleted: true };
  }

  /** Inference's view, sent with the workspace's credentials (management.byok.resolve). */
  async resolved(workspaceId: string): Promise<ResolvedWorkspaceModel[]> {
    const rows = await this.prisma.workspaceModel.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } });
    return rows.map((row) => ({ id: row.id, model: row.body as Record<string, unknown> }));
  }

  private async workspaceOf(principal: Principal): Promise<string> {
    requireManagementKey(principal);
    return this.workspaces.resolveWorkspace(principal);
  }
}

/** Every credential an endpoint names must be one of the workspace's (enabled or not): 400 naming the first that is not. */
async function assertCredentialsOf(tx: Prisma.TransactionClient, workspaceId: string, model: WorkspaceModelDto): Promise<void> {
  const named = model.endpoints.flatMap((endpoint) => endpoint.credentials.map((credential) => credential.byokId.toLowerCase()));
  const found = await tx.byokCredential.findMany({ where: { workspaceId, id: { in: [...new Set(named)] } }, select: { id: true } });
  const known = new Set(found.map((credential) => credential.id));
  model.endpoints.forEach((endpoint, index) =>
    endpoint.credentials.forEach((credential, at) => {
      if (!known.has(credential.byokId.toLowerCase()))
        throw GatewayError.badRequest(`endpoints.${index}.credentials.${at}.byokId names no BYOK credential of this workspace`, {
          param: `endpoints.${index}.credentials.${at}.byokId`,
        });
    }),
  );
}

function notFound(id: string): GatewayError {
  return GatewayError.notFound(`No model ${id} among this workspace's own models`);
}

function toView(row: WorkspaceModel): WorkspaceModelView {
  return {
    object: 'workspace.model',
    id: row.id,
    workspace_id: row.workspaceId,
    ...(row.body as unknown as Omit<WorkspaceModelView, 'object' | 'id' | 'workspace_id' | 'created_at' | 'updated_at'>),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
