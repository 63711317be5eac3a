import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type {
  ByokCredentialPage,
  ByokCredentialView,
  ByokResolveReply,
  CreateByokCredentialDto,
  Principal,
  ResolvedByokCredential,
  UpdateByokCredentialDto,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { randomUUID } from 'node:crypto';
import type { ByokCredential, Prisma } from '../generated/prisma/client.js';
// GET /byok/{id} lists no 403 either: a non-management key is refused as 401, as for the keys.
import { actorOf, AuditWriter } from '../audit/audit-writer.js';
import { requireManagementKey } from '../keys/keys.service.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { WorkspaceAccessService } from '../workspaces/workspace-access.service.js';
import { WorkspaceModelsService } from '../workspace-models/workspace-models.service.js';
import { toByokCredentialView, listOrNull } from './byok-credential.view.js';
import { credentialContext, KeyRing, openSecret, sealSecret, SecretUnavailableError } from '@gw/config';
import { maskSecret } from './secret-label.js';

type AllowListFields = Pick<CreateByokCredentialDto, 'allowed_api_key_hashes' | 'allowed_user_ids'>;

@Injectable()
export class ByokService implements OnApplicationBootstrap {
  private readonly logger = new Logger(ByokService.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly workspaces: WorkspaceAccessService,
    private readonly keyRing: KeyRing,
    private readonly events: ManagementEventsPublisher,
    private readonly audit: AuditWriter,
    private readonly workspaceModels: WorkspaceModelsService,
  ) {}

  /** A credential sealed under a KEK that is no longer configured cannot be used: say so at start. */
  async onApplicationBootstrap(): Promise<void> {
    const versions = await this.prisma.byokCredential.groupBy({ by: ['kekVersion'], _count: { _all: true } });
    for (const { kekVersion, _count } of versions) {
      if (!this.keyRing.get(kekVersion)) {
        this.logger.error(
          { kekVersion, credentials: _count._all },
          'BYOK credentials are sealed under a key-encryption key missing from BYOK_KEKS',
        );
      }
    }
  }

  async create(principal: Principal, body: CreateByokCredentialDto): Promise<ByokCredentialView> {
    requireManagementKey(principal);
    const workspaceId = await this.workspaces.resolveWorkspace(principal, body.workspace_id);
    const isFallback = body.is_fallback ?? false;
    const isByokOnly = body.is_byok_only ?? false;
    assertRoutingFlags(isFallback, isByokOnly);
    await this.assertAllowListsBelongTo(workspaceId, body);
    const id = randomUUID();
    const secret = body.key.trim();
    const credential = await this.prisma.$transaction(async (tx) => {
      const created = await tx.byokCredential.create({
        data: {
          id,
          workspaceId,
          name: body.name ?? body.provider,
          provider: body.provider,
          label: maskSecret(secret),
          disabled: body.disabled ?? false,
          isFallback,
          isByokOnly,
          isRequired: body.is_required ?? false,
          sortOrder: body.sort_order ?? 0,
          allowedApiKeyHashes: body.allowed_api_key_hashes ?? [],
          allowedModels: body.allowed_models ?? [],
          allowedUserIds: body.allowed_user_ids ?? [],
          declaredRegion: body.declared_region ?? null,
          declaredZdr: body.declared_zdr ?? null,
          ...sealSecret(this.keyRing, secret, credentialContext(id, workspaceId)),
        },
      });
      // The view: label, never the secret.
      await this.audit.record(tx, actorOf(principal), {
        workspaceId,
        action: 'byok.create',
        resourceType: 'byok_credential',
        resourceId: id,
        after: toByokCredentialView(created),
      });
      return created;
    });
    this.events.byokChanged(workspaceId);
    return toByokCredentialView(credential);
  }

  async list(
    principal: Principal,
    query: { provider?: string; offset: number; limit: number; workspaceId?: string },
  ): Promise<ByokCredentialPage> {
    requireManagementKey(principal);
    const workspaceId = await this.workspaces.resolveWorkspace(principal, query.workspaceId);
    const where: Prisma.ByokCredentialWhereInput = { workspaceId, ...(query.provider ? { provider: query.provider } : {}) };
    const [credentials, totalCount] = await Promise.all([
      this.prisma.byokCredential.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        skip: query.offset,
        take: query.limit,
      }),
      this.prisma.byokCredential.count({ where }),
    ]);
    return { data: credentials.map(toByokCredentialView), total_count: totalCount };
  }

  async get(principal: Principal, id: string): Promise<ByokCredentialView> {
    return toByokCredentialView(await this.findVisible(principal, id));
  }

  async update(principal: Principal, id: string, changes: UpdateByokCredentialDto): Promise<ByokCredentialView> {
    const current = await this.findVisible(principal, id);
    const isFallback = changes.is_fallback ?? current.isFallback;
    const isByokOnly = changes.is_byok_only ?? current.isByokOnly;
    assertRoutingFlags(isFallback, isByokOnly);
    await this.assertAllowListsBelongTo(current.workspaceId, changes);
    const secret = changes.key?.trim();
    const data: Prisma.ByokCredentialUpdateInput = {
      ...(changes.name !== undefined ? { name: changes.name ?? current.provider } : {}),
      ...(changes.disabled !== undefined ? { disabled: changes.disabled } : {}),
      isFallback,
      isByokOnly,
      ...(changes.is_required !== undefined ? { isRequired: changes.is_required } : {}),
      ...(changes.sort_order !== undefined ? { sortOrder: changes.sort_order } : {}),
      ...(changes.allowed_api_key_hashes !== undefined ? { allowedApiKeyHashes: changes.allowed_api_key_hashes ?? [] } : {}),
      ...(changes.allowed_models !== undefined ? { allowedModels: changes.allowed_models ?? [] } : {}),
      ...(changes.allowed_user_ids !== undefined ? { allowedUserIds: changes.allowed_user_ids ?? [] } : {}),
      ...(changes.declared_region !== undefined ? { declaredRegion: changes.declared_region } : {}),
      ...(changes.declared_zdr !== undefined ? { declaredZdr: changes.declared_zdr } : {}),
      // A new secret gets a new data key too, and its own label.
      ...(secret !== undefined
        ? { label: maskSecret(secret), ...sealSecret(this.keyRing, secret, credentialContext(current.id, current.workspaceId)) }
        : {}),
    };
    const updated = await this.prisma
      .$transaction(async (tx) => {
        const row = await tx.byokCredential.update({ where: { id }, data });
        await this.audit.record(tx, actorOf(principal), {
          workspaceId: row.workspaceId,
          action: 'byok.update',
          resourceType: 'byok_credential',
          resourceId: row.id,
          before: toByokCredentialView(current),
          after: toByokCredentialView(row),
        });
        return row;
      })
      .catch(notFoundIfGone);
    this.events.byokChanged(updated.workspaceId);
    return toByokCredentialView(updated);
  }

  async delete(principal: Principal, id: string): Promise<{ deleted: true }> {
    const current = await this.findVisible(principal, id);
    await this.prisma
      .$transaction(async (tx) => {
        await tx.byokCredential.delete({ where: { id } });
        await this.audit.record(tx, actorOf(principal), {
          workspaceId: current.workspaceId,
          action: 'byok.delete',
          resourceType: 'byok_credential',
          resourceId: current.id,
          before: toByokCredentialView(current),
        });
      })
      .catch(notFoundIfGone);
    this.events.byokChanged(current.workspaceId);
    return { deleted: true };
  }

  /**
   * Inference -> management: the workspace's enabled credentials, decrypted, in the order they
   * are tried (sort_order, then oldest first). Fails closed: a credential that cannot be
   * decrypted (its KEK was removed, or the row was altered) fails the whole answer rather than
   * silently dropping a credential that may be `is_byok_only`. The workspace's own models come
   * with them (their endpoints are bound to these credentials), unless one provider was asked for.
   */
  async resolve(workspaceId: string, provider?: string): Promise<ByokResolveReply> {
    const [credentials, models] = await Promise.all([
      this.prisma.byokCredential.findMany({
        where: { workspaceId, disabled: false, ...(provider ? { provider } : {}) },
        orderBy: [{ sortOrder: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
      }),
      provider ? undefined : this.workspaceModels.resolved(workspaceId),
    ]);
    return { credentials: credentials.map((credential) => this.decrypt(credential)), ...(models ? { models } : {}) };
  }

  private decrypt(credential: ByokCredential): ResolvedByokCredential {
    let apiKey: string;
    try {
      apiKey = openSecret(this.keyRing, credential, credentialContext(credential.id, credential.workspaceId));
    } catch (error) {
      if (!(error instanceof SecretUnavailableError)) throw error;
      this.logger.error(
        { credentialId: credential.id, kekVersion: credential.kekVersion, problem: error.message },
        'BYOK credential cannot be decrypted',
      );
      throw new GatewayError(500, 'A BYOK credential of this workspace cannot be decrypted', { errorType: 'server' });
    }
    return {
      id: credential.id,
      provider: credential.provider,
      apiKey,
      isFallback: credential.isFallback,
      isByokOnly: credential.isByokOnly,
      isRequired: credential.isRequired,
      sortOrder: credential.sortOrder,
      allowedApiKeyHashes: listOrNull(credential.allowedApiKeyHashes),
      allowedModels: listOrNull(credential.allowedModels),
      allowedUserIds: listOrNull(credential.allowedUserIds),
    };
  }

  /** 404 both for an unknown id and for a credential in a workspace the caller is not part of. */
  private async findVisible(principal: Principal, id: string): Promise<ByokCredential> {
    requireManagementKey(principal);
    const credential = await this.prisma.byokCredential.findUnique({ where: { id } });
    if (!credential || !(await this.workspaces.isMember(principal.userId, credential.workspaceId))) {
      throw GatewayError.notFound('No BYOK credential with that id');
    }
    return credential;
  }

  /** Allow-lists may only name keys and users of the credential's own workspace. */
  private async assertAllowListsBelongTo(workspaceId: string, lists: AllowListFields): Promise<void> {
    const hashes = lists.allowed_api_key_hashes ?? [];
    if (hashes.length > 0) {
      const found = await this.prisma.apiKey.count({ where: { workspaceId, hash: { in: hashes } } });
      if (found !== hashes.length) throw GatewayError.badRequest('allowed_api_key_hashes names keys that are not in this workspace');
    }
    const userIds = lists.allowed_user_ids ?? [];
    if (userIds.length > 0) {
      const found = await this.prisma.workspaceMember.count({ where: { workspaceId, userId: { in: userIds } } });
      if (found !== userIds.length) throw GatewayError.badRequest('allowed_user_ids names users who are not members of this workspace');
    }
  }
}

/** OpenRouter's rule: a fallback credential is tried after the others, so it cannot also forbid the shared keys. */
function assertRoutingFlags(isFallback: boolean, isByokOnly: boolean): void {
  if (isFallback && isByokOnly) throw GatewayError.badRequest('is_byok_only cannot be combined with is_fallback');
}

/** Deleted by someone else between the read and the write. */
function notFoundIfGone(error: unknown): never {
  if ((error as { code?: string }).code === 'P2025') throw GatewayError.notFound('No BYOK credential with that id');
  throw error;
}
