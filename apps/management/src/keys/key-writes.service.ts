import { Injectable } from '@nestjs/common';
import {
  type ApiKeyView,
  type KeysCreateReply,
  type KeysCreateRequest,
  type KeysUpdateRequest,
  type Principal,
  InternExists,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { actorOf, AuditWriter } from '../audit/audit-writer.js';
import { Prisma, type ApiKey } from '../generated/prisma/client.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { WorkspaceAccessService } from '../workspaces/workspace-access.service.js';
import { toApiKeyView } from './api-key.view.js';
import { generateKeySecret } from './key-secret.js';
import { requireManagementKey } from './keys.service.js';

/**
 * Create, update and delete keys (OpenRouter's POST /keys, PATCH and DELETE /keys/{hash}).
 * Every change that can alter what a gateway has cached publishes `keys.changed`.
 */
@Injectable()
export class KeyWritesService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly workspaces: WorkspaceAccessService,
    private readonly events: ManagementEventsPublisher,
    private readonly rpc: RpcClient,
    private readonly audit: AuditWriter,
  ) {}

  /**
   * Keys made here are standard (inference) keys, or with `internId` intern keys bound to that
   * intern; management keys come from the CLI.
   */
  async create(principal: Principal, request: Omit<KeysCreateRequest, 'principal'>, now = new Date()): Promise<KeysCreateReply> {
    requireManagementKey(principal);
    const workspaceId = request.internId
      ? await this.internWorkspace(principal, request.internId, request.workspaceId)
      : await this.workspaces.resolveWorkspace(principal, request.workspaceId);
    const creatorUserId = request.creatorUserId ?? principal.userId;
    if (creatorUserId !== principal.userId && !(await this.workspaces.isMember(creatorUserId, workspaceId))) {
      throw GatewayError.badRequest('creator_user_id does not name a member of the workspace');
    }
    const { secret, hash, label } = generateKeySecret();
    const key = await this.prisma.$transaction(async (tx) => {
      const created = await tx.apiKey.create({
        data: {
          hash,
          label,
          name: request.name,
          kind: request.internId ? 'intern' : 'standard',
          workspaceId,
          creatorUserId,
          internId: request.internId ?? null,
          limit: request.limit == null ? null : new Prisma.Decimal(request.limit),
          limitReset: request.limitReset ?? null,
          includeByokInLimit: request.includeByokInLimit,
          expiresAt: futureExpiry(request.expiresAt, now),
          rateLimitRpm: request.rateLimits?.requestsPerMinute ?? null,
          concurrencyLimit: request.rateLimits?.concurrentRequests ?? null,
          responseCacheTtlSeconds: request.responseCacheTtlSeconds ?? null,
        },
      });
      await this.audit.record(tx, actorOf(principal), {
        workspaceId,
        action: 'keys.create',
        resourceType: 'api_key',
        resourceId: created.hash,
        after: toApiKeyView(created, now),
      });
      return created;
    });
    return { key: secret, data: toApiKeyView(key, now) };
  }

  /** Only the fields present change; null clears limit, limit_reset or expires_at. */
  async update(principal: Principal, request: KeysUpdateRequest, now = new Date()): Promise<ApiKeyView> {
    requireManagementKey(principal);
    const before = await this.findVisible(principal, request.hash);
    const data: Prisma.ApiKeyUpdateInput = {};
    if (request.name !== undefined) data.name = request.name;
    if (request.disabled !== undefined) data.disabled = request.disabled;
    if (request.limit !== undefined) data.limit = request.limit === null ? null : new Prisma.Decimal(request.limit);
    if (request.limitReset !== undefined) data.limitReset = request.limitReset;
    if (request.includeByokInLimit !== undefined) data.includeByokInLimit = request.includeByokInLimit;
    if (request.expiresAt !== undefined) data.expiresAt = futureExpiry(request.expiresAt, now);
    if (request.rateLimits !== undefined) {
      data.rateLimitRpm = request.rateLimits?.requestsPerMinute ?? null;
      data.concurrencyLimit = request.rateLimits?.concurrentRequests ?? null;
    }
    if (request.responseCacheTtlSeconds !== undefined) data.responseCacheTtlSeconds = request.responseCacheTtlSeconds;
    const key = await this.prisma
      .$transaction(async (tx) => {
        const updated = await tx.apiKey.update({ where: { hash: request.hash }, data });
        await this.audit.record(tx, actorOf(principal), {
          workspaceId: updated.workspaceId,
          action: 'keys.update',
          resourceType: 'api_key',
          resourceId: updated.hash,
          before: toApiKeyView(before, now),
          after: toApiKeyView(updated, now),
        });
        return updated;
      })
      .catch(notFoundIfGone);
    // Disabled, expiry, limit, reset or the rate limits may each change what auth answers for this key.
    this.events.keysChanged([key.hash]);
    return toApiKeyView(key, now);
  }

  async delete(principal: Principal, hash: string, now = new Date()): Promise<{ deleted: true }> {
    requireManagementKey(principal);
    const before = await this.findVisible(principal, hash);
    await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.apiKey.deleteMany({ where: { hash } });
      if (count === 0) throw GatewayError.notFound('No API key with that hash');
      await this.audit.record(tx, actorOf(principal), {
        workspaceId: before.workspaceId,
        action: 'keys.delete',
        resourceType: 'api_key',
        resourceId: hash,
        before: toApiKeyView(before, now),
      });
    });
    this.events.keysChanged([hash]);
    return { deleted: true };
  }

  /**
   * An intern key's workspace is the intern's, which must be the management key's own (or one
   * named that the caller belongs to): no default-workspace fallback (spec §4.4 rule 3).
   * Intern-signing owns interns, so it is asked whether this one exists there.
   */
  private async internWorkspace(principal: Principal, internId: string, requested: string | undefined): Promise<string> {
    const workspaceId = requested ?? principal.workspaceId;
    if (requested && !(await this.workspaces.isMember(principal.userId, requested))) {
      throw GatewayError.badRequest('workspace_id does not name a workspace you belong to');
    }
    const { exists } = await this.rpc.send(InternExists, { workspaceId, internId });
    if (!exists) throw GatewayError.badRequest('intern_id does not name an intern of the workspace', { reason: 'intern_not_found' });
    return workspaceId;
  }

  /** Intern-signing deletes an intern: its keys stop working first (gateways drop them from their caches). */
  async deleteForIntern(workspaceId: string, internId: string): Promise<{ deleted: number }> {
    const keys = await this.prisma.apiKey.findMany({ where: { workspaceId, internId, kind: 'intern' }, select: { hash: true } });
    const { count } = await this.prisma.apiKey.deleteMany({ where: { hash: { in: keys.map((key) => key.hash) } } });
    this.events.keysChanged(keys.map((key) => key.hash));
    return { deleted: count };
  }

  /** 404 both for an unknown hash and for a key in a workspace the caller is not part of. */
  private async findVisible(principal: Principal, hash: string): Promise<ApiKey> {
    const key = await this.prisma.apiKey.findUnique({ where: { hash } });
    if (!key || !(await this.workspaces.isMember(principal.userId, key.workspaceId))) {
      throw GatewayError.notFound('No API key with that hash');
    }
    return key;
  }
}

/** An expiry must lie ahead: an already-expired key is what `disabled` is for. */
function futureExpiry(expiresAt: string | null | undefined, now: Date): Date | null {
  if (expiresAt == null) return null;
  const date = new Date(expiresAt);
  if (date.getTime() <= now.getTime()) throw GatewayError.badRequest('expires_at must be in the future');
  return date;
}

/** The key was deleted between the visibility check and the write. */
function notFoundIfGone(error: unknown): never {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') {
    throw GatewayError.notFound('No API key with that hash');
  }
  throw error;
}
