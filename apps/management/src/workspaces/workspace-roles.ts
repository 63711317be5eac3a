import { Injectable } from '@nestjs/common';
import type { Principal, WorkspaceRoleName } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { requireManagementKey } from '../keys/keys.service.js';
import { PrismaService } from '../prisma/prisma.service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Who may do what in a workspace: a management key acts as its user, and the user's role in the
 * workspace decides. Not a member: 404, as if the workspace did not exist (nothing of another
 * workspace is readable). A member reads; owners and admins change; only owners delete.
 */
@Injectable()
export class WorkspaceRoles {
  constructor(private readonly prisma: PrismaService) {}

  /** The workspace `ref` names (id or slug) among the caller's, with the caller's role there. */
  async resolve(principal: Principal, ref: string): Promise<{ workspaceId: string; role: WorkspaceRoleName }> {
    requireManagementKey(principal);
    const memberships = await this.prisma.workspaceMember.findMany({
      where: { userId: principal.userId, workspace: UUID.test(ref) ? { id: ref.toLowerCase() } : { slug: ref } },
      select: { workspaceId: true, role: true },
      take: 2,
    });
    if (memberships.length !== 1) throw GatewayError.notFound('No such workspace');
    return { workspaceId: memberships[0]!.workspaceId, role: memberships[0]!.role };
  }

  /** As `resolve`, then 403 unless the caller's role is one of `roles`. */
  async require(principal: Principal, ref: string, roles: readonly WorkspaceRoleName[]): Promise<string> {
    const { workspaceId, role } = await this.resolve(principal, ref);
    if (!roles.includes(role)) {
      throw new GatewayError(403, `Your role in this workspace (${role}) may not do this`, {
        errorType: 'permission_denied',
        metadata: { reason: 'workspace_role', role },
      });
    }
    return workspaceId;
  }
}

export const ADMINS: readonly WorkspaceRoleName[] = ['owner', 'admin'];
export const EVERYONE: readonly WorkspaceRoleName[] = ['owner', 'admin', 'member'];
