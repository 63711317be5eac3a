import { Injectable } from '@nestjs/common';
import type { ConsoleOperatorSessionReply, ConsoleSessionEndReply, ConsoleSessionView } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { OidcClient } from '../identity/oidc-client.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { ADMINS } from '../workspaces/workspace-roles.js';

/** The name every console session key carries: how logout everywhere finds them, and how the console hides them. */
const CONSOLE_SESSION_KEY_NAME = 'console session';

/**
 * The console's sessions are keys: the gateway verified the person's ID token and
 * derived a secret only it can recompute; here the user linked to (issuer, subject) gets a key
 * with that secret's hash, expiring with the session. Ending the session deletes the key, so
 * every gateway replica refuses it on the next request (the keys.changed event).
 */
@Injectable()
export class ConsoleSessionsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly oidc: OidcClient,
    private readonly events: ManagementEventsPublisher,
  ) {}

  async open(input: { issuer: string; subject: string; keyHash: string; expiresAt: Date }): Promise<ConsoleSessionView> {
    // Links made under another issuer do not count (the same rule as signatures).
    if (!this.oidc.isCurrentIssuer(input.issuer)) throw notLinked();
    const user = await this.prisma.user.findFirst({
      where: { oidcSubject: input.subject, oidcIssuer: { in: issuerSpellings(input.issuer) } },
      include: { memberships: { orderBy: { createdAt: 'asc' } } },
    });
    if (!user) throw notLinked();
    const membership = user.memberships.find((m) => m.workspaceId === user.defaultWorkspaceId) ?? user.memberships[0];
    if (!membership) throw notLinked();
    // A member's session can do what a member's standard key can; owners and admins manage the
    // workspace (each route still checks the role: only owners delete).
    const kind = ADMINS.includes(membership.role) ? 'management' : 'standard';
    return this.storeSessionKey(user, membership, kind, input.keyHash, input.expiresAt);
  }

  /**
   * An admin signs in with a management key: the key is checked as the auth path would (a
   * management key, enabled, unexpired, of a member of its workspace), and the session is a
   * management key of the key's creator in the key's workspace, expiring no later than it.
   */
  async openWithKey(input: { presentedKeyHash: string; keyHash: string; expiresAt: Date }): Promise<ConsoleSessionView> {
    const now = new Date();
    const presented = await this.prisma.apiKey.findUnique({
      where: { hash: input.presentedKeyHash },
      include: { creator: { include: { memberships: true } } },
    });
    const usable =
      presented &&
      presented.kind === 'management' &&
      presented.name !== CONSOLE_SESSION_KEY_NAME &&
      presented.internId === null &&
      !presented.disabled &&
      (presented.expiresAt === null || presented.expiresAt > now);
    if (!usable) throw notAManagementKey();
    const membership = presented.creator.memberships.find((m) => m.workspaceId === presented.workspaceId);
    if (!membership) throw notAManagementKey();
    const expiresAt = presented.expiresAt && presented.expiresAt < input.expiresAt ? presented.expiresAt : input.expiresAt;
    return this.storeSessionKey(presented.creator, membership, 'management', input.keyHash, expiresAt);
  }

  private async storeSessionKey(
    user: { id: string; email: string; name: string },
    membership: { workspaceId: string; role: string },
    kind: 'management' | 'standard',
    keyHash: string,
    expiresAt: Date,
  ): Promise<ConsoleSessionView> {
    await this.prisma.apiKey.create({
      data: {
        hash: keyHash,
        label: 'console session',
        name: CONSOLE_SESSION_KEY_NAME,
        kind,
        workspaceId: membership.workspaceId,
        creatorUserId: user.id,
        expiresAt,
      },
    });
    // Expired session keys are swept by each sign-in, so they do not pile up without a timer.
    await this.prisma.apiKey.deleteMany({
      where: { creatorUserId: user.id, name: CONSOLE_SESSION_KEY_NAME, expiresAt: { lt: new Date() } },
    });
    return {
      user_id: user.id,
      email: user.email,
      name: user.name,
      workspace_id: membership.workspaceId,
      role: membership.role,
      key_kind: kind,
    };
  }

  async openOperator(input: { keyHash: string; operator: string; expiresAt: Date }): Promise<ConsoleOperatorSessionReply> {
    await this.prisma.consoleOperatorSession.create({
      data: { hash: input.keyHash, operator: input.operator, expiresAt: input.expiresAt },
    });
    await this.prisma.consoleOperatorSession.deleteMany({ where: { expiresAt: { lt: new Date() } } });
    return { live: true, ended: 0 };
  }

  /** Live while its row exists, unexpired, for the same operator. */
  async checkOperator(input: { keyHash: string; operator: string }): Promise<ConsoleOperatorSessionReply> {
    const row = await this.prisma.consoleOperatorSession.findUnique({ where: { hash: input.keyHash } });
    return { live: row !== null && row.operator === input.operator && row.expiresAt > new Date(), ended: 0 };
  }

  async endOperator(input: { keyHash: string; operator: string; everywhere: boolean }): Promise<ConsoleOperatorSessionReply> {
    const { count } = await this.prisma.consoleOperatorSession.deleteMany({
      where: input.everywhere ? { operator: input.operator } : { hash: input.keyHash, operator: input.operator },
    });
    return { live: false, ended: count };
  }

  async end(input: { keyHash: string; userId: string; everywhere: boolean }): Promise<ConsoleSessionEndReply> {
    const where = input.everywhere
      ? { creatorUserId: input.userId, name: CONSOLE_SESSION_KEY_NAME }
      : { hash: input.keyHash, creatorUserId: input.userId, name: CONSOLE_SESSION_KEY_NAME };
    const keys = await this.prisma.apiKey.findMany({ where, select: { hash: true } });
    const changedKeyHashes = keys.map((key) => key.hash);
    if (changedKeyHashes.length > 0) {
      await this.prisma.apiKey.deleteMany({ where: { hash: { in: changedKeyHashes } } });
      this.events.keysChanged(changedKeyHashes);
    }
    return { changedKeyHashes };
  }
}

const issuerSpellings = (issuer: string) => {
  const bare = issuer.replace(/\/+$/, '');
  return [bare, `${bare}/`];
};

const notAManagementKey = () =>
  new GatewayError(401, 'Not a management key: sign in with SSO, a management key of a workspace you belong to, or an operator key', {
    errorType: 'authentication',
    metadata: { reason: 'management_key_required', retryable: false },
  });

const notLinked = () =>
  new GatewayError(403, 'No user of this gateway is linked to this identity; link it with POST /v1/identity/oidc/start first', {
    metadata: { reason: 'identity_not_linked', retryable: false },
  });
