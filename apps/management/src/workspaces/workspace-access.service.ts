import { Injectable } from '@nestjs/common';
import type { Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { PrismaService } from '../prisma/prisma.service.js';

/** Which workspaces a caller may read. */
@Injectable()
export class WorkspaceAccessService {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The workspace a request is about, one rule for every resource: the one it
   * names (`workspace_id`), when the key's user belongs to it, or else the key's own workspace,
   * the request's default workspace (spec §4.2). Never the user's default workspace: a key
   * of workspace B must not write to A because its user's default is A.
   */
  async resolveWorkspace(principal: Principal, requested?: string): Promise<string> {
    if (!requested || requested === principal.workspaceId) return principal.workspaceId;
    if (!(await this.isMember(principal.userId, requested))) {
      throw GatewayError.badRequest('workspace_id does not name a workspace you belong to');
    }
    return requested;
  }

  async isMember(userId: string, workspaceId: string): Promise<boolean> {
    const membership = await this.prisma.workspaceMember.findUnique({
      where: { workspaceId_userId: { workspaceId, userId } },
      select: { userId: true },
    });
    return membership !== null;
  }
}
