import { Injectable } from '@nestjs/common';
import type { Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { PrismaService } from '../prisma/prisma.service.js';

/** Which workspaces a caller may read. */
@Injectable()
export class WorkspaceAccessService {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The workspace a request is about: the one it names, when the caller belongs to it, or
   * else the caller's default workspace (spec §4.2), falling back to the key's own.
   */
  async resolveWorkspace(principal: Principal, requested?: string): Promise<string> {
    if (requested) {
      if (!(await this.isMember(principal.userId, requested))) {
        throw GatewayError.badRequest('workspace_id does not name a workspace you belong to');
      }
      return requested;
    }
    const user = await this.prisma.user.findUnique({ where: { id: principal.userId }, select: { defaultWorkspaceId: true } });
    return user?.defaultWorkspaceId ?? principal.workspaceId;
  }

  async isMember(userId: string, workspaceId: string): Promise<boolean> {
    const membership = await this.prisma.workspaceMember.findUnique({
      where: { workspaceId_userId: { workspaceId, userId } },
      select: { userId: true },
    });
    return membership !== null;
  }
}
