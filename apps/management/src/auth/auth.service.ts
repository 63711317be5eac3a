import { Injectable } from '@nestjs/common';
import type { AuthResolveReply, SpendBlock } from '@gw/contracts';
import { routingGuardrailsOf } from '../guardrails/guardrail-policies.js';
import { OidcClient } from '../identity/oidc-client.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { keyUsageAt } from '../usage/key-usage.js';
import { nextPeriodStart } from '../usage/usage-periods.js';

/** How long a gateway may trust a positive answer; changes also arrive as events. */
const AUTH_TTL_SECONDS = 60;
/** Unknown keys are remembered briefly so a flood of bad keys does not reach the database. */
const NEGATIVE_AUTH_TTL_SECONDS = 5;

const secondsUntil = (at: Date, now: Date) => Math.floor((at.getTime() - now.getTime()) / 1000);

@Injectable()
export class AuthService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly oidc: OidcClient,
  ) {}

  async resolve(keyHash: string, now = new Date()): Promise<AuthResolveReply> {
    const key = await this.prisma.apiKey.findUnique({
      where: { hash: keyHash },
      include: {
        creator: { select: { oidcIssuer: true, oidcSubject: true } },
        workspace: { select: { creditsTotal: true, usageTotal: true } },
      },
    });
    if (!key || key.disabled || (key.expiresAt && key.expiresAt <= now)) {
      return { principal: null, ttlSeconds: NEGATIVE_AUTH_TTL_SECONDS };
    }
    let ttlSeconds = Math.min(AUTH_TTL_SECONDS, key.expiresAt ? secondsUntil(key.expiresAt, now) : Infinity);
    const limitReached = keyUsageAt(key, now).limitReached;
    // A key blocked by a periodic limit is free again at the reset: the gateway must ask by then.
    if (limitReached && key.limitReset) ttlSeconds = Math.min(ttlSeconds, secondsUntil(nextPeriodStart(key.limitReset, now), now));
    const outOfCredits = key.workspace.creditsTotal.minus(key.workspace.usageTotal).lte(0);
    const spendBlocked: SpendBlock | null = outOfCredits ? 'insufficient_credits' : limitReached ? 'key_limit_reached' : null;
    // Subjects are unique per issuer only: a link made with another issuer than the configured
    // one names nobody a daemon can tell apart, so it does not count.
    const identitySubject = this.oidc.isCurrentIssuer(key.creator.oidcIssuer) ? key.creator.oidcSubject : null;
    const guardrails = await routingGuardrailsOf(this.prisma, key);
    return {
      principal: {
        workspaceId: key.workspaceId,
        keyHash: key.hash,
        keyKind: key.kind,
        userId: key.creatorUserId,
        internId: key.internId,
        hasPersonalIdentity: identitySubject !== null,
        identitySubject,
        spendBlocked,
        rateLimits:
          key.rateLimitRpm === null && key.concurrencyLimit === null
            ? null
            : { requestsPerMinute: key.rateLimitRpm, concurrentRequests: key.concurrencyLimit },
        ...(guardrails.length > 0 ? { guardrails } : {}),
        ...(key.responseCacheTtlSeconds === null ? {} : { responseCacheTtlSeconds: key.responseCacheTtlSeconds }),
      },
      ttlSeconds: Math.max(0, ttlSeconds),
    };
  }
}
