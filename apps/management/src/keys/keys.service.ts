import { Injectable } from '@nestjs/common';
import { KEYS_PAGE_SIZE, type ApiKeyView, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { PrismaService } from '../prisma/prisma.service.js';
import { WorkspaceAccessService } from '../workspaces/workspace-access.service.js';
import { toApiKeyView } from './api-key.view.js';

/** The spec lists no 403 for the key endpoints, so a non-management key is refused as 401. */
export function requireManagementKey(principal: Principal): void {
  if (principal.keyKind !== 'management') {
    throw new GatewayError(401, 'A management key is required for this operation', {
      errorType: 'authentication',
      metadata: { reason: 'management_key_required' },
    });
  }
}

@Injectable()
export class KeysService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly workspaces: WorkspaceAccessService,
  ) {}

  async list(principal: Principal, query: { includeDisabled: boolean; offset: number; workspaceId?: string }): Promise<ApiKeyView[]> {
    requireManagementKey(principal);
    const workspaceId = await this.workspaces.resolveWorkspace(principal, query.workspaceId);
    const keys = await this.prisma.apiKey.findMany({
      where: { workspaceId, ...(query.includeDisabled ? {} : { disabled: false }) },
      orderBy: [{ createdAt: 'desc' }, { hash: 'asc' }],
      skip: query.offset,
      take: KEYS_PAGE_SIZE,
    });
    const now = new Date();
    return keys.map((key) => toApiKeyView(key, now));
  }

  /** 404 both for an unknown hash and for a key in a workspace the caller is not part of. */
  async get(principal: Principal, hash: string): Promise<ApiKeyView> {
    requireManagementKey(principal);
    const key = await this.prisma.apiKey.findUnique({ where: { hash } });
    if (!key || !(await this.workspaces.isMember(principal.userId, key.workspaceId))) {
      throw GatewayError.notFound('No API key with that hash');
    }
    return toApiKeyView(key);
  }
}
