import { Injectable } from '@nestjs/common';
import type { AuthResolveReply } from '@gw/contracts';
import { PrismaService } from '../prisma/prisma.service.js';

/** How long a gateway may trust a positive answer; changes also arrive as events. */
export const AUTH_TTL_SECONDS = 60;
/** Unknown keys are remembered briefly so a flood of bad keys does not reach the database. */
export const NEGATIVE_AUTH_TTL_SECONDS = 5;

@Injectable()
export class AuthService {
  constructor(private readonly prisma: PrismaService) {}

  async resolve(keyHash: string, now = new Date()): Promise<AuthResolveReply> {
    const key = await this.prisma.apiKey.findUnique({
      where: { hash: keyHash },
      include: { creator: { select: { oidcSubject: true } } },
    });
    if (!key || key.disabled || (key.expiresAt && key.expiresAt <= now)) {
      return { principal: null, ttlSeconds: NEGATIVE_AUTH_TTL_SECONDS };
    }
    const secondsToExpiry = key.expiresAt ? Math.floor((key.expiresAt.getTime() - now.getTime()) / 1000) : Infinity;
    return {
      principal: {
        workspaceId: key.workspaceId,
        keyHash: key.hash,
        keyKind: key.kind,
        userId: key.creatorUserId,
        internId: key.internId,
        hasPersonalIdentity: key.creator.oidcSubject !== null,
      },
      ttlSeconds: Math.max(0, Math.min(AUTH_TTL_SECONDS, secondsToExpiry)),
    };
  }
}
