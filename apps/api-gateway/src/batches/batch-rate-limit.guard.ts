import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { LimiterStore, RequestRateLimiter } from '@gw/rate-limit';
import type { FastifyReply } from 'fastify';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';

/**
 * The batch API's own limit per billable entity, the workspace (spec §4.1 429), from the shared
 * rate limiter in Redis: BATCH_API_RATE_LIMIT_RPM requests a minute over every key
 * of the workspace, on top of each key's own limits. A refusal is 429 with Retry-After.
 */
@Injectable()
export class BatchRateLimitGuard implements CanActivate {
  private readonly limiter: RequestRateLimiter;

  constructor(
    @Inject(LimiterStore) store: LimiterStore,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {
    this.limiter = new RequestRateLimiter(store, { name: 'batch-api', points: env.BATCH_API_RATE_LIMIT_RPM, durationSeconds: 60 });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const principal = http.getRequest<{ principal?: Principal }>().principal;
    if (!principal) return true;
    const decision = await this.limiter.consume(principal.workspaceId);
    if (decision.allowed) return true;
    const retryAfter = Math.max(1, decision.retryAfterSeconds);
    void http.getResponse<FastifyReply>().header('retry-after', String(retryAfter));
    throw new GatewayError(429, `Batch API rate limit exceeded: ${decision.limit} requests per minute for this workspace`, {
      errorType: 'rate_limit_exceeded',
      metadata: {
        reason: 'rate_limited',
        limit_type: 'batch_requests_per_minute',
        limit: decision.limit,
        retry_after: retryAfter,
        retryable: true,
      },
    });
  }
}
